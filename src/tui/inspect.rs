//! What the details overlay shows for the selected task of the workers
//! pane, note of the research pane or tool of the resilience pane: JSON
//! built from the reducer's state. Reads, never changes.

use super::state::{NoteView, TaskView, ToolHealth};
use serde_json::{Value, json};

/// A task of the workers pane as JSON, with its attempts.
pub(super) fn task_json(task: &TaskView) -> Value {
    let attempts: Vec<Value> = task
        .attempts
        .iter()
        .map(|a| {
            json!({
                "attempt": a.attempt, "started_ms": a.started_ms, "timeout_ms": a.timeout_ms,
                "outcome": a.outcome, "elapsed_ms": a.elapsed_ms,
                "reason": a.reason.as_ref().map(ToString::to_string),
            })
        })
        .collect();
    json!({
        "task": task.id, "worker": task.worker, "critical": task.critical,
        "max_attempts": task.max_attempts, "state": format!("{:?}", task.state),
        "attempts": attempts, "result": task.result,
    })
}

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
    json!({
        "tool": tool.name, "breaker": breaker, "bulkhead": bulkhead,
        "calls": tool.calls, "failures": tool.failures, "retries": tool.retries,
        "failed_fast": tool.rejected,
        "error_rate_10s": tool.error_rate(now_ms),
        "latency_p50_ms": tool.latency(50), "latency_p95_ms": tool.latency(95),
    })
}

/// A research note as JSON, with its provenance and whether the answer
/// cites it.
pub(super) fn note_json(note: &NoteView, citations: &[String]) -> Value {
    json!({
        "id": note.id, "claim": note.claim, "quote": note.quote, "url": note.url,
        "title": note.title, "published_at": note.published_at,
        "cited": citations.contains(&note.id),
    })
}
