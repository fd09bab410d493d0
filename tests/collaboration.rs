//! The round table end to end through the engine, on the paused clock:
//! every stop reason of 000, flags at launch and live, pause and step.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::{kinds, run, run_default, said, scenario, table};
use conclave::bus::{EventKind, GatePoint};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::RoundEvent;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn go_round() -> Value {
    json!({
        "demand_analyst": [said("demand_analyst", "go", 0.8)],
        "finance_analyst": [said("finance_analyst", "go", 0.7)],
        "risk_analyst": [said("risk_analyst", "caution", 0.6)],
        "legal_analyst": [said("legal_analyst", "caution", 0.6)]
    })
}

#[tokio::test(start_paused = true)]
async fn success_carries_the_decision_summary_and_brief() {
    let outcome = run_default(scenario(&table(go_round()))).await;
    let r = &outcome.result;
    assert_eq!(r["status"], "ok");
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["final_decision"], "go_with_caution");
    assert_eq!(r["rounds_used"], 1);
    assert_eq!(r["answer"], "Brief.");
    assert_eq!(
        r["team_summary"],
        json!({"report_date": "2026-03-02", "region": "US",
               "stances": [{"agent": "demand_analyst", "stance": "go", "confidence": 0.8},
                           {"agent": "finance_analyst", "stance": "go", "confidence": 0.7},
                           {"agent": "risk_analyst", "stance": "caution", "confidence": 0.6}],
               "conflicts": ["go_vs_caution"]})
    );
    assert_eq!(
        r["trace"][3],
        json!({"round": 1, "conflicts": ["go_vs_caution"], "decision": "go_with_caution"})
    );
    assert!(r.get("phase").is_none() && r.get("raw_contribution").is_none());
}

/// Run `responses` on the default table and return the result document.
async fn result_of(document: Value) -> Value {
    Arc::unwrap_or_clone(run_default(scenario(&document)).await.result).into_value()
}

#[tokio::test(start_paused = true)]
async fn every_invalid_contribution_reason_stops_with_phase_and_raw() {
    let base = said("risk_analyst", "go", 0.5);
    let with = |key: &str, value: Value| {
        let mut raw = base.clone();
        raw[key] = value;
        raw
    };
    let mut missing = base.clone();
    missing.as_object_mut().unwrap().remove("summary");
    let cases = [
        (json!("[1, 2]"), json!([1, 2]), "not_object"),
        (
            json!("plain words"),
            json!({"invalid": true, "raw": "plain words"}),
            "missing_keys",
        ),
        (json!(""), json!({}), "missing_keys"),
        (missing.clone(), missing, "missing_keys"),
        (
            with("agent", json!(" ")),
            with("agent", json!(" ")),
            "agent",
        ),
        (
            with("agent", json!("stranger")),
            with("agent", json!("stranger")),
            "agent_not_allowed:stranger",
        ),
        (
            with("agent", json!("legal_analyst")),
            with("agent", json!("legal_analyst")),
            "agent_not_allowed:legal_analyst",
        ),
        (
            with("stance", json!("yes")),
            with("stance", json!("yes")),
            "stance",
        ),
        (
            with("summary", json!("")),
            with("summary", json!("")),
            "summary",
        ),
        (
            with("confidence", json!("high")),
            with("confidence", json!("high")),
            "confidence_type",
        ),
        (
            with("confidence", json!(2)),
            with("confidence", json!(2)),
            "confidence_range",
        ),
        (
            with("actions", json!([])),
            with("actions", json!([])),
            "actions",
        ),
        (
            with("actions", json!(["ok", ""])),
            with("actions", json!(["ok", ""])),
            "action_item",
        ),
        (
            with("agent", json!("demand_analyst")),
            with("agent", json!("demand_analyst")),
            "agent_mismatch:risk_analyst",
        ),
    ];
    for (output, raw, reason) in cases {
        let mut responses = go_round();
        responses["risk_analyst"] = json!([output]);
        let r = result_of(table(responses)).await;
        assert_eq!(r["status"], "stopped");
        assert_eq!(r["stop_reason"], format!("invalid_contribution:{reason}"));
        assert_eq!(r["phase"], "round_1:risk_analyst");
        assert_eq!(r["raw_contribution"], raw, "{reason}");
        assert_eq!(
            r["trace"].as_array().unwrap().len(),
            2,
            "the two accepted contributions"
        );
        assert_eq!(r["history"], json!([]));
    }
}

