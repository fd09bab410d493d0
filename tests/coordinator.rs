//! The coordinator team end to end through the engine, on the paused
//! clock: members called side by side through the gateway, the member
//! timeout the gateway applies, the run's budgets over the members' calls,
//! refused member calls, and the launch review scenario.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::{run, run_default, scenario};
use conclave::bus::{CallOutcome, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::TeamEvent;
use serde_json::{Value, json};

/// A coordinator `lead` with members m1..m3, each answering after the
/// given latency.
fn desk(lead: Value, members: [u64; 3]) -> Value {
    let mut turns = serde_json::Map::new();
    turns.insert("lead".into(), lead);
    for (i, ms) in members.iter().enumerate() {
        turns.insert(
            format!("m{}", i + 1),
            json!({"reply": format!("m{} says hi", i + 1), "latency_ms": ms}),
        );
    }
    json!({
        "name": "t", "pattern": "coordinator", "goal": "Decide.", "context": {},
        "entry": "lead", "agents": {"lead": {}, "m1": {}, "m2": {}, "m3": {}},
        "provider": {"kind": "sim", "latency_ms": 100, "turns": turns}
    })
}

fn ask_all() -> Value {
    json!([
        {"call_members": [{"member": "m1", "task": "a"}, {"member": "m2", "task": "b"},
                          {"member": "m3", "task": "c"}]},
        {"reply": "All heard."}
    ])
}

fn statuses(r: &Value) -> Vec<(String, String, Option<String>)> {
    r["member_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["member"].as_str().unwrap().to_string(),
                m["status"].as_str().unwrap().to_string(),
                m.get("stop_reason")
                    .and_then(Value::as_str)
                    .map(String::from),
            )
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn members_run_side_by_side_through_the_gateway() {
    let (outcome, events) = run(
        scenario(&desk(ask_all(), [700, 300, 500])),
        LaunchOptions::default(),
    )
    .await;
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["answer"], "All heard.");
    assert_eq!(r["llm_calls"], 5);
    let latencies: Vec<u64> = r["member_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["latency_ms"].as_u64().unwrap())
        .collect();
    assert_eq!(latencies, [700, 300, 500]);
    // 100 ms for the lead, 700 ms for the slowest member, 100 ms to reply:
    // the members took the longest one's time, not their sum.
    assert_eq!(events.last().unwrap().t_ms, 900);
    let finished: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                member,
                ..
            })) => Some(member.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(finished, ["m2", "m3", "m1"], "each as it answers");
    let model_calls = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::CallStarted { tool, .. } if tool == "model"))
        .count();
    assert_eq!(model_calls, 5, "every member turn is a gateway model call");
}

/// `limits.parallel: false`: the same members, one after another in the
/// order asked, so the turn takes the sum of their times; the result's
/// fields are those of a parallel run.
#[tokio::test(start_paused = true)]
async fn with_parallel_off_members_answer_one_after_another_in_the_order_asked() {
    let mut doc = desk(ask_all(), [700, 300, 500]);
    doc["limits"] = json!({"parallel": false});
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["answer"], "All heard.");
    assert_eq!(r["llm_calls"], 5);
    let finished: Vec<(&str, u64)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                member,
                ..
            })) => Some((member.as_str(), e.t_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(
        finished,
        [("m1", 800), ("m2", 1100), ("m3", 1600)],
        "in the order asked, each after the one before"
    );
    // 100 ms for the lead, 700 + 300 + 500 for the members, 100 to reply.
    assert_eq!(events.last().unwrap().t_ms, 1700);

    // The default, and `true`, keep them side by side.
    doc["limits"] = json!({"parallel": true});
    let (_, events) = run(scenario(&doc), LaunchOptions::default()).await;
    assert_eq!(events.last().unwrap().t_ms, 900);
}

#[tokio::test(start_paused = true)]
async fn a_member_past_its_timeout_is_cut_and_the_coordinator_goes_on() {
    let mut doc = desk(ask_all(), [700, 300, 2500]);
    doc["limits"] = json!({"member_timeout_ms": 1000});
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(
        statuses(r)[2],
        (
            "m3".into(),
            "failed".into(),
            Some("member_timeout:m3".into())
        )
    );
    assert_eq!(r["member_calls"][2]["latency_ms"], 1000);
    let cut = events
        .iter()
        .find(|e| {
            matches!(
                &e.kind,
                EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                    outcome: CallOutcome::Timeout,
                    ..
                }))
            )
        })
        .unwrap();
    assert_eq!(cut.t_ms, 1100, "called at 100 ms, cut 1 s later");
    assert_eq!(events.last().unwrap().t_ms, 1200);
    assert_eq!(r["llm_calls"], 5, "the cut-off call counts");
}

#[tokio::test(start_paused = true)]
async fn refused_member_calls_answer_the_coordinator_with_their_reason() {
    let mut doc = desk(
        json!([
            {"call_members": [{"member": "m1"}, {"member": "ghost"}, {"member": "lead"}, {"member": "m3"}]},
            {"reply": "Done with what I had."}
        ]),
        [100, 100, 100],
    );
    doc["flags"] = json!({"m3_on": {"default": false, "agents": ["m3"]}});
    let r = run_default(scenario(&doc)).await.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(
        statuses(&r),
        [
            ("m1".into(), "done".into(), None),
            (
                "ghost".into(),
                "failed".into(),
                Some("unknown_member:ghost".into())
            ),
            (
                "lead".into(),
                "failed".into(),
                Some("unknown_member:lead".into())
            ),
            ("m3".into(), "failed".into(), Some("agent_denied:m3".into())),
        ]
    );
    assert_eq!(r["llm_calls"], 3, "refused calls reach no model");
}

