//! The orchestrator result document, field for field as 001's
//! `run_orchestrator` returns it in each case.

use crate::bus::RunStatus;
use crate::patterns::orchestrator::events::{Health, PlannedTask, TaskStatus};
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

#[derive(Debug)]
pub(crate) struct OrchestratorResult {
    pub(crate) status: RunStatus,
    pub(crate) stop_reason: StopReason,
    pub(crate) phase: Option<Phase>,
    pub(crate) answer: Option<String>,
    /// The planner's output when the plan was rejected.
    pub(crate) raw_plan: Option<Value>,
    pub(crate) plan: Option<Arc<[PlannedTask]>>,
    pub(crate) failed_critical: Option<Vec<TaskRecord>>,
    pub(crate) aggregate: Option<Value>,
    /// How each finished task ended, in plan order. The document's
    /// `trace` is written from it: the same tasks, in the same order, each
    /// without its observation.
    pub(crate) history: Vec<TaskRecord>,
    /// Safe mode skipped calls that failed fast: the result lacks their
    /// part (only with a `resilience` section).
    pub(crate) partial: Option<bool>,
    /// The tools safe mode skipped, in the order first skipped.
    pub(crate) degraded: Option<Vec<String>>,
    /// The aggregate's health, once aggregated (in `aggregate` too).
    pub(crate) health: Option<Health>,
    /// Worker attempts started (not a field of 001's result).
    pub(crate) dispatches: u64,
}

/// The result document's fields in 001's order.
#[derive(Serialize)]
struct Document<'a> {
    status: RunStatus,
    stop_reason: &'a StopReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    phase: Option<Phase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_plan: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<&'a [PlannedTask]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failed_critical: Option<&'a [TaskRecord]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    aggregate: Option<&'a Value>,
    trace: Trace<'a>,
    history: &'a [TaskRecord],
    #[serde(skip_serializing_if = "Option::is_none")]
    partial: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    degraded: Option<&'a [String]>,
}

impl Serialize for OrchestratorResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Document {
            status: self.status,
            stop_reason: &self.stop_reason,
            phase: self.phase,
            answer: self.answer.as_deref(),
            raw_plan: self.raw_plan.as_ref(),
            plan: self.plan.as_deref(),
            failed_critical: self.failed_critical.as_deref(),
            aggregate: self.aggregate.as_ref(),
            trace: Trace(&self.history),
            history: &self.history,
            partial: self.partial,
            degraded: self.degraded.as_deref(),
        }
        .serialize(serializer)
    }
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

/// The document's `trace`: each record of the history without its
/// observation, with `stop_reason` null when it is done.
struct Trace<'a>(&'a [TaskRecord]);

impl Serialize for Trace<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(TraceEntry::of))
    }
}

/// An entry of `trace`, borrowed from its record.
#[derive(Serialize)]
struct TraceEntry<'a> {
    task_id: &'a str,
    worker: &'a str,
    status: TaskStatus,
    attempts_used: u32,
    retried: bool,
    args_hash: &'a str,
    stop_reason: Option<&'a StopReason>,
    critical: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stale: bool,
}

impl<'a> TraceEntry<'a> {
    fn of(record: &'a TaskRecord) -> Self {
        TraceEntry {
            task_id: &record.task_id,
            worker: &record.worker,
            status: record.status,
            attempts_used: record.attempts_used,
            retried: record.retried,
            args_hash: &record.args_hash,
            stop_reason: record.stop_reason.as_ref(),
            critical: record.critical,
            stale: record.stale,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::orchestrator::stops::TaskStop;
    use serde_json::json;

    fn record(i: usize) -> TaskRecord {
        let done = !i.is_multiple_of(7);
        TaskRecord {
            task_id: format!("t{i} \"quoted\" ✓"),
            worker: ["payments_worker", "fraud_worker"][i % 2].into(),
            critical: i.is_multiple_of(10),
            status: if done {
                TaskStatus::Done
            } else {
                TaskStatus::Failed
            },
            attempts_used: 1 + (i % 3) as u32,
            retried: !i.is_multiple_of(3),
            args_hash: format!("{i:064x}"),
            observation: done.then(|| json!({"value": i, "history": [], "note": "a\nb"})),
            stop_reason: (!done).then_some(StopReason::TaskTimeout),
            stale: i.is_multiple_of(11),
        }
    }

    fn result(tasks: usize) -> OrchestratorResult {
        let mut result =
            OrchestratorResult::stopped(TaskStop::CriticalTaskFailed.into(), Phase::Dispatch);
        result.plan = Some(
            (0..tasks)
                .map(|i| PlannedTask {
                    id: format!("t{i}"),
                    worker: "payments_worker".into(),
                    args: json!({"report_date": "2026-02-26", "region": "US"}),
                    critical: i % 10 == 0,
                })
                .collect(),
        );
        result.history = (0..tasks).map(record).collect();
        result.failed_critical = Some(vec![record(0)]);
        result.aggregate = Some(json!({"history": []}));
        result.mark_degraded(vec!["fraud_worker".into()]);
        result
    }

    #[test]
    fn the_document_has_001s_fields_in_001s_order() {
        let value = serde_json::to_value(result(3)).unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "status",
                "stop_reason",
                "phase",
                "plan",
                "failed_critical",
                "aggregate",
                "trace",
                "history",
                "partial",
                "degraded"
            ]
        );
    }

    #[test]
    fn the_trace_is_the_history_without_observations() {
        let short = result(22);
        let value = serde_json::to_value(&short).unwrap();
        let (trace, history) = (&value["trace"], &value["history"]);
        assert_eq!(trace.as_array().unwrap().len(), 22);
        for (entry, record) in trace
            .as_array()
            .unwrap()
            .iter()
            .zip(history.as_array().unwrap())
        {
            let mut expected = record.clone();
            let fields = expected.as_object_mut().unwrap();
            fields.remove("observation");
            fields.entry("stop_reason").or_insert(Value::Null);
            assert_eq!(entry, &expected);
        }
        // 001's order of a trace entry's fields.
        assert!(
            serde_json::to_string(&trace[11])
                .unwrap()
                .starts_with(r#"{"task_id":"t11 \"quoted\" ✓","worker":"fraud_worker","status":"done","attempts_used":3,"retried":true,"args_hash":"#),
            "{}",
            trace[11]
        );
        assert!(
            trace[11]
                .to_string()
                .ends_with(r#""stop_reason":null,"critical":false,"stale":true}"#)
        );
    }
}
