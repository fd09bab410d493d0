//! The swarm end to end through the engine, on the paused clock: each of
//! 002's limits at its boundary, the node timeout's cut at the deadline,
//! the budgets' order, faults, tools through the gateway, flags, the gate
//! before each turn, and identical events for identical runs.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::{kinds, run, run_default, scenario};
use conclave::bus::{Event, EventKind, GatePoint};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::TeamEvent;
use conclave::patterns::events::{HandoffRejection, TurnOutcome};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// A swarm of `agents` (the first is the entry), 100 ms a turn unless a
/// turn says otherwise.
fn swarm(agents: &[&str], turns: Value, limits: Value) -> Value {
    let declared: serde_json::Map<String, Value> =
        agents.iter().map(|a| (a.to_string(), json!({}))).collect();
    json!({
        "name": "t", "pattern": "swarm", "goal": "Help.", "context": {},
        "entry": agents[0], "agents": declared, "limits": limits,
        "provider": {"kind": "sim", "latency_ms": 100, "turns": turns}
    })
}

async fn result_of(document: Value) -> Value {
    Arc::unwrap_or_clone(run_default(scenario(&document)).await.result).into_value()
}

fn handoffs(r: &Value) -> Vec<(String, String, bool, Option<String>)> {
    r["handoffs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["from"].as_str().unwrap().to_string(),
                h["to"].as_str().unwrap().to_string(),
                h["accepted"].as_bool().unwrap(),
                h.get("reason").and_then(Value::as_str).map(String::from),
            )
        })
        .collect()
}

fn reasons(r: &Value) -> Vec<String> {
    handoffs(r)
        .into_iter()
        .map(|(_, _, ok, reason)| reason.unwrap_or_else(|| if ok { "ok" } else { "?" }.into()))
        .collect()
}

/// Every refusal event: (reason, count, window).
fn refusals(events: &[Event]) -> Vec<(HandoffRejection, u64, Vec<String>)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffRejected {
                reason,
                handoffs,
                window,
                ..
            })) => Some((reason.clone(), *handoffs, window.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_support_desk_hands_over_twice_and_refunds_replies() {
    let (outcome, events) = run(
        common::shipped("support_swarm.json"),
        LaunchOptions::default(),
    )
    .await;
    let r = &outcome.result;
    assert_eq!(r["status"], "ok");
    assert_eq!(r["final_agent"], "refunds");
    assert_eq!(r["chain"], json!(["triage", "billing", "refunds"]));
    assert_eq!(r["llm_calls"], 5);
    assert!(r["answer"].as_str().unwrap().contains("R-88120"));
    assert_eq!(
        r["history"][2]["observation"]["result"]["duplicate"], true,
        "billing read the invoice through the gateway"
    );
    let tools: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallFinished { tool, .. } if tool != "model" => Some(tool.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(tools, ["invoice_lookup", "refund_api"]);
    let deadlines: Vec<Option<u64>> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                deadline_ms,
                ..
            })) => Some(*deadline_ms),
            _ => None,
        })
        .collect();
    // Accepted at 400 ms and at 1550 ms (billing's 500 ms turn, the 350 ms
    // lookup, its 300 ms turn); 5 s each from there.
    assert_eq!(deadlines, [Some(5400), Some(6550)]);
}

#[tokio::test(start_paused = true)]
async fn a_gated_off_agent_refuses_the_transfer_and_counts_nothing() {
    let (outcome, events) = run(
        common::shipped("support_swarm.json"),
        LaunchOptions {
            flags: vec![("refunds_desk".into(), false)],
            ..LaunchOptions::default()
        },
    )
    .await;
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["final_agent"], "billing", "billing answered itself");
    assert_eq!(reasons(r), ["ok", "agent_denied:refunds"]);
    assert_eq!(
        refusals(&events),
        [(
            HandoffRejection::AgentDenied {
                agent: "refunds".into()
            },
            1,
            vec!["billing".into()]
        )],
        "the count and the window stay as the accepted transfer left them"
    );
}