#[tokio::test(start_paused = true)]
async fn agent_denied_when_a_gated_role_is_in_the_sequence() {
    let mut responses = go_round();
    responses["legal_analyst"] = json!([said("legal_analyst", "go", 0.6)]);
    let mut document = table(responses);
    document["team"]["sequence"] = json!(["demand_analyst", "legal_analyst", "risk_analyst"]);
    let r = result_of(document.clone()).await;
    assert_eq!(r["stop_reason"], "agent_denied:legal_analyst");
    assert_eq!(r["phase"], "round_1:legal_analyst");
    assert_eq!(r["raw_contribution"], said("legal_analyst", "go", 0.6));
    assert_eq!(r["trace"].as_array().unwrap().len(), 1);

    let (outcome, _) = run(
        scenario(&document),
        LaunchOptions {
            flags: vec![("legal_analyst".into(), true)],
            ..LaunchOptions::default()
        },
    )
    .await;
    assert_eq!(
        outcome.result["stop_reason"], "success",
        "the flag lets legal speak"
    );
}

#[tokio::test(start_paused = true)]
async fn model_faults_stop_with_llm_timeout_or_llm_empty() {
    let mut responses = go_round();
    responses["finance_analyst"] = json!([{"$fault": "timeout"}]);
    let r = result_of(table(responses)).await;
    assert_eq!(r["stop_reason"], "llm_timeout");
    assert_eq!(r["phase"], "round_1:finance_analyst");
    assert!(r.get("raw_contribution").is_none());

    // An empty model answer reads as `{}`.
    let mut responses = go_round();
    responses["finance_analyst"] = json!([{"$fault": "empty"}]);
    let r = result_of(table(responses)).await;
    assert_eq!(r["stop_reason"], "invalid_contribution:missing_keys");
    assert_eq!(r["raw_contribution"], json!({}));

    for (brief, reason) in [
        (json!({"$fault": "timeout"}), "llm_timeout"),
        (json!({"$fault": "empty"}), "llm_empty"),
        (json!(" \n\t "), "llm_empty"),
    ] {
        let mut document = table(go_round());
        document["provider"]["final_answer"] = brief;
        let r = result_of(document).await;
        assert_eq!(r["stop_reason"], reason);
        assert_eq!(r["phase"], "finalize");
        assert_eq!(
            r["history"].as_array().unwrap().len(),
            1,
            "the decided round is kept"
        );
        assert!(r.get("final_decision").is_none());
    }

    let mut document = table(go_round());
    document["provider"]["timeout_seconds"] = json!(0.05);
    let r = result_of(document).await;
    assert_eq!(
        r["stop_reason"], "llm_timeout",
        "100 ms calls against a 50 ms timeout"
    );
}

#[tokio::test(start_paused = true)]
async fn budgets_stop_with_max_messages_rounds_and_seconds() {
    let stalemate = json!({
        "demand_analyst": [said("demand_analyst", "go", 0.8)],
        "finance_analyst": [said("finance_analyst", "caution", 0.7)],
        "risk_analyst": [said("risk_analyst", "block", 0.6)],
        "legal_analyst": [said("legal_analyst", "go", 0.6)]
    });
    let r = result_of(table(stalemate.clone())).await;
    assert_eq!(r["stop_reason"], "max_rounds_reached");
    assert!(r.get("phase").is_none());
    assert_eq!(r["history"].as_array().unwrap().len(), 3);
    assert_eq!(
        r["trace"][3],
        json!({"round": 1, "conflicts": ["blocking_vs_non_block", "high_divergence"], "decision": "next_round"})
    );

    let mut document = table(stalemate.clone());
    document["budget"] = json!({"max_messages": 7});
    let r = result_of(document).await;
    assert_eq!(r["stop_reason"], "max_messages");
    assert_eq!(r["phase"], "round_3:finance_analyst", "the 8th message");
    assert_eq!(
        r["raw_contribution"],
        said("finance_analyst", "caution", 0.7)
    );

    // 3 calls of 100 ms a round: round 2 starts at 0.3 s, round 3 at 0.6 s.
    let mut document = table(stalemate.clone());
    document["budget"] = json!({"max_seconds": 0.5});
    let r = result_of(document).await;
    assert_eq!(r["stop_reason"], "max_seconds");
    assert_eq!(r["history"].as_array().unwrap().len(), 2);
    assert!(r.get("phase").is_none());

    // Exactly at the limit is still inside it (000 stops only when over).
    let mut document = table(stalemate);
    document["budget"] = json!({"max_seconds": 0.6, "max_rounds": 4});
    let r = result_of(document).await;
    assert_eq!(r["history"].as_array().unwrap().len(), 3);
    assert_eq!(r["stop_reason"], "max_seconds");

    let mut document = table(go_round());
    document["budget"] = json!({"max_rounds": 0});
    let r = result_of(document).await;
    assert_eq!(r["stop_reason"], "max_rounds_reached");
    assert_eq!(r["trace"], json!([]));
}

