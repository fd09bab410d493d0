//! The resilience gateway end to end through the engine, on the virtual
//! clock: the vendor outage with breakers on and off (the amplification
//! figure), a breaker switched off live, the slow dependency's bulkhead,
//! retries that are never multiplied, safe mode, and the same events for
//! the same run.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::{ops, plan_of, run, scenario, table, task};
use conclave::bus::{BreakerReason, BreakerState, Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::TaskEvent;
use serde_json::{Value, json};
use std::time::Duration;

fn flag(name: &str, on: bool) -> LaunchOptions {
    LaunchOptions {
        flags: vec![(name.to_string(), on)],
        ..LaunchOptions::default()
    }
}

/// Calls that reached `tool` (one `call_started` per attempt) at run times
/// in `[from, to)`.
fn calls_between(events: &[Event], tool: &str, from: u64, to: u64) -> usize {
    events
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::CallStarted { tool: t, .. } if t == tool)
                && (from..to).contains(&e.t_ms)
        })
        .count()
}

fn transitions(events: &[Event], tool: &str) -> Vec<(u64, BreakerState, BreakerReason)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::BreakerTransition {
                tool: t,
                to,
                reason,
                ..
            } if t == tool => Some((e.t_ms, *to, *reason)),
            _ => None,
        })
        .collect()
}

const VENDOR: &str = "enrichment_worker";

#[tokio::test(start_paused = true)]
async fn the_vendor_outage_amplifies_calls_without_breakers() {
    let scenario = common::shipped("vendor_outage.json");
    let [from, to] = scenario.workers[VENDOR].outage_ms[0];
    let (shielded, on) = run(scenario.clone(), flag("breakers", true)).await;
    let (_, off) = run(scenario.clone(), flag("breakers", false)).await;
    let with_breakers = calls_between(&on, VENDOR, from, to);
    let without = calls_between(&off, VENDOR, from, to);
    eprintln!(
        "vendor_outage: {VENDOR} calls during the outage ({from}–{to} ms): \
         {with_breakers} with breakers, {without} without ({:.1}×)",
        without as f64 / with_breakers as f64
    );
    assert!(with_breakers > 0, "the breaker needs failures to open");
    assert!(
        without >= 4 * with_breakers,
        "{without} without breakers vs {with_breakers} with"
    );

    // The breaker's story: opens, fails fast, probes, closes after the outage.
    let story = transitions(&on, VENDOR);
    assert_eq!(
        story.first().map(|t| (t.1, t.2)),
        Some((BreakerState::Open, BreakerReason::FailureThreshold))
    );
    assert!(story.iter().any(|t| t.1 == BreakerState::HalfOpen));
    let closed = story.last().unwrap();
    assert_eq!(
        (closed.1, closed.2),
        (BreakerState::Closed, BreakerReason::ProbesSucceeded)
    );
    assert!(closed.0 >= to, "closes only once the vendor is back");
    let fast = on
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::CallRejected { tool, .. } if tool == VENDOR))
        .count();
    assert!(fast >= 5, "{fast} calls failed fast");
    assert!(transitions(&off, VENDOR).is_empty(), "no breaker at work");

    // Safe mode: the skipped enrichment leaves a partial, successful run.
    let r = &shielded.result;
    assert_eq!(r["status"], "ok");
    assert_eq!(r["partial"], true);
    assert_eq!(r["degraded"], json!([VENDOR]));
    let skipped: Vec<&Value> = r["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["stop_reason"] == json!(format!("circuit_open:{VENDOR}")))
        .collect();
    assert!(skipped.len() >= 5);
    assert!(skipped.iter().all(|t| t["critical"] == false));
}

#[tokio::test(start_paused = true)]
async fn breakers_switched_off_live_let_the_retries_pile_up() {
    let scenario = common::shipped("vendor_outage.json");
    let (handle, mut sub) = common::launch(scenario, LaunchOptions::default());
    // The breaker opens at about 2.2 s; switch it off at 2.5 s.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    handle.controller.set_flag("breakers", false).unwrap();
    let outcome = handle.finish().await.unwrap();
    let events = common::drain(&mut sub);
    let switched = events
        .iter()
        .position(
            |e| matches!(&e.kind, EventKind::FlagChanged { name, on: false, .. } if name == "breakers"),
        )
        .expect("the flag changes at a gate");
    let before = &events[..switched];
    let after = &events[switched..];
    assert!(
        before
            .iter()
            .any(|e| matches!(&e.kind, EventKind::CallRejected { .. })),
        "the breaker was failing calls fast"
    );
    assert!(
        !after
            .iter()
            .any(|e| matches!(&e.kind, EventKind::CallRejected { .. })),
        "from the gate on, every call goes through"
    );
    let reset = transitions(after, VENDOR);
    assert_eq!(
        reset.first().map(|t| (t.1, t.2)),
        Some((BreakerState::Closed, BreakerReason::SwitchedOff))
    );
    let retries_after = after
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::RetryScheduled { tool, .. } if tool == VENDOR))
        .count();
    assert!(
        retries_after >= 4,
        "{retries_after} retries after the switch"
    );
    assert_eq!(
        outcome.result.get("partial"),
        Some(&json!(true)),
        "skipped before"
    );
}

