//! A watch recording's steering read back: its `steered` lines and the
//! rest of its summary's `steering`, for `conclave replay` to print and
//! sum up as the watch did.

use super::protocol::Decision;
use super::state::{SteerSummary, Timed};
use crate::watch::record::WatchRecording;

/// The steering recorded in `rec`, if the run was steered.
pub fn steering_of(rec: &WatchRecording) -> Option<SteerSummary> {
    let recorded = rec
        .summary
        .as_ref()
        .and_then(|s| s.get("steering"))
        .filter(|s| !s.is_null());
    if recorded.is_none() && rec.steered.is_empty() {
        return None;
    }
    let mut steering: SteerSummary = recorded
        .and_then(|s| serde_json::from_value(s.clone()).ok())
        .unwrap_or_default();
    steering.decisions = rec
        .steered
        .iter()
        .map(|(at_ms, decision)| Timed {
            at_ms: *at_ms,
            decision: decision.clone(),
        })
        .collect();
    Some(steering)
}

/// One decision as a line of the replay's log, its texts cleaned for
/// the terminal.
pub fn log_line(at_ms: u64, decision: &Decision) -> String {
    let mut value = serde_json::to_value(decision).unwrap_or_default();
    let what = value
        .as_object_mut()
        .and_then(|map| map.remove("decision"))
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let rest = if value.as_object().is_some_and(|m| m.is_empty()) {
        String::new()
    } else {
        format!("  {value}")
    };
    let line = format!("+{at_ms} ms  steered {what}{rest}");
    crate::sanitize::clean(&line).into_owned()
}