#[tokio::test(start_paused = true)]
async fn exactly_max_handoffs_pass_and_every_later_one_is_refused() {
    let doc = swarm(
        &["a", "b", "c"],
        json!({"a": {"transfer_to": "b"}, "b": {"transfer_to": "c"}, "c": {"transfer_to": "a"}}),
        json!({"max_handoffs": 3, "repetitive_handoff_window": 0}),
    );
    let mut doc = doc;
    doc["budget"] = json!({"max_llm_calls": 7});
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "max_llm_calls");
    assert_eq!(r["llm_calls"], 7);
    assert_eq!(r["chain"], json!(["a", "b", "c", "a"]));
    assert_eq!(r["final_agent"], "a", "a keeps control after the refusals");
    assert_eq!(
        reasons(r),
        [
            "ok",
            "ok",
            "ok",
            "max_handoffs_exceeded",
            "max_handoffs_exceeded",
            "max_handoffs_exceeded",
            "max_handoffs_exceeded"
        ]
    );
    let counts: Vec<u64> = refusals(&events).iter().map(|(_, n, _)| *n).collect();
    assert_eq!(counts, [4, 5, 6, 7], "refused attempts still count");
}

#[tokio::test(start_paused = true)]
async fn the_window_refuses_only_once_full_and_keeps_refused_targets() {
    // Window 4, at least 3 names: a↔b passes three times; the fourth
    // transfer fills the window with two names and is refused, and so is
    // the fifth; then b hands to c, which brings a third name.
    let doc = swarm(
        &["a", "b", "c"],
        json!({
            "a": {"transfer_to": "b"},
            "b": [{"transfer_to": "a"}, {"transfer_to": "a"}, {"transfer_to": "a"}, {"transfer_to": "c"}],
            "c": {"reply": "done"}
        }),
        json!({"max_handoffs": 0, "repetitive_handoff_window": 4, "repetitive_handoff_min_unique": 3}),
    );
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["chain"], json!(["a", "b", "a", "b", "c"]));
    assert_eq!(
        reasons(r),
        [
            "ok",
            "ok",
            "ok",
            "repetitive_handoff",
            "repetitive_handoff",
            "ok"
        ]
    );
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        refusals(&events),
        [
            (
                HandoffRejection::RepetitiveHandoff,
                4,
                s(&["b", "a", "b", "a"])
            ),
            (
                HandoffRejection::RepetitiveHandoff,
                5,
                s(&["a", "b", "a", "a"])
            ),
        ],
        "each refused target joined the window"
    );
    // The accepted transfer to c sees [b, a, a, c]: three names.
    let last_window = events
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                window, ..
            })) => Some(window.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(last_window, s(&["b", "a", "a", "c"]));
}

#[tokio::test(start_paused = true)]
async fn a_max_handoffs_refusal_never_joins_the_window() {
    let doc = swarm(
        &["a", "b"],
        json!({"a": {"transfer_to": "b"}, "b": [{"transfer_to": "a"}, {"reply": "done"}]}),
        json!({"max_handoffs": 1, "repetitive_handoff_window": 2, "repetitive_handoff_min_unique": 2}),
    );
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    assert_eq!(outcome.result["stop_reason"], "success");
    assert_eq!(outcome.result["final_agent"], "b");
    assert_eq!(
        refusals(&events),
        [(HandoffRejection::MaxHandoffsExceeded, 2, vec!["b".into()])]
    );
}

#[tokio::test(start_paused = true)]
async fn unknown_and_self_transfers_count_toward_nothing() {
    let doc = swarm(
        &["a", "b"],
        json!({
            "a": [{"transfer_to": "ghost"}, {"transfer_to": "a"}, {"transfer_to": "b"}],
            "b": {"reply": "done"}
        }),
        json!({"max_handoffs": 1, "repetitive_handoff_window": 1, "repetitive_handoff_min_unique": 1}),
    );
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["chain"], json!(["a", "b"]), "the one handoff allowed");
    assert_eq!(reasons(r), ["unknown_agent:ghost", "self_transfer", "ok"]);
    let counts: Vec<(u64, usize)> = refusals(&events)
        .iter()
        .map(|(_, n, w)| (*n, w.len()))
        .collect();
    assert_eq!(counts, [(0, 0), (0, 0)]);
}