#[tokio::test(start_paused = true)]
async fn no_go_and_go_need_their_votes() {
    let responses = json!({
        "demand_analyst": [said("demand_analyst", "go", 0.8)],
        "finance_analyst": [said("finance_analyst", "block", 0.7)],
        "risk_analyst": [said("risk_analyst", "block", 0.9)],
        "legal_analyst": [said("legal_analyst", "go", 0.6)]
    });
    let r = result_of(table(responses)).await;
    assert_eq!(r["final_decision"], "no_go");
    assert_eq!(r["status"], "ok", "no_go is a decision, not a failure");

    let mut document = table(json!({
        "demand_analyst": [said("demand_analyst", "go", 0.8)],
        "finance_analyst": [said("finance_analyst", "go", 0.7)],
        "risk_analyst": [said("risk_analyst", "go", 0.9)],
        "legal_analyst": [said("legal_analyst", "go", 0.6)]
    }));
    document["budget"] = json!({"min_go_votes": 4});
    assert_eq!(
        result_of(document.clone()).await["stop_reason"],
        "max_rounds_reached"
    );
    document["budget"] = json!({"min_go_votes": 3});
    assert_eq!(result_of(document).await["final_decision"], "go");
}

/// A table where risk blocks in round 1 and cautions after, so round 2 is
/// needed; legal cautions whenever it speaks.
fn two_round_table() -> Value {
    table(json!({
        "demand_analyst": [said("demand_analyst", "go", 0.8)],
        "finance_analyst": [said("finance_analyst", "go", 0.7)],
        "risk_analyst": [said("risk_analyst", "block", 0.6), said("risk_analyst", "caution", 0.6)],
        "legal_analyst": [said("legal_analyst", "caution", 0.5)]
    }))
}

fn speakers_by_round(events: &[conclave::bus::Event]) -> Vec<Vec<String>> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                speakers, ..
            })) => Some(speakers.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_joining_flag_at_launch_seats_its_roles_after_the_sequence() {
    let (outcome, events) = run(
        scenario(&two_round_table()),
        LaunchOptions {
            flags: vec![("legal_analyst".into(), true)],
            ..LaunchOptions::default()
        },
    )
    .await;
    let everyone = [
        "demand_analyst",
        "finance_analyst",
        "risk_analyst",
        "legal_analyst",
    ];
    assert_eq!(
        speakers_by_round(&events),
        vec![everyone.to_vec(), everyone.to_vec()]
    );
    assert_eq!(
        outcome.result["team_summary"]["stances"][3]["agent"],
        "legal_analyst"
    );
    let EventKind::RunStarted(started) = &events[0].kind else {
        panic!("the first event starts the run")
    };
    assert!(started.flags[0].on, "the flag is on from the start");
}

#[tokio::test(start_paused = true)]
async fn a_flag_turned_on_live_takes_effect_from_the_next_round() {
    let (handle, mut sub) = common::launch(
        scenario(&two_round_table()),
        LaunchOptions {
            start_paused: true,
            ..LaunchOptions::default()
        },
    );
    let controller = handle.controller.clone();
    controller.step().unwrap();
    // Let round 1 run (three 100 ms calls) and halt before round 2.
    tokio::time::sleep(Duration::from_secs(5)).await;
    controller.set_flag("legal_analyst", true).unwrap();
    controller.resume().unwrap();
    let outcome = handle.finish().await.unwrap();
    let events = common::drain(&mut sub);
    assert_eq!(
        speakers_by_round(&events),
        vec![
            vec!["demand_analyst", "finance_analyst", "risk_analyst"],
            vec![
                "demand_analyst",
                "finance_analyst",
                "risk_analyst",
                "legal_analyst"
            ],
        ]
    );
    let flag_at = events
        .iter()
        .position(|e| matches!(&e.kind, EventKind::FlagChanged { name, on: true, .. } if name == "legal_analyst"))
        .expect("the change is published");
    let round_2_at = events
        .iter()
        .position(|e| {
            matches!(
                e.kind,
                EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                    round: 2,
                    ..
                }))
            )
        })
        .unwrap();
    assert!(flag_at < round_2_at);
    assert_eq!(outcome.result["final_decision"], "go_with_caution");
    assert_eq!(
        outcome.result["history"][1]["contributions"][3]["agent"],
        "legal_analyst"
    );
}

