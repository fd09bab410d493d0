//! A team's scripted turns as the sim reads them: an object turn may carry
//! its own `latency_ms`, which the sim takes as the call's latency and
//! removes from the output the agent sees. Pure functions.

use serde_json::Value;
use std::time::Duration;

/// The key of a turn's own latency.
pub(crate) const TURN_LATENCY_KEY: &str = "latency_ms";

/// `entry` without its `latency_ms`, and that latency when it is a whole
/// number of milliseconds.
pub(super) fn split_latency(entry: &Value) -> (Value, Option<Duration>) {
    match entry {
        Value::Object(map) if map.contains_key(TURN_LATENCY_KEY) => {
            let latency = map[TURN_LATENCY_KEY]
                .as_u64()
                .map(crate::duration::clamp_millis);
            let mut rest = map.clone();
            rest.shift_remove(TURN_LATENCY_KEY);
            (Value::Object(rest), latency)
        }
        other => (other.clone(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_turn_latency_is_taken_out_of_the_output() {
        assert_eq!(
            split_latency(&json!({"reply": "done", "latency_ms": 250})),
            (json!({"reply": "done"}), Some(Duration::from_millis(250)))
        );
        assert_eq!(
            split_latency(&json!({"$fault": "timeout", "latency_ms": 0})),
            (json!({"$fault": "timeout"}), Some(Duration::ZERO))
        );
        assert_eq!(split_latency(&json!("text")), (json!("text"), None));
    }
}
