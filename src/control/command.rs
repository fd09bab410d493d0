//! The commands a run takes at its gates, and why one can be refused.

use crate::bus::HumanChoice;

/// A command for a run, from a key or (as JSON, the same words) from a
/// viewer on another machine: `{"command": "pause"}`,
/// `{"command": "set_flag", "name": "legal_analyst", "on": true}`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Control {
    Pause,
    Resume,
    /// While paused, let exactly one gate pass; while running, pause at the
    /// next gate.
    Step,
    SetFlag {
        name: String,
        on: bool,
    },
    Cancel,
    /// A person's answer to an escalation, with an optional note for the
    /// shared context.
    Decide {
        choice: HumanChoice,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ControlError {
    #[error("unknown flag {name:?}; this scenario declares: {known}")]
    UnknownFlag { name: String, known: String },
    #[error("the run has finished")]
    RunOver,
    #[error("too many commands are waiting for the next gate")]
    Busy,
}
