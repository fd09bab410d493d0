//! The orchestrator's events and their vocabulary: planned tasks, their
//! states and the run's health. The bus carries them as
//! `PatternEvent` (`patterns::events`); the result document and every
//! viewer read them. Data only: it decides nothing.

use crate::bus::event_kinds::event_kinds;
use crate::stop::StopReason;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

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

event_kinds! {
/// The orchestrator's events: the plan, its waves and tasks, and the
/// aggregate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TaskEvent, read as TaskNamed = "TaskEvent" {
    /// The planner's output passed the plan contract.
    PlanAccepted {
        /// Shared with the run's result: a plan of 100,000 tasks is held once.
        tasks: Arc<[PlannedTask]>,
    },
    /// The planner's output failed the plan contract; the run stops.
    PlanRejected {
        reason: StopReason,
        /// The plan as the model returned it.
        raw: Value,
    },
    /// A task waits for a free dispatch slot (published for every task of
    /// the plan, in plan order, before the first wave).
    TaskQueued {
        task: String,
        worker: String,
        critical: bool,
        /// Attempts the task may use, its retries included.
        max_attempts: u32,
    },
    /// The orchestrator passed a wave gate and starts these tasks in the
    /// free dispatch slots.
    WaveStarted {
        wave: u32,
        tasks: Vec<String>,
    },
    TaskFinished {
        task: String,
        worker: String,
        status: TaskStatus,
        attempts_used: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stop_reason: Option<StopReason>,
        /// The worker's result, when the task is done.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
    },
    /// Every task has finished and no critical one failed: the workers'
    /// results are combined and rated.
    Aggregated {
        health: Health,
        /// The aggregate document, as the result carries it.
        aggregate: Value,
    },
}
}
