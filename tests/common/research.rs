//! Research scenarios to vary in tests: 004's example as shipped, the
//! same with fixed latencies, and plans.

use super::run as run_scenario;
use conclave::bus::Event;
use conclave::engine::LaunchOptions;
use serde_json::{Value, json};

/// The shipped payments scenario (004's example) as JSON, to vary.
pub fn payments() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/payments_incident_research.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The payments scenario with fixed latencies: model 500 ms, search
/// 900 ms, reads 1200 ms then 800 ms, extracts 300 ms, verify 500 ms.
pub fn timed() -> Value {
    let mut doc = payments();
    doc["provider"]["latency_ms"] = json!(500);
    doc["sources"]["tools"] = json!({
        "search_sources": {"latency_ms": 900},
        "read_source": {"latency_ms": [1200, 800]},
        "extract_notes": {"latency_ms": 300},
        "verify_notes": {"latency_ms": 500}
    });
    doc
}

/// The five canonical steps, searching for `query`.
pub fn plan(query: Value) -> Value {
    json!({"steps": [
        {"id": "r1", "action": "search_sources", "args": {"query": query}},
        {"id": "r2", "action": "dedupe_urls", "args": {}},
        {"id": "r3", "action": "read_extract_notes", "args": {}},
        {"id": "r4", "action": "verify_notes", "args": {}},
        {"id": "r5", "action": "synthesize_answer", "args": {}}
    ]})
}

/// Run a scenario document; its result and every event.
pub async fn run(doc: &Value) -> (Value, Vec<Event>) {
    let (outcome, events) = run_scenario(super::scenario(doc), LaunchOptions::default()).await;
    (outcome.result.value().clone(), events)
}

pub async fn result_of(doc: &Value) -> Value {
    run(doc).await.0
}

pub const OFFICIAL: &str = "https://official-status.example.com/incidents/payments-2026-03-07";
pub const VENDOR: &str = "https://vendor.example.com/policies/enterprise-sla";