#[tokio::test(start_paused = true)]
async fn the_run_budget_counts_the_members_calls() {
    let mut doc = desk(ask_all(), [100, 100, 100]);
    doc["budget"] = json!({"max_llm_calls": 3});
    let r = run_default(scenario(&doc)).await.result;
    assert_eq!(r["stop_reason"], "max_llm_calls");
    assert_eq!(r["llm_calls"], 3);
    assert_eq!(
        statuses(&r)[2],
        ("m3".into(), "failed".into(), Some("max_llm_calls".into())),
        "the lead and two members used the budget up"
    );
    assert!(r.get("answer").is_none());
}

#[tokio::test(start_paused = true)]
async fn a_member_that_fails_answers_with_its_error() {
    let mut doc = desk(ask_all(), [100, 100, 100]);
    doc["provider"]["turns"]["m2"] = json!({"$fault": "timeout"});
    // A member cannot hand control on; the scenario check refuses such a
    // scripted turn, so it comes as the model's text.
    doc["provider"]["turns"]["m1"] = json!("{\"transfer_to\": \"m2\"}");
    let r = run_default(scenario(&doc)).await.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(
        statuses(&r)[..2],
        [
            ("m1".into(), "failed".into(), Some("invalid_turn".into())),
            ("m2".into(), "failed".into(), Some("llm_timeout".into())),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn the_launch_review_hears_three_members_and_answers() {
    let r = run_default(common::shipped("launch_coordinator.json"))
        .await
        .result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["final_agent"], "launch_lead");
    assert_eq!(r["member_calls"].as_array().unwrap().len(), 3);
    assert!(statuses(&r).iter().all(|(_, s, _)| s == "done"));
    assert_eq!(
        r["history"][3]["observation"]["result"]["open_incidents"], 0,
        "the risk analyst read the incident feed"
    );
    let (outcome, _) = run(
        common::shipped("launch_coordinator.json"),
        LaunchOptions {
            flags: vec![("legal_review".into(), false)],
            ..LaunchOptions::default()
        },
    )
    .await;
    assert_eq!(outcome.result["stop_reason"], "success");
    assert_eq!(
        statuses(&outcome.result)[2].2.as_deref(),
        Some("agent_denied:legal_reviewer")
    );
}

/// The shipped launch review as a document, to change before running.
fn launch_review() -> Value {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/launch_coordinator.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test(start_paused = true)]
async fn with_skip_summary_the_members_answers_end_the_run_without_the_coordinators_turn() {
    let before = run_default(scenario(&launch_review())).await.result;
    let mut doc = launch_review();
    doc["limits"]["skip_summary"] = true.into();
    let r = run_default(scenario(&doc)).await.result;
    assert_eq!(r["status"], "ok");
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(
        r["answer"],
        "One-click checkout should lift conversion by about 3.1%; demand risk is low.\n\n\
         No open payment incidents in the US; chargebacks at 0.4%. Ramp in steps and watch fraud scores.\n\n\
         Show a consent line under the buy button and keep the order summary one tap away.",
        "the members' answers in the order called"
    );
    assert_eq!(
        r["llm_calls"].as_u64().unwrap() + 1,
        before["llm_calls"].as_u64().unwrap(),
        "no summary call"
    );
    let lead_turns = |r: &Value| {
        r["trace"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["agent"] == "launch_lead")
            .count()
    };
    assert_eq!((lead_turns(&before), lead_turns(&r)), (2, 1));
    assert_eq!(r["final_agent"], "launch_lead");
}

#[tokio::test(start_paused = true)]
async fn member_history_and_skip_summary_are_checked() {
    let refused = |doc: &Value| {
        conclave::scenario::parse(&doc.to_string(), "t.json")
            .unwrap_err()
            .to_string()
    };
    let mut doc = launch_review();
    doc["agents"]["risk_analyst"]["history"] = "both".into();
    let said = refused(&doc);
    assert!(said.contains("agents.risk_analyst.history"), "{said}");
    assert!(
        said.contains("isolated") && said.contains("shared"),
        "{said}"
    );

    let mut doc = launch_review();
    doc["agents"]["launch_lead"]["history"] = "shared".into();
    assert!(refused(&doc).contains("agents.launch_lead.history"));

    let mut swarm: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/pingpong_swarm.json"),
        )
        .unwrap(),
    )
    .unwrap();
    swarm["agents"]["critic"]["history"] = "shared".into();
    assert!(refused(&swarm).contains("agents.critic.history"));
    swarm["agents"]["critic"]
        .as_object_mut()
        .unwrap()
        .remove("history");
    swarm["limits"]["skip_summary"] = true.into();
    assert!(refused(&swarm).contains("\"skip_summary\" is a limit of coordinator scenarios"));

    // Both are off by default: a member with isolated history is today's.
    let mut doc = launch_review();
    doc["agents"]["risk_analyst"]["history"] = "isolated".into();
    doc["limits"]["skip_summary"] = false.into();
    let explicit = run_default(scenario(&doc)).await.result;
    assert_eq!(
        explicit,
        run_default(scenario(&launch_review())).await.result
    );
}
