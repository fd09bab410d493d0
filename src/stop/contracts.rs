//! The contribution and plan contracts' rejections, named as 000 and 001
//! name them after `invalid_contribution:` and `invalid_plan:`. Data only:
//! the patterns decide when each applies.

use std::fmt;
use std::str::FromStr;

/// The contribution contract's rejections, in the order 000's gateway checks them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ContributionError {
    NotObject,
    MissingKeys,
    Agent,
    AgentNotAllowed { agent: String },
    Stance,
    Summary,
    ConfidenceType,
    ConfidenceRange,
    Actions,
    ActionItem,
    AgentMismatch { expected: String },
}

/// The plan contract's rejections, in the order 001's gateway checks them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PlanError {
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
        worker: String,
    },
    Args,
    Critical,
    /// research: the plan holds no list of steps.
    Steps,
    /// research: more steps than `max_steps`.
    TooManySteps,
    /// research: the steps' actions are not the bounded workflow, in order.
    StepSequence,
}

impl fmt::Display for ContributionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContributionError::NotObject => f.write_str("not_object"),
            ContributionError::MissingKeys => f.write_str("missing_keys"),
            ContributionError::Agent => f.write_str("agent"),
            ContributionError::AgentNotAllowed { agent } => write!(f, "agent_not_allowed:{agent}"),
            ContributionError::Stance => f.write_str("stance"),
            ContributionError::Summary => f.write_str("summary"),
            ContributionError::ConfidenceType => f.write_str("confidence_type"),
            ContributionError::ConfidenceRange => f.write_str("confidence_range"),
            ContributionError::Actions => f.write_str("actions"),
            ContributionError::ActionItem => f.write_str("action_item"),
            ContributionError::AgentMismatch { expected } => write!(f, "agent_mismatch:{expected}"),
        }
    }
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
            PlanError::Steps => f.write_str("steps"),
            PlanError::TooManySteps => f.write_str("too_many_steps"),
            PlanError::StepSequence => f.write_str("step_sequence"),
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
            "steps" => PlanError::Steps,
            "too_many_steps" => PlanError::TooManySteps,
            "step_sequence" => PlanError::StepSequence,
            other => PlanError::WorkerNotAllowed {
                worker: other
                    .strip_prefix("worker_not_allowed:")
                    .ok_or(())?
                    .to_string(),
            },
        })
    }
}

impl FromStr for ContributionError {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        Ok(match s {
            "not_object" => ContributionError::NotObject,
            "missing_keys" => ContributionError::MissingKeys,
            "agent" => ContributionError::Agent,
            "stance" => ContributionError::Stance,
            "summary" => ContributionError::Summary,
            "confidence_type" => ContributionError::ConfidenceType,
            "confidence_range" => ContributionError::ConfidenceRange,
            "actions" => ContributionError::Actions,
            "action_item" => ContributionError::ActionItem,
            other => {
                if let Some(agent) = other.strip_prefix("agent_not_allowed:") {
                    ContributionError::AgentNotAllowed {
                        agent: agent.to_string(),
                    }
                } else if let Some(expected) = other.strip_prefix("agent_mismatch:") {
                    ContributionError::AgentMismatch {
                        expected: expected.to_string(),
                    }
                } else {
                    return Err(());
                }
            }
        })
    }
}
