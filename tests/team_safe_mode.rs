//! Safe mode and the default tool timeout in swarm and coordinator runs,
//! end to end through the engine on the paused clock: a tool whose breaker
//! opens stops the run without partial results and is skipped (the result
//! partial, the tool degraded) with them; a tool that never answers times
//! out at 10 s when the scenario sets no timeout.

use crate::common;

use common::{run, run_default, scenario};
use conclave::bus::{CallOutcome, EventKind};
use conclave::engine::LaunchOptions;
use serde_json::{Value, json};
use std::time::Duration;

/// A one-agent swarm that calls `vendor` three times, then replies; the
/// vendor fails its first two calls and its breaker opens after two
/// failures, so the third call fails fast.
fn swarm_with_failing_vendor(allow_partial: bool) -> Value {
    json!({
        "name": "t", "pattern": "swarm", "goal": "Help.", "context": {},
        "entry": "a", "agents": {"a": {}},
        "tools": {"vendor": {"latency_ms": 50, "fail": [1, 2]}},
        "resilience": {
            "retries": {"max_attempts": 1},
            "circuit_breaker": {"fail_threshold": 2, "open_for_ms": 60000},
            "safe_mode": {"enabled": true, "allow_partial": allow_partial}
        },
        "provider": {"kind": "sim", "latency_ms": 100, "turns": {"a": [
            {"call": "vendor", "args": {"id": 1}},
            {"call": "vendor", "args": {"id": 2}},
            {"call": "vendor", "args": {"id": 3}},
            {"reply": "done without the vendor"}
        ]}}
    })
}

#[tokio::test(start_paused = true)]
async fn a_swarm_whose_breaker_opens_stops_without_partial_results() {
    let r = run_default(scenario(&swarm_with_failing_vendor(false)))
        .await
        .result;
    assert_eq!(r["status"], "stopped");
    assert_eq!(r["stop_reason"], "circuit_open:vendor");
    assert_eq!(r["llm_calls"], 3, "no turn after the stop");
    assert!(r.get("partial").is_none());
    assert!(r.get("degraded").is_none());
    // What happened before the stop is kept.
    assert_eq!(r["trace"].as_array().unwrap().len(), 3);
    assert_eq!(
        r["history"][1]["observation"],
        json!({"error": "worker_error:vendor"})
    );
}

#[tokio::test(start_paused = true)]
async fn a_swarm_whose_breaker_opens_goes_on_partial_with_partial_results() {
    let outcome = run_default(scenario(&swarm_with_failing_vendor(true))).await;
    let r = &outcome.result;
    assert_eq!(r["status"], "ok");
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["answer"], "done without the vendor");
    assert_eq!(r["partial"], true);
    assert_eq!(r["degraded"], json!(["vendor"]));
    assert_eq!(
        r["history"][5]["observation"],
        json!({"error": "circuit_open:vendor"})
    );
}

#[tokio::test(start_paused = true)]
async fn without_safe_mode_a_swarm_result_is_as_before() {
    let mut document = swarm_with_failing_vendor(false);
    document["resilience"]
        .as_object_mut()
        .unwrap()
        .remove("safe_mode");
    let r = run_default(scenario(&document)).await.result;
    assert_eq!(r["stop_reason"], "success");
    assert!(r.get("partial").is_none());
    assert!(r.get("degraded").is_none());
}

/// A coordinator whose member `m1` calls `vendor` three times.
fn desk_with_failing_vendor(allow_partial: bool) -> Value {
    json!({
        "name": "t", "pattern": "coordinator", "goal": "Decide.", "context": {},
        "entry": "lead", "agents": {"lead": {}, "m1": {}, "m2": {}},
        "tools": {"vendor": {"latency_ms": 50, "fail": [1, 2]}},
        "resilience": {
            "retries": {"max_attempts": 1},
            "circuit_breaker": {"fail_threshold": 2, "open_for_ms": 60000},
            "safe_mode": {"enabled": true, "allow_partial": allow_partial}
        },
        "provider": {"kind": "sim", "latency_ms": 100, "turns": {
            "lead": [{"call_members": [{"member": "m1", "task": "look it up"},
                                       {"member": "m2", "task": "think"}]},
                     {"reply": "decided"}],
            "m1": [{"call": "vendor", "args": {"id": 1}},
                   {"call": "vendor", "args": {"id": 2}},
                   {"call": "vendor", "args": {"id": 3}},
                   {"reply": "no vendor data"}],
            "m2": {"reply": "fine"}
        }}
    })
}

#[tokio::test(start_paused = true)]
async fn a_coordinator_whose_member_tool_breaker_opens_stops_without_partial_results() {
    let r = run_default(scenario(&desk_with_failing_vendor(false)))
        .await
        .result;
    assert_eq!(r["status"], "stopped");
    assert_eq!(r["stop_reason"], "circuit_open:vendor");
    assert!(r.get("partial").is_none());
    let m1 = &r["member_calls"][0];
    assert_eq!(m1["member"], "m1");
    assert_eq!(m1["stop_reason"], "circuit_open:vendor");
    assert_eq!(r["member_calls"][1]["reply"], "fine");
}

#[tokio::test(start_paused = true)]
async fn a_coordinator_whose_member_tool_breaker_opens_goes_on_with_partial_results() {
    let r = run_default(scenario(&desk_with_failing_vendor(true)))
        .await
        .result;
    assert_eq!(r["status"], "ok");
    assert_eq!(r["answer"], "decided");
    assert_eq!(r["member_calls"][0]["reply"], "no vendor data");
    assert_eq!(r["partial"], true);
    assert_eq!(r["degraded"], json!(["vendor"]));
}

#[tokio::test(start_paused = true)]
async fn a_swarm_tool_that_never_answers_times_out_at_10_s_without_a_resilience_section() {
    let document = json!({
        "name": "t", "pattern": "swarm", "goal": "Help.", "context": {},
        "entry": "a", "agents": {"a": {}},
        "tools": {"stuck": {"outage_ms": [[0, 3600000]], "hang": true}},
        "provider": {"kind": "sim", "latency_ms": 100, "turns": {"a": [
            {"call": "stuck", "args": {}},
            {"reply": "gave up on it"}
        ]}}
    });
    // Without the default the call would wait for ever: fail, not hang.
    let (outcome, events) = tokio::time::timeout(
        Duration::from_secs(600),
        run(scenario(&document), LaunchOptions::default()),
    )
    .await
    .expect("the tool call times out on its own");
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["answer"], "gave up on it");
    assert_eq!(
        r["history"][1]["observation"],
        json!({"error": "task_timeout"})
    );
    let finished: Vec<(u64, u64)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallFinished {
                tool,
                latency_ms,
                outcome: CallOutcome::Timeout,
                ..
            } if tool == "stuck" => Some((e.t_ms, *latency_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(finished, [(100 + 10_000, 10_000)], "cut at 10 s, once");
}
