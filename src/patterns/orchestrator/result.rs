//! The orchestrator result document, field for field as 001's
//! `run_orchestrator` returns it in each case.

use crate::bus::{Health, PlannedTask, RunStatus, TaskStatus};
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub struct OrchestratorResult {
    pub status: RunStatus,
    pub stop_reason: StopReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The planner's output when the plan was rejected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_plan: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<Vec<PlannedTask>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_critical: Option<Vec<TaskRecord>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Value>,
    pub trace: Vec<TraceEntry>,
    pub history: Vec<TaskRecord>,
    /// Safe mode skipped calls that failed fast: the result lacks their
    /// part (only with a `resilience` section).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<bool>,
    /// The tools safe mode skipped, in the order first skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<Vec<String>>,
    /// The aggregate's health, once aggregated (in `aggregate` too).
    #[serde(skip)]
    pub health: Option<Health>,
    /// Worker attempts started (not a field of 001's result).
    #[serde(skip)]
    pub dispatches: u64,
}

impl OrchestratorResult {
    /// Say which tools safe mode skipped, if any.
    pub fn mark_degraded(&mut self, degraded: Vec<String>) {
        if !degraded.is_empty() {
            self.partial = Some(true);
            self.degraded = Some(degraded);
        }
    }

    /// A run that stopped in `phase`, with nothing else to report yet.
    pub fn stopped(stop_reason: StopReason, phase: Phase) -> Self {
        OrchestratorResult {
            status: RunStatus::Stopped,
            stop_reason,
            phase: Some(phase),
            answer: None,
            raw_plan: None,
            plan: None,
            failed_critical: None,
            aggregate: None,
            trace: Vec::new(),
            history: Vec::new(),
            partial: None,
            degraded: None,
            health: None,
            dispatches: 0,
        }
    }
}

/// Where a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Plan,
    Dispatch,
    Finalize,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Plan => "plan",
            Phase::Dispatch => "dispatch",
            Phase::Finalize => "finalize",
        }
    }
}

/// How one task ended: an entry of `history` and `failed_critical`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskRecord {
    pub task_id: String,
    pub worker: String,
    pub critical: bool,
    pub status: TaskStatus,
    pub attempts_used: u32,
    pub retried: bool,
    pub args_hash: String,
    /// What the worker returned, when the task is done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
}

/// An entry of `trace`: a task's record without its observation, with
/// `stop_reason` null when it is done.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceEntry {
    pub task_id: String,
    pub worker: String,
    pub status: TaskStatus,
    pub attempts_used: u32,
    pub retried: bool,
    pub args_hash: String,
    pub stop_reason: Option<StopReason>,
    pub critical: bool,
}

impl TraceEntry {
    pub fn of(record: &TaskRecord) -> Self {
        TraceEntry {
            task_id: record.task_id.clone(),
            worker: record.worker.clone(),
            status: record.status,
            attempts_used: record.attempts_used,
            retried: record.retried,
            args_hash: record.args_hash.clone(),
            stop_reason: record.stop_reason.clone(),
            critical: record.critical,
        }
    }
}