#[tokio::test(start_paused = true)]
async fn the_node_timeout_cuts_a_turn_at_the_deadline() {
    // The entry has no bound: its 3 s turn is fine. b is accepted at 3 s
    // with 1 s to go; its 1.5 s turn is cut at 4 s.
    let doc = swarm(
        &["a", "b"],
        json!({"a": {"transfer_to": "b", "latency_ms": 3000}, "b": {"reply": "late", "latency_ms": 1500}}),
        json!({"node_timeout_ms": 1000}),
    );
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "node_timeout:b");
    assert_eq!(r["status"], "stopped");
    assert_eq!(r["final_agent"], "b");
    assert_eq!(r["llm_calls"], 2, "the cut-off call counts");
    assert!(r.get("answer").is_none());
    let cut = events
        .iter()
        .find(|e| {
            matches!(
                &e.kind,
                EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnFinished {
                    outcome: TurnOutcome::Cut,
                    ..
                }))
            )
        })
        .unwrap();
    assert_eq!(
        cut.t_ms, 4000,
        "cut at the deadline, not when the call ends"
    );
    let finished = events.last().unwrap();
    assert_eq!(finished.t_ms, 4000);
}

#[tokio::test(start_paused = true)]
async fn a_turn_ending_exactly_at_the_deadline_is_in_time() {
    let doc = swarm(
        &["a", "b"],
        json!({
            "a": {"transfer_to": "b", "latency_ms": 200},
            "b": [{"call": "lookup", "latency_ms": 300}, {"reply": "just in time", "latency_ms": 500}]
        }),
        json!({"node_timeout_ms": 1000}),
    );
    let mut doc = doc;
    doc["tools"] = json!({"lookup": {"latency_ms": 200}});
    let r = result_of(doc.clone()).await;
    assert_eq!(r["stop_reason"], "success", "300 + 200 + 500 ms = 1 s");
    assert_eq!(r["answer"], "just in time");

    // One millisecond more, in the tool call, and the reply is cut.
    doc["tools"] = json!({"lookup": {"latency_ms": 201}});
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    assert_eq!(outcome.result["stop_reason"], "node_timeout:b");
    assert_eq!(events.last().unwrap().t_ms, 1200);

    // And a tool call that runs past the deadline is cut there too.
    doc["tools"] = json!({"lookup": {"latency_ms": 5000}});
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    assert_eq!(outcome.result["stop_reason"], "node_timeout:b");
    assert_eq!(outcome.result["llm_calls"], 2);
    assert_eq!(events.last().unwrap().t_ms, 1200);
}

#[tokio::test(start_paused = true)]
async fn max_seconds_is_checked_before_max_llm_calls_and_both_before_each_call() {
    let pingpong = |max_llm_calls: u32, max_seconds: f64| {
        let mut doc = swarm(
            &["a", "b"],
            json!({"a": {"transfer_to": "b", "latency_ms": 1000}, "b": {"transfer_to": "a", "latency_ms": 1000}}),
            json!({"max_handoffs": 0, "repetitive_handoff_window": 0}),
        );
        doc["budget"] = json!({"max_llm_calls": max_llm_calls, "max_seconds": max_seconds});
        doc
    };
    // Three calls end at 3 s; the fourth would exceed both budgets: time
    // wins.
    let r = result_of(pingpong(3, 2.5)).await;
    assert_eq!(
        (r["stop_reason"].as_str(), r["llm_calls"].as_u64()),
        (Some("max_seconds"), Some(3))
    );
    let r = result_of(pingpong(3, 10.0)).await;
    assert_eq!(
        (r["stop_reason"].as_str(), r["llm_calls"].as_u64()),
        (Some("max_llm_calls"), Some(3))
    );
    // Exactly max_seconds gone is not more than max_seconds: the fourth
    // call starts at 3 s, the fifth is refused.
    let r = result_of(pingpong(9, 3.0)).await;
    assert_eq!(
        (r["stop_reason"].as_str(), r["llm_calls"].as_u64()),
        (Some("max_seconds"), Some(4))
    );
    assert_eq!(r["final_agent"], "a", "the agent whose turn was refused");
}

#[tokio::test(start_paused = true)]
async fn faults_and_odd_outputs_end_the_run_as_they_should() {
    let one = |output: Value| swarm(&["a"], json!({"a": output}), json!({}));
    for (output, reason) in [
        (json!({"$fault": "timeout"}), "llm_timeout"),
        (json!({"$fault": "empty"}), "llm_empty"),
        (json!({"reply": "  "}), "llm_empty"),
        (json!("{\"reply\": 7}"), "invalid_turn"),
        (json!("Plain text is a reply."), "success"),
    ] {
        let r = result_of(one(output.clone())).await;
        assert_eq!(r["stop_reason"], reason, "{output}");
        assert_eq!(r["llm_calls"], 1);
    }
    let r = result_of(one(json!("  Plain text.  "))).await;
    assert_eq!(r["answer"], "Plain text.");
}