#[tokio::test(start_paused = true)]
async fn turning_off_a_sequence_role_live_denies_it_at_its_turn() {
    let mut document = two_round_table();
    document["team"]["sequence"] = json!(["demand_analyst", "legal_analyst", "risk_analyst"]);
    let (handle, mut sub) = common::launch(
        scenario(&document),
        LaunchOptions {
            flags: vec![("legal_analyst".into(), true)],
            start_paused: true,
            ..LaunchOptions::default()
        },
    );
    handle.controller.step().unwrap();
    tokio::time::sleep(Duration::from_secs(5)).await;
    handle.controller.set_flag("legal_analyst", false).unwrap();
    handle.controller.resume().unwrap();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["stop_reason"], "agent_denied:legal_analyst");
    assert_eq!(outcome.result["phase"], "round_2:legal_analyst");
    let events = common::drain(&mut sub);
    assert_eq!(
        speakers_by_round(&events)[1][1],
        "legal_analyst",
        "it keeps its seat"
    );
}

#[tokio::test(start_paused = true)]
async fn step_runs_exactly_one_round_and_the_run_clock_stops_while_paused() {
    let (handle, mut sub) = common::launch(
        scenario(&two_round_table()),
        LaunchOptions {
            start_paused: true,
            ..LaunchOptions::default()
        },
    );
    tokio::time::sleep(Duration::from_secs(30)).await;
    let waiting = common::drain(&mut sub);
    assert!(matches!(
        kinds(&waiting)[..],
        [
            EventKind::RunStarted(_),
            EventKind::Paused {
                gate: GatePoint::Round { round: 1 }
            }
        ]
    ));

    handle.controller.step().unwrap();
    tokio::time::sleep(Duration::from_secs(30)).await;
    let stepped = common::drain(&mut sub);
    let rounds: Vec<u32> = stepped
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
                round, ..
            })) => Some(round),
            _ => None,
        })
        .collect();
    assert_eq!(rounds, vec![1], "one step, one round");
    let last = stepped.last().unwrap();
    assert_eq!(
        last.kind,
        EventKind::Paused {
            gate: GatePoint::Round { round: 2 }
        }
    );
    assert_eq!(
        last.t_ms, 300,
        "three 100 ms calls; the paused minutes do not count"
    );
    assert!(!handle.is_finished());

    handle.controller.cancel();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["stop_reason"], "cancelled");
    assert_eq!(outcome.result["phase"], "round_2");
}

#[tokio::test(start_paused = true)]
async fn cancel_interrupts_a_model_call_in_flight() {
    let mut document = two_round_table();
    document["provider"]["latency_ms"] = json!(60_000);
    let (handle, _sub) = common::launch(scenario(&document), LaunchOptions::default());
    tokio::time::sleep(Duration::from_secs(1)).await;
    handle.controller.cancel();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["stop_reason"], "cancelled");
    assert_eq!(outcome.result["phase"], "round_1:demand_analyst");
}

#[tokio::test(start_paused = true)]
async fn the_goal_can_be_replaced_at_launch() {
    let (_, events) = run(
        scenario(&two_round_table()),
        LaunchOptions {
            goal: Some("Another goal".into()),
            ..LaunchOptions::default()
        },
    )
    .await;
    let EventKind::RunStarted(started) = &events[0].kind else {
        panic!("the first event starts the run")
    };
    assert_eq!(started.goal, "Another goal");
}
