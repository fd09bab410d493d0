//! The orchestrator's own stop reasons, named as 001 names them, and their
//! sentences: a plan that broke the plan contract (`invalid_plan:kind`) and
//! a critical task that failed (`critical_task_failed`). The floors carry
//! them as opaque strings (`StopReason::Pattern`); the gateway's worker
//! failures (`worker_error:…`, `task_timeout`) are shared reasons.

use crate::stop::{PatternReason, StopFacts, StopKind, StopReason};
use std::fmt;
use std::str::FromStr;

/// Why an orchestrator stops, beyond the reasons every pattern shares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TaskStop {
    /// The planner's output failed the plan contract (001's
    /// `validate_orchestration_plan`).
    InvalidPlan(PlanError),
    /// A task marked critical did not finish.
    CriticalTaskFailed,
}

impl fmt::Display for TaskStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskStop::InvalidPlan(e) => write!(f, "invalid_plan:{e}"),
            TaskStop::CriticalTaskFailed => f.write_str("critical_task_failed"),
        }
    }
}

impl PatternReason for TaskStop {
    fn kind(&self) -> StopKind {
        match self {
            TaskStop::InvalidPlan(_) => StopKind::Contract,
            TaskStop::CriticalTaskFailed => StopKind::Plain,
        }
    }

    fn read(wire: &str) -> Option<Self> {
        if wire == "critical_task_failed" {
            return Some(TaskStop::CriticalTaskFailed);
        }
        let error = wire.strip_prefix("invalid_plan:")?;
        error.parse().ok().map(TaskStop::InvalidPlan)
    }

    fn explain(&self, _: &StopFacts) -> String {
        match self {
            TaskStop::InvalidPlan(e) => format!("the plan broke the plan contract ({e})"),
            TaskStop::CriticalTaskFailed => "a critical task failed".into(),
        }
    }
}

impl From<TaskStop> for StopReason {
    fn from(reason: TaskStop) -> Self {
        StopReason::of_pattern(&reason)
    }
}

/// The orchestrator's words for its own stops.
pub(crate) fn explain(reason: &StopReason, facts: &StopFacts) -> Option<String> {
    reason.pattern::<TaskStop>().map(|own| own.explain(facts))
}

/// The plan contract's rejections, in the order 001's gateway checks them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum PlanError {
    NonJson,
    Kind,
    Tasks,
    MaxTasks,
    TaskShape,
    MissingKeys,
    TaskId,
    DuplicateTaskId,
    Worker,
    WorkerNotAllowed { worker: String },
    Args,
    Critical,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::NonJson => f.write_str("non_json"),
            PlanError::Kind => f.write_str("kind"),
            PlanError::Tasks => f.write_str("tasks"),
            PlanError::MaxTasks => f.write_str("max_tasks"),
            PlanError::TaskShape => f.write_str("task_shape"),
            PlanError::MissingKeys => f.write_str("missing_keys"),
            PlanError::TaskId => f.write_str("task_id"),
            PlanError::DuplicateTaskId => f.write_str("duplicate_task_id"),
            PlanError::Worker => f.write_str("worker"),
            PlanError::WorkerNotAllowed { worker } => write!(f, "worker_not_allowed:{worker}"),
            PlanError::Args => f.write_str("args"),
            PlanError::Critical => f.write_str("critical"),
        }
    }
}

impl FromStr for PlanError {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        Ok(match s {
            "non_json" => PlanError::NonJson,
            "kind" => PlanError::Kind,
            "tasks" => PlanError::Tasks,
            "max_tasks" => PlanError::MaxTasks,
            "task_shape" => PlanError::TaskShape,
            "missing_keys" => PlanError::MissingKeys,
            "task_id" => PlanError::TaskId,
            "duplicate_task_id" => PlanError::DuplicateTaskId,
            "worker" => PlanError::Worker,
            "args" => PlanError::Args,
            "critical" => PlanError::Critical,
            other => PlanError::WorkerNotAllowed {
                worker: other
                    .strip_prefix("worker_not_allowed:")
                    .ok_or(())?
                    .to_string(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::stops_tests::check_reasons;

    #[test]
    fn every_reason_reads_back_and_has_its_own_sentence() {
        use PlanError::*;
        let errors = vec![
            NonJson,
            Kind,
            Tasks,
            MaxTasks,
            TaskShape,
            MissingKeys,
            TaskId,
            DuplicateTaskId,
            Worker,
            WorkerNotAllowed {
                worker: "fraud:worker".into(),
            },
            Args,
            Critical,
        ];
        let mut reasons: Vec<TaskStop> = errors.into_iter().map(TaskStop::InvalidPlan).collect();
        reasons.push(TaskStop::CriticalTaskFailed);
        check_reasons(reasons, explain);
        assert_eq!(
            TaskStop::InvalidPlan(WorkerNotAllowed {
                worker: " sales_worker".into()
            })
            .to_string(),
            "invalid_plan:worker_not_allowed: sales_worker",
            "the worker as the plan wrote it"
        );
    }
}
