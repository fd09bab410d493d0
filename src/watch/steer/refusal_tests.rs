//! A refused steerer's call changes nothing: each refusal of
//! `POST /v1/steer/control`, through `Steering`, leaves every run as it
//! was, unsteered (its approvals still decided as nobody steering).

use super::protocol::{Answer, Refused};
use super::state::{Limits, Policy};
use super::{HookAnswer, HookRequest, Steering};
use serde_json::{Value, json};

const RUN: &str = "000000000000000000000000000000f1";
const OTHER: &str = "000000000000000000000000000000f2";

fn hook(steering: &Steering, json: Value) -> impl Future<Output = HookAnswer> + '_ {
    let mut json = json;
    json["trace_id"] = RUN.into();
    json["session"] = "s".into();
    json["wait_ms"] = 0.into();
    let request: HookRequest = serde_json::from_value(json).unwrap();
    async move { steering.hook(request).await.unwrap() }
}

fn waiting_id(answer: HookAnswer) -> u64 {
    match answer {
        HookAnswer::Waiting(id) => id,
        other => panic!("not waiting: {other:?}"),
    }
}

/// Every refusal of a steerer's call, with its status.
fn refusals(approval: u64, question: u64) -> Vec<(Value, u16)> {
    vec![
        (json!({"op": "approve", "trace_id": RUN, "id": 999}), 404),
        (
            json!({"op": "approve", "trace_id": OTHER, "id": approval}),
            404,
        ),
        (
            json!({"op": "approve", "trace_id": RUN, "id": question}),
            409,
        ),
        (json!({"op": "approve", "id": approval}), 400),
        (
            json!({"op": "approve", "trace_id": "zz", "id": approval}),
            400,
        ),
        (
            json!({"op": "reject", "trace_id": RUN, "id": 999, "reason": "no"}),
            404,
        ),
        (
            json!({"op": "reject", "trace_id": RUN, "id": approval, "reason": " "}),
            400,
        ),
        (
            json!({"op": "answer", "trace_id": RUN, "id": approval, "text": "x"}),
            409,
        ),
        (
            json!({"op": "answer", "trace_id": RUN, "id": question, "text": "cash"}),
            400,
        ),
        (
            json!({"op": "answer", "trace_id": RUN, "id": 999, "text": "credit"}),
            404,
        ),
        (json!({"op": "step", "trace_id": RUN}), 409),
        (json!({"op": "step", "trace_id": RUN, "gates": 0}), 400),
        (
            json!({"op": "set_flag", "trace_id": RUN, "name": "nope", "on": true}),
            404,
        ),
        (
            json!({"op": "set_flag", "trace_id": OTHER, "name": "legal", "on": true}),
            404,
        ),
        (json!({"op": "pause", "trace_id": OTHER}), 404),
        (json!({"op": "run_on", "trace_id": OTHER}), 404),
        (json!({"op": "stop", "trace_id": OTHER}), 404),
        (json!({"op": "stop"}), 400),
    ]
}

#[tokio::test(start_paused = true)]
async fn each_refused_control_call_leaves_every_run_as_it_was() {
    // A dashboard is open: an approval and a question wait unsteered.
    let policy = Policy {
        person_present: true,
        ..Policy::default()
    };
    let steering = Steering::new(Limits::default(), policy);
    let flags = json!({"op": "declare", "flags": [{"name": "legal", "default": true}]});
    hook(&steering, flags).await;
    let ask = json!({"op": "approval", "tool": "refund", "arguments": {"amount": 12}});
    let approval = waiting_id(hook(&steering, ask).await);
    let ask = json!({"op": "question", "question": "Refund or credit?",
        "options": ["refund", "credit"]});
    let question = waiting_id(hook(&steering, ask).await);
    let before = steering.list();
    assert!(!before[0].steered);
    for (call, status) in refusals(approval, question) {
        let refused = match serde_json::from_value(call.clone()) {
            Ok(request) => steering.control(request).unwrap_err(),
            Err(e) => panic!("{call}: {e}"),
        };
        assert_eq!(refused.status(), status, "{call}: {refused}");
        assert_eq!(steering.list(), before, "{call} changed the runs");
        assert!(
            steering
                .decisions(super::protocol::trace_of(RUN).unwrap(), 0)
                .len()
                == 1
        );
    }
}

#[tokio::test(start_paused = true)]
async fn approving_an_id_that_does_not_exist_leaves_a_headless_run_unsteered() {
    let steering = Steering::new(Limits::default(), Policy::default());
    hook(
        &steering,
        json!({"op": "gate", "kind": "node", "name": "a"}),
    )
    .await;
    let typo: super::ControlRequest =
        serde_json::from_value(json!({"op": "approve", "trace_id": RUN, "id": 12})).unwrap();
    assert_eq!(steering.control(typo), Err(Refused::NoSuchWait(12)));
    assert!(!steering.list()[0].steered);
    // Nobody steers it: its next approval passes at once, never waits.
    let ask = json!({"op": "approval", "tool": "refund", "arguments": {}});
    let answer = hook(&steering, ask).await;
    assert!(
        matches!(answer, HookAnswer::Now(Answer::Approved { .. }, _)),
        "{answer:?}"
    );
}
