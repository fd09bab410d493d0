//! Durations that the loader refuses, given to the engine anyway (a
//! scenario built in code skips the loader): every pattern still runs to an
//! end without a panic, each conversion held to the one-week cap, on the
//! paused clock.

use crate::common;

use conclave::duration;
use conclave::scenario::{self, Scenario};
use serde_json::{Value, json};
use std::sync::Arc;

/// `document` with every duration it may hold set to `seconds` and `ms`.
fn with_durations(mut document: Value, seconds: f64, ms: u64) -> Value {
    let map = document.as_object_mut().unwrap();
    map["provider"]["timeout_seconds"] = json!(seconds);
    map["provider"]["latency_ms"] = json!({"min": 0, "max": ms});
    let budget = map.entry("budget").or_insert_with(|| json!({}));
    budget["max_seconds"] = json!(seconds);
    budget["task_timeout_seconds"] = json!(seconds);
    let limits = map.entry("limits").or_insert_with(|| json!({}));
    limits["node_timeout_ms"] = json!(ms);
    limits["member_timeout_ms"] = json!(ms);
    map.insert(
        "resilience".into(),
        json!({
            "timeouts_ms": {"default": ms},
            "retries": {"max_attempts": 2, "backoff_ms": [ms], "jitter": "none"},
            "circuit_breaker": {"fail_threshold": 1, "open_for_ms": ms},
            "bulkhead": {"max_in_flight": 1, "max_wait_ms": ms}
        }),
    );
    for section in ["workers", "tools"] {
        if let Some(Value::Object(specs)) = map.get_mut(section) {
            for spec in specs.values_mut() {
                spec["latency_ms"] = json!(ms);
                spec["outage_ms"] = json!([[0, ms]]);
            }
        }
    }
    document
}

async fn runs_to_an_end(seconds: f64, ms: u64) {
    for (name, document) in common::files::shipped_documents() {
        let document = with_durations(document, seconds, ms);
        // The loader refuses these; the engine must hold them all the same.
        assert!(
            scenario::parse(&document.to_string(), &name).is_err(),
            "{name}: the loader refuses {seconds} s and {ms} ms"
        );
        let unchecked: Scenario = serde_json::from_value(document).unwrap();
        let started = tokio::time::Instant::now();
        let outcome = common::run_default(Arc::new(unchecked)).await;
        let took = started.elapsed();
        // Every wait held to the cap: the run ends within weeks of run
        // time, not ages, with a result that says how it stopped.
        assert!(
            took <= duration::MAX * 64,
            "{name}: every wait at most a week, not {took:?}"
        );
        let result = serde_json::to_value(&*outcome.result).unwrap();
        assert_eq!(
            result["stop_reason"],
            json!(outcome.stop_reason.to_string()),
            "{name}: {result}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn durations_far_past_the_cap_run_without_a_panic() {
    runs_to_an_end(1e308, u64::MAX).await;
}

#[tokio::test(start_paused = true)]
async fn negative_seconds_run_without_a_panic() {
    runs_to_an_end(-1.0, duration::MAX.as_millis() as u64 + 1).await;
}

/// The clamp keeps a run's time within the cap: a run whose every call
/// may take the longest latency there is ends after a handful of calls of
/// a week at most each, not in 584 million years.
#[tokio::test(start_paused = true)]
async fn a_run_of_clamped_durations_ends_within_weeks_of_run_time() {
    let (_, document) = common::files::shipped_documents()
        .into_iter()
        .find(|(name, _)| name == "checkout_v2_launch.json")
        .unwrap();
    let document = with_durations(document, 1e308, u64::MAX);
    let unchecked: Scenario = serde_json::from_value(document).unwrap();
    let started = tokio::time::Instant::now();
    common::run_default(Arc::new(unchecked)).await;
    let took = started.elapsed();
    assert!(
        took <= duration::MAX * 12,
        "a handful of calls of at most a week each, not {took:?}"
    );
}
