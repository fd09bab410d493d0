//! What a pattern adds to an agent's turn, at the payload's key `context`:
//! a value, or JSON text written ahead (see `turn_payload`).

use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::Arc;

/// What a pattern adds to a turn's payload, at its key `context`.
#[derive(Clone, Debug)]
pub(crate) enum TurnContext {
    Built(Value),
    /// Compact JSON text, as serde_json writes the value it stands for:
    /// the prompt is written, hashed and counted byte for byte as it
    /// would be with that value in place.
    Written(Arc<RawValue>),
}

impl From<Value> for TurnContext {
    fn from(value: Value) -> Self {
        TurnContext::Built(value)
    }
}
