//! Values of a comparison in a few words: a difference's JSON as short
//! text, a serde name as a word, and the tone of a status or decision.

use crate::bus::RunStatus;
use crate::patterns::events::Decision;
use serde::Serialize;
use serde_json::Value;

/// How a cell reads at a glance; the dashboard gives each a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tone {
    Plain,
    Good,
    Caution,
    Bad,
    /// The run has nothing here.
    Absent,
}

/// A JSON value as short text: `—` for nothing, strings as they are,
/// lists joined with commas, objects as their values in order.
pub(crate) fn short(value: &Value) -> String {
    match value {
        Value::Null => "—".into(),
        Value::String(s) => s.clone(),
        Value::Bool(true) => "true".into(),
        Value::Bool(false) => "false".into(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) if items.is_empty() => "none".into(),
        Value::Array(items) => items.iter().map(short).collect::<Vec<_>>().join(", "),
        Value::Object(fields) => fields
            .values()
            .filter(|v| !v.is_null())
            .map(short)
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// A value's serde name: `stopped`, `timeout`.
pub(crate) fn words(value: &impl Serialize) -> String {
    short(&serde_json::to_value(value).unwrap_or(Value::Null))
}

pub(crate) fn status_tone(status: RunStatus) -> Tone {
    match status {
        RunStatus::Ok => Tone::Good,
        RunStatus::Stopped => Tone::Bad,
    }
}

pub(crate) fn decision_tone(decision: Decision) -> Tone {
    match decision {
        Decision::Go => Tone::Good,
        Decision::GoWithCaution => Tone::Caution,
        Decision::NoGo => Tone::Bad,
    }
}
