//! Values of a comparison in a few words: a difference's JSON as short
//! text, a serde name as a word, a cell's text and tone, and the tone of a
//! run's status.

use crate::bus::RunStatus;
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

/// A short text and its tone: one cell of a comparison's row.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub(crate) text: String,
    pub(crate) tone: Tone,
}

impl Cell {
    pub(crate) fn plain(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            tone: Tone::Plain,
        }
    }

    pub(crate) fn toned(text: impl Into<String>, tone: Tone) -> Cell {
        Cell {
            text: text.into(),
            tone,
        }
    }

    pub(crate) fn absent() -> Cell {
        Cell::toned("—", Tone::Absent)
    }
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
