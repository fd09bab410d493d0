//! The long poll, the leases and the requests' checks, through
//! `Steering` on tokio's paused clock.

use super::protocol::{Answer, Refused};
use super::state::{Limits, Policy};
use super::{HookAnswer, HookRequest, Steering};
use std::time::Duration;
use tokio::time::Instant;

fn request(json: serde_json::Value) -> HookRequest {
    serde_json::from_value(json).unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_held_gate_is_answered_waiting_at_the_heartbeat_and_go_when_stepped() {
    let steering = Steering::new(Limits::default(), Policy::default());
    let trace = "000000000000000000000000000000ab";
    let gate = serde_json::json!({"trace_id": trace, "session": "s", "op": "gate",
        "kind": "node", "name": "agent"});
    let answer = steering.hook(request(gate.clone())).await.unwrap();
    assert!(matches!(answer, HookAnswer::Now(Answer::Go { .. }, _)));
    let pause: super::ControlRequest =
        serde_json::from_value(serde_json::json!({"op": "pause", "trace_id": trace})).unwrap();
    steering.control(pause).unwrap();
    let started = Instant::now();
    let held = steering.hook(request(gate.clone())).await.unwrap();
    let HookAnswer::Waiting(id) = held else {
        panic!("held: {held:?}");
    };
    assert_eq!(started.elapsed(), Limits::default().heartbeat);
    let polling = {
        let steering = std::sync::Arc::clone(&steering);
        tokio::spawn(async move {
            let poll = serde_json::json!({"trace_id": trace, "session": "s", "op": "poll",
                "id": id, "wait_ms": 60_000});
            steering.hook(request(poll)).await
        })
    };
    tokio::time::sleep(Duration::from_secs(2)).await;
    let step: super::ControlRequest =
        serde_json::from_value(serde_json::json!({"op": "step", "trace_id": trace})).unwrap();
    steering.control(step).unwrap();
    let answer = polling.await.unwrap().unwrap();
    assert!(matches!(answer, HookAnswer::Now(Answer::Go { .. }, _)));
    assert_eq!(
        started.elapsed(),
        Limits::default().heartbeat + Duration::from_secs(2)
    );
}

#[tokio::test(start_paused = true)]
async fn a_running_run_leases_its_gates_and_the_hook_counts_what_passed() {
    let steering = Steering::new(Limits::default(), Policy::default());
    let trace = "000000000000000000000000000000cd";
    let gate = |passed: u64| {
        request(
            serde_json::json!({"trace_id": trace, "session": "s", "op": "gate",
            "kind": "node", "name": "agent", "passed": passed}),
        )
    };
    let lease = |answer| match answer {
        HookAnswer::Now(Answer::Go { lease_ms }, _) => lease_ms,
        other => panic!("not a go: {other:?}"),
    };
    assert_eq!(lease(steering.hook(gate(0)).await.unwrap()), 100);
    // 41 gates passed under the lease, then the 42nd asks.
    assert_eq!(lease(steering.hook(gate(41)).await.unwrap()), 100);
    assert_eq!(steering.list()[0].gates, 43);
    let control = |json: serde_json::Value| {
        let mut json = json;
        json["trace_id"] = trace.into();
        steering
            .control(serde_json::from_value(json).unwrap())
            .unwrap();
    };
    control(serde_json::json!({"op": "pause"}));
    control(serde_json::json!({"op": "step", "gates": 1}));
    // A stepped gate has no lease: the next one asks again.
    assert_eq!(lease(steering.hook(gate(0)).await.unwrap()), 0);
    // A lease is renewed while the run runs, held while it is paused, and
    // a renewal counts no gate.
    let renew = || {
        request(
            serde_json::json!({"trace_id": trace, "session": "s", "op": "lease",
            "passed": 5}),
        )
    };
    let held = steering.hook(renew()).await.unwrap();
    assert!(matches!(held, HookAnswer::Now(Answer::Hold, _)), "{held:?}");
    control(serde_json::json!({"op": "run_on"}));
    assert_eq!(lease(steering.hook(renew()).await.unwrap()), 100);
    assert_eq!(steering.list()[0].gates, 44 + 10);
    control(serde_json::json!({"op": "stop"}));
    let stopped = steering.hook(renew()).await.unwrap();
    assert!(matches!(
        stopped,
        HookAnswer::Now(Answer::Stopped { .. }, _)
    ));
    let too_many = request(serde_json::json!({"trace_id": trace, "session": "s",
        "op": "gate", "kind": "node", "name": "a", "passed": 2_000_000}));
    assert!(matches!(
        steering.hook(too_many).await,
        Err(Refused::Bad(_))
    ));
}

#[test]
fn garbage_gets_a_clear_answer() {
    let bad = |json: serde_json::Value| {
        let request: HookRequest = serde_json::from_value(json).unwrap();
        request
            .check()
            .and_then(|()| super::protocol::trace_of(&request.trace_id).map(|_| ()))
            .unwrap_err()
            .to_string()
    };
    let long = "x".repeat(300);
    let said = bad(serde_json::json!({"trace_id": "zz", "session": "s", "op": "poll", "id": 1}));
    assert!(said.contains("32 hex digits"), "{said}");
    let said = bad(
        serde_json::json!({"trace_id": "00000000000000000000000000000001",
        "session": "s", "op": "gate", "kind": "node", "name": long}),
    );
    assert!(said.contains("name") && said.contains("at most"), "{said}");
    let unknown = serde_json::from_value::<HookRequest>(serde_json::json!({
        "trace_id": "00000000000000000000000000000001", "session": "s", "op": "dance"}));
    assert!(unknown.unwrap_err().to_string().contains("dance"));
}
