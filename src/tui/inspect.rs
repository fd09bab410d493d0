//! What the details overlay shows for the selected tool of the resilience
//! pane: JSON built from the reducer's state. Reads, never changes. (A
//! pattern's pane says its own, through its unit.)

use super::state::ToolHealth;
use serde_json::{Value, json};

/// A tool of the resilience pane as JSON: its breaker, bulkhead and
/// traffic.
pub(super) fn tool_json(tool: &ToolHealth, now_ms: u64) -> Value {
    let breaker = tool.breaker.as_ref().map(|b| {
        json!({
            "state": b.state, "off": b.off, "consecutive_failures": b.failures,
            "fail_threshold": b.threshold, "open_for_ms": b.open_for_ms,
            "since_ms": b.since_ms, "probes_used": b.probes_used,
            "half_open_probes": b.probes, "times_opened": b.opened,
        })
    });
    let bulkhead = tool.bulkhead.as_ref().map(|b| {
        json!({
            "in_flight": b.in_flight, "max_in_flight": b.max, "queued": b.queued,
            "rejected": b.rejected, "max_wait_ms": b.max_wait_ms, "off": b.off,
        })
    });
    let mut json = json!({
        "tool": tool.name, "breaker": breaker, "bulkhead": bulkhead,
        "calls": tool.calls, "failures": tool.failures, "retries": tool.retries,
        "failed_fast": tool.rejected,
        "error_rate_10s": tool.error_rate(now_ms),
        "latency_p50_ms": tool.latency(50), "latency_p95_ms": tool.latency(95),
        "timeout_ms": tool.timeout_ms,
        "health": {"band": tool.rank.band.as_str(), "score": tool.rank.score},
    });
    // Only a model an endpoint refused a feature of has fallbacks.
    if tool.fallbacks > 0 {
        json["fallbacks"] = json!(tool.fallbacks);
    }
    // Only a tool whose answers streamed (the model's) has these.
    if let Some(streaming) = tool.streaming {
        json["first_token_ms"] = json!(streaming.first_token_ms);
        json["tokens_per_s"] = json!(streaming.tokens_per_s);
    }
    json
}
