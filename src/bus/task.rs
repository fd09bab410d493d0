//! The orchestrator's vocabulary on the bus: planned tasks, their states and
//! the run's health. Shared by the events, the result document and every
//! viewer; it holds data only and decides nothing.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One task of an accepted plan, normalised as 001 normalises it (id and
/// worker stripped, unknown keys dropped).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedTask {
    pub id: String,
    pub worker: String,
    /// The args as the planner gave them (an object).
    pub args: Value,
    pub critical: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Done,
    Failed,
}

/// The run's headline health, as 001's aggregate rates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Health {
    Green,
    Yellow,
    Red,
}

impl Health {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Health::Green => "green",
            Health::Yellow => "yellow",
            Health::Red => "red",
        }
    }
}
