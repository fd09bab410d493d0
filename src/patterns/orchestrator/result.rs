//! The orchestrator result document, field for field as 001's
//! `run_orchestrator` returns it in each case.

use crate::bus::{Health, PlannedTask, RunStatus, TaskStatus};
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

#[derive(Debug, Serialize)]
pub(crate) struct OrchestratorResult {
    pub(crate) status: RunStatus,
    pub(crate) stop_reason: StopReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) phase: Option<Phase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) answer: Option<String>,
    /// The planner's output when the plan was rejected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) raw_plan: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) plan: Option<Arc<[PlannedTask]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) failed_critical: Option<Vec<TaskRecord>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) aggregate: Option<Value>,
    pub(crate) trace: Vec<TraceEntry>,
    pub(crate) history: Vec<TaskRecord>,
    /// Safe mode skipped calls that failed fast: the result lacks their
    /// part (only with a `resilience` section).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) partial: Option<bool>,
    /// The tools safe mode skipped, in the order first skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) degraded: Option<Vec<String>>,
    /// The aggregate's health, once aggregated (in `aggregate` too).
    #[serde(skip)]
    pub(crate) health: Option<Health>,
    /// Worker attempts started (not a field of 001's result).
    #[serde(skip)]
    pub(crate) dispatches: u64,
}

impl OrchestratorResult {
    /// Say which tools safe mode skipped, if any.
    pub(crate) fn mark_degraded(&mut self, degraded: Vec<String>) {
        if !degraded.is_empty() {
            self.partial = Some(true);
            self.degraded = Some(degraded);
        }
    }

    /// A run that stopped in `phase`, with nothing else to report yet.
    pub(crate) fn stopped(stop_reason: StopReason, phase: Phase) -> Self {
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
pub(crate) enum Phase {
    Plan,
    Dispatch,
    Finalize,
}

impl Phase {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Phase::Plan => "plan",
            Phase::Dispatch => "dispatch",
            Phase::Finalize => "finalize",
        }
    }
}

/// How one task ended: an entry of `history` and `failed_critical`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TaskRecord {
    pub(crate) task_id: String,
    pub(crate) worker: String,
    pub(crate) critical: bool,
    pub(crate) status: TaskStatus,
    pub(crate) attempts_used: u32,
    pub(crate) retried: bool,
    pub(crate) args_hash: String,
    /// What the worker returned, when the task is done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) observation: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stop_reason: Option<StopReason>,
    /// The observation is the worker's last good answer, served while it
    /// failed fast (`last_known_good`); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) stale: bool,
}

/// An entry of `trace`: a task's record without its observation, with
/// `stop_reason` null when it is done.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TraceEntry {
    pub(crate) task_id: String,
    pub(crate) worker: String,
    pub(crate) status: TaskStatus,
    pub(crate) attempts_used: u32,
    pub(crate) retried: bool,
    pub(crate) args_hash: String,
    pub(crate) stop_reason: Option<StopReason>,
    pub(crate) critical: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) stale: bool,
}

impl TraceEntry {
    pub(crate) fn of(record: &TaskRecord) -> Self {
        TraceEntry {
            task_id: record.task_id.clone(),
            worker: record.worker.clone(),
            status: record.status,
            attempts_used: record.attempts_used,
            retried: record.retried,
            args_hash: record.args_hash.clone(),
            stop_reason: record.stop_reason.clone(),
            critical: record.critical,
            stale: record.stale,
        }
    }
}