#[tokio::test(start_paused = true)]
async fn a_failing_tool_answers_with_its_error_and_the_agent_goes_on() {
    let mut doc = swarm(
        &["a"],
        json!({"a": [{"call": "flaky", "args": {"id": 1}}, {"call": "nowhere"}, {"reply": "worked around it"}]}),
        json!({}),
    );
    doc["tools"] = json!({"flaky": {"latency_ms": 50, "fail": [1]}});
    let r = result_of(doc).await;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(
        r["history"][1]["observation"],
        json!({"error": "worker_error:flaky"})
    );
    assert_eq!(
        r["history"][3]["observation"],
        json!({"error": "worker_missing:nowhere"})
    );
    assert_eq!(r["llm_calls"], 3, "tool calls are no model calls");
}

#[tokio::test(start_paused = true)]
async fn the_run_waits_at_the_gate_before_each_turn() {
    let (handle, mut sub) = common::launch(
        common::shipped("pingpong_swarm.json"),
        LaunchOptions {
            start_paused: true,
            ..LaunchOptions::default()
        },
    );
    tokio::time::sleep(Duration::from_secs(30)).await;
    let held = common::drain(&mut sub);
    assert!(matches!(
        kinds(&held).last(),
        Some(EventKind::Paused {
            gate: GatePoint::Turn { turn: 1, .. }
        })
    ));
    handle.controller.step().unwrap();
    tokio::time::sleep(Duration::from_secs(30)).await;
    let stepped = common::drain(&mut sub);
    let turns = stepped
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted { .. }))
            )
        })
        .count();
    assert_eq!(turns, 1, "a step lets exactly one turn through");
    assert!(matches!(
        kinds(&stepped).last(),
        Some(EventKind::Paused {
            gate: GatePoint::Turn { turn: 2, agent }
        }) if agent == "critic"
    ));
    handle.controller.resume().unwrap();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["stop_reason"], "success");
}

#[tokio::test(start_paused = true)]
async fn a_flag_turned_off_live_refuses_the_next_transfer() {
    let (handle, mut sub) = common::launch(
        common::shipped("support_swarm.json"),
        LaunchOptions {
            start_paused: true,
            ..LaunchOptions::default()
        },
    );
    handle.controller.set_flag("refunds_desk", false).unwrap();
    handle.controller.resume().unwrap();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["final_agent"], "billing");
    let events = common::drain(&mut sub);
    assert!(events.iter().any(|e| matches!(&e.kind,
        EventKind::FlagChanged { name, on: false, .. } if name == "refunds_desk")));
}

#[tokio::test(start_paused = true)]
async fn a_gated_off_entry_cannot_take_its_turn() {
    let mut doc = swarm(&["a", "b"], json!({"a": {"reply": "hi"}}), json!({}));
    doc["flags"] = json!({"a_on": {"default": false, "agents": ["a"]}});
    let r = result_of(doc).await;
    assert_eq!(r["stop_reason"], "agent_denied:a");
    assert_eq!(r["llm_calls"], 0);
}

#[tokio::test(start_paused = true)]
async fn cancelling_stops_the_run_in_its_call() {
    let (handle, _sub) = common::launch(
        common::shipped("support_swarm.json"),
        LaunchOptions::default(),
    );
    tokio::time::sleep(Duration::from_millis(1000)).await;
    handle.controller.cancel();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["stop_reason"], "cancelled");
    assert_eq!(outcome.result["final_agent"], "billing");
}

#[tokio::test(start_paused = true)]
async fn the_same_run_publishes_the_same_events() {
    let once = || async {
        let (outcome, events) = run(
            common::shipped("support_swarm.json"),
            LaunchOptions {
                seed: Some(99),
                ..LaunchOptions::default()
            },
        )
        .await;
        let kinds: Vec<(u64, u64, String)> = events
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::RunStarted(_)))
            .map(|e| (e.seq, e.t_ms, serde_json::to_string(&e.kind).unwrap()))
            .collect();
        (outcome.result, kinds)
    };
    let (a, b) = (once().await, once().await);
    assert_eq!(a, b);
    assert!(a.1.len() > 30);
}