#[tokio::test(start_paused = true)]
async fn the_slow_dependency_fills_its_bulkhead_while_the_others_keep_going() {
    let scenario = common::shipped("slow_dependency.json");
    let (outcome, on) = run(scenario.clone(), LaunchOptions::default()).await;
    let (unshielded, off) = run(scenario, flag("bulkheads", false)).await;
    let search_occupancy: Vec<(u32, u32, u32)> = on
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Bulkhead {
                tool,
                in_flight,
                max,
                queued,
            } if tool == "search_worker" => Some((*in_flight, *max, *queued)),
            _ => None,
        })
        .collect();
    assert!(search_occupancy.iter().all(|(i, m, _)| i <= m));
    assert!(search_occupancy.contains(&(2, 2, 1)), "full, one waiting");
    let refused = on
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::CallRejected { reason, .. }
                if reason.to_string() == "bulkhead_full:search_worker")
        })
        .count();
    assert!(refused >= 2);

    let fast_done = |events: &[Event]| {
        events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished { worker, .. })) if worker != "search_worker"))
            .map(|e| e.t_ms)
            .max()
            .unwrap()
    };
    let (shielded_ms, unshielded_ms) = (fast_done(&on), fast_done(&off));
    eprintln!(
        "slow_dependency: catalog and pricing done at {shielded_ms} ms with bulkheads, \
         {unshielded_ms} ms without"
    );
    assert!(shielded_ms + 1000 < unshielded_ms);
    assert_eq!(outcome.result["partial"], true);
    assert_eq!(outcome.result["degraded"], json!(["search_worker"]));
    assert!(unshielded.result.get("partial").is_none());
    for r in [&outcome.result, &unshielded.result] {
        assert_eq!(r["stop_reason"], "success");
    }
}

#[tokio::test(start_paused = true)]
async fn one_failing_call_makes_exactly_max_attempts_attempts_at_its_tool() {
    // The orchestrator would retry a timeout 3 times; the section says 2
    // attempts in all, and 2 it is, not 4 × 2.
    let mut document = ops(plan_of(vec![
        task("t1", "sales_worker", false),
        task("t2", "payments_worker", false),
    ]));
    document["workers"]["payments_worker"]["outage_ms"] = json!([[0, 600000]]);
    document["workers"]["payments_worker"]["hang"] = json!(true);
    document["budget"] = json!({"max_retries_per_task": 3, "max_seconds": 60});
    document["resilience"] =
        json!({"retries": {"max_attempts": 2, "backoff_ms": [250], "jitter": "equal"}});
    let (outcome, events) = run(scenario(&document), LaunchOptions::default()).await;
    let payments = calls_between(&events, "payments_worker", 0, u64::MAX);
    assert_eq!(payments, 2);
    assert_eq!(outcome.result["trace"][1]["attempts_used"], 2);
    assert_eq!(outcome.result["trace"][1]["stop_reason"], "task_timeout");

    // The model is a tool too: a role whose calls time out is asked
    // exactly max_attempts times before the run stops.
    let mut document = table(json!({
        "demand_analyst": {"$fault": "timeout"},
        "finance_analyst": common::said("finance_analyst", "go", 0.8),
        "risk_analyst": common::said("risk_analyst", "go", 0.8),
        "legal_analyst": common::said("legal_analyst", "go", 0.8)
    }));
    document["resilience"] =
        json!({"retries": {"max_attempts": 3, "backoff_ms": {"base_ms": 100, "max_ms": 400}}});
    let (outcome, events) = run(scenario(&document), LaunchOptions::default()).await;
    assert_eq!(outcome.result["stop_reason"], "llm_timeout");
    assert_eq!(calls_between(&events, "model", 0, u64::MAX), 3);
}

#[tokio::test(start_paused = true)]
async fn safe_mode_without_partial_results_stops_the_run_early() {
    let mut document: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/vendor_outage.json"
        ))
        .unwrap(),
    )
    .unwrap();
    document["resilience"]["safe_mode"]["allow_partial"] = json!(false);
    let (outcome, _) = run(scenario(&document), LaunchOptions::default()).await;
    let r = &outcome.result;
    assert_eq!(r["status"], "stopped");
    assert_eq!(r["stop_reason"], format!("circuit_open:{VENDOR}"));
    assert_eq!(r["phase"], "dispatch");
    assert!(r.get("partial").is_none());
    // The tasks that finished before the stop keep their trace and
    // history, plan order, the call that stopped the run last.
    let traced: Vec<(&str, &str)> = r["trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["task_id"].as_str().unwrap(),
                t["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        traced,
        [
            ("us-orders", "done"),
            ("us-enrich", "done"),
            ("ca-orders", "done"),
            ("ca-enrich", "done"),
            ("mx-enrich", "failed"),
            ("br-enrich", "failed"),
        ]
    );
    assert_eq!(
        r["trace"][5]["stop_reason"],
        format!("circuit_open:{VENDOR}")
    );
    let history = r["history"].as_array().unwrap();
    assert_eq!(history.len(), 6);
    assert!(history[0]["observation"].is_object(), "observations kept");
}

#[tokio::test(start_paused = true)]
async fn the_same_outage_publishes_the_same_events_and_they_read_back() {
    let scenario = common::shipped("vendor_outage.json");
    let mut streams = Vec::new();
    for _ in 0..2 {
        let (_, events) = run(scenario.clone(), LaunchOptions::default()).await;
        for event in &events {
            let value = serde_json::to_value(event).unwrap();
            assert_eq!(&serde_json::from_value::<Event>(value).unwrap(), event);
        }
        let comparable: Vec<Value> = events
            .iter()
            .map(|e| {
                let mut value = serde_json::to_value(e).unwrap();
                value.as_object_mut().unwrap().remove("started_at_ms");
                value
            })
            .collect();
        streams.push(comparable);
    }
    assert_eq!(streams[0], streams[1]);
}
