//! Why a run ended. One enum for every pattern, written on the wire as the
//! references write their `stop_reason` strings (`agent_denied:legal_analyst`),
//! so that results compare equal to the references' and recordings read back.

mod contracts;
mod explain;
mod research;

pub(crate) use contracts::{ContributionError, PlanError};
pub(crate) use explain::StopFacts;
pub(crate) use research::{AnswerError, NotesError, StepError};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    Success,
    /// The user cancelled the run (Conclave's own; the references have no
    /// control channel).
    Cancelled,
    MaxSeconds,
    LlmTimeout,
    /// A model call failed otherwise than by timing out (the gateway's own
    /// word for a retried attempt; the references stop such a run with
    /// `llm_timeout`).
    LlmError,
    /// A remote model refused the credentials (HTTP 401/403, or no key for
    /// the public endpoint).
    LlmAuth,
    /// A remote model's answer was not a chat completion.
    LlmBadResponse,
    /// A remote model stayed down or rate limiting through its retries.
    LlmUnavailable,
    /// A remote model refused the request itself (HTTP 4xx other than 401,
    /// 403 and 429: an unknown model, a wrong path); never retried.
    LlmBadRequest,
    /// A remote model answered with a status that is neither a success nor
    /// a known failure (a redirect, which is not followed, a 1xx, a code
    /// past 599); never retried.
    LlmUnexpectedStatus,
    LlmEmpty,
    MaxMessages,
    MaxRoundsReached,
    /// A role in the speaking order is outside the execution allowlist.
    AgentDenied {
        role: String,
    },
    InvalidContribution(ContributionError),
    /// The planner's output failed the plan contract (001's
    /// `validate_orchestration_plan`).
    InvalidPlan(PlanError),
    /// More attempts than `max_dispatches` were started (every attempt
    /// counts, retries included).
    MaxDispatches,
    /// One attempt of a task did not finish within its timeout.
    TaskTimeout,
    /// A worker outside the execution allowlist.
    WorkerDenied {
        worker: String,
    },
    /// A task's args do not fit the worker's signature.
    WorkerBadArgs {
        worker: String,
    },
    /// The worker itself failed (a scripted `fail` call or an outage; a
    /// real worker's error status, non-zero exit or broken connection).
    WorkerError {
        worker: String,
    },
    /// A real worker answered with something that is not a JSON object
    /// (001's `worker_bad_result`, which no simulated worker can reach).
    WorkerBadResult {
        worker: String,
    },
    /// No worker of that name is registered.
    WorkerMissing {
        worker: String,
    },
    /// A task marked critical did not finish.
    CriticalTaskFailed,
    /// The next model call would exceed `max_llm_calls` (swarm, coordinator).
    MaxLlmCalls,
    /// A transfer target held control past `node_timeout_ms` (002's
    /// NodeTimeout).
    NodeTimeout {
        agent: String,
    },
    /// A member called by the coordinator did not answer within
    /// `member_timeout_ms`.
    MemberTimeout {
        member: String,
    },
    /// The coordinator called a name that is not one of its members.
    UnknownMember {
        member: String,
    },
    /// A model output that is no kind of turn the agent may take.
    InvalidTurn,
    /// A research plan step failed the step contract (004's `validate_plan`).
    InvalidStep(StepError),
    /// The research plan's search step has an empty query.
    InvalidSearchQuery,
    /// The search found nothing to read.
    NoSourcesAfterDedupe,
    /// No note came out of the sources the policy let through.
    NoReliableSources,
    /// A research tool answered outside its output contract (or failed).
    ToolInvalidOutput {
        tool: String,
    },
    /// The verifier found a problem in the notes; the first one it named.
    VerificationFailed {
        issue: String,
    },
    /// The extracted notes failed the notes contract.
    InvalidNotes(NotesError),
    /// The synthesis failed the answer contract.
    InvalidAnswer(AnswerError),
    /// The tool's circuit breaker is open: the gateway failed the call
    /// fast, without calling the tool (003).
    CircuitOpen {
        tool: String,
    },
    /// The tool's bulkhead stayed full for longer than the call may wait.
    BulkheadFull {
        tool: String,
    },
    /// A retry would take the run's retries over its retry budget.
    RetryBudgetExhausted,
    /// The run's model calls used more tokens than `budget.max_tokens`.
    MaxTokens,
    /// The run's model calls cost more than `budget.max_cost_usd`.
    MaxCost,
    /// `budget.escalate_after_blocking_rounds` rounds in a row had a
    /// blocking stance and nobody answered: a headless run without
    /// `--decide`.
    EscalatedToHuman,
    /// The run's cassette does not hold a call the run made; the run's
    /// error names the first difference.
    CassetteMiss,
    /// A model's answer was cut at its output limit (`finish_reason:
    /// "length"`) and still was after its repair; the run's error names
    /// the agent, the call and the limit.
    ModelOutputCut,
    /// The model refused to answer (`message.refusal`); the run's error
    /// quotes its words.
    ModelRefused,
    /// A reason this build does not know, read from another version's recording.
    Other(String),
}

impl StopReason {
    /// Whether the run stopped because a model call failed.
    pub(crate) fn is_model_failure(&self) -> bool {
        matches!(
            self,
            StopReason::LlmTimeout
                | StopReason::LlmAuth
                | StopReason::LlmBadResponse
                | StopReason::LlmUnavailable
                | StopReason::LlmBadRequest
                | StopReason::LlmUnexpectedStatus
        )
    }

    /// Whether a model's answer stopped the run: it broke its contract,
    /// was cut at the output limit or was a refusal.
    pub(crate) fn is_answer_failure(&self) -> bool {
        matches!(
            self,
            StopReason::InvalidContribution(_)
                | StopReason::InvalidPlan(_)
                | StopReason::InvalidTurn
                | StopReason::InvalidStep(_)
                | StopReason::InvalidSearchQuery
                | StopReason::InvalidNotes(_)
                | StopReason::InvalidAnswer(_)
                | StopReason::ModelOutputCut
                | StopReason::ModelRefused
        )
    }

    /// The run went past its token or dollar budget.
    pub(crate) fn is_spend_budget(&self) -> bool {
        matches!(self, StopReason::MaxTokens | StopReason::MaxCost)
    }

    /// The gateway failed the call fast, without reaching the tool: an open
    /// breaker, a full bulkhead or an exhausted retry budget (what safe
    /// mode may skip, and what is never retried).
    pub(crate) fn is_fail_fast(&self) -> bool {
        matches!(
            self,
            StopReason::CircuitOpen { .. }
                | StopReason::BulkheadFull { .. }
                | StopReason::RetryBudgetExhausted
        )
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Success => f.write_str("success"),
            StopReason::Cancelled => f.write_str("cancelled"),
            StopReason::MaxSeconds => f.write_str("max_seconds"),
            StopReason::LlmTimeout => f.write_str("llm_timeout"),
            StopReason::LlmError => f.write_str("llm_error"),
            StopReason::LlmAuth => f.write_str("llm_auth"),
            StopReason::LlmBadResponse => f.write_str("llm_bad_response"),
            StopReason::LlmUnavailable => f.write_str("llm_unavailable"),
            StopReason::LlmBadRequest => f.write_str("llm_bad_request"),
            StopReason::LlmUnexpectedStatus => f.write_str("llm_unexpected_status"),
            StopReason::LlmEmpty => f.write_str("llm_empty"),
            StopReason::MaxMessages => f.write_str("max_messages"),
            StopReason::MaxRoundsReached => f.write_str("max_rounds_reached"),
            StopReason::AgentDenied { role } => write!(f, "agent_denied:{role}"),
            StopReason::InvalidContribution(e) => write!(f, "invalid_contribution:{e}"),
            StopReason::InvalidPlan(e) => write!(f, "invalid_plan:{e}"),
            StopReason::MaxDispatches => f.write_str("max_dispatches"),
            StopReason::TaskTimeout => f.write_str("task_timeout"),
            StopReason::WorkerDenied { worker } => write!(f, "worker_denied:{worker}"),
            StopReason::WorkerBadArgs { worker } => write!(f, "worker_bad_args:{worker}"),
            StopReason::WorkerError { worker } => write!(f, "worker_error:{worker}"),
            StopReason::WorkerBadResult { worker } => write!(f, "worker_bad_result:{worker}"),
            StopReason::WorkerMissing { worker } => write!(f, "worker_missing:{worker}"),
            StopReason::CriticalTaskFailed => f.write_str("critical_task_failed"),
            StopReason::MaxLlmCalls => f.write_str("max_llm_calls"),
            StopReason::NodeTimeout { agent } => write!(f, "node_timeout:{agent}"),
            StopReason::MemberTimeout { member } => write!(f, "member_timeout:{member}"),
            StopReason::UnknownMember { member } => write!(f, "unknown_member:{member}"),
            StopReason::InvalidTurn => f.write_str("invalid_turn"),
            StopReason::InvalidStep(e) => write!(f, "invalid_step:{e}"),
            StopReason::InvalidSearchQuery => f.write_str("invalid_search:query"),
            StopReason::NoSourcesAfterDedupe => f.write_str("no_sources_after_dedupe"),
            StopReason::NoReliableSources => f.write_str("no_reliable_sources"),
            StopReason::ToolInvalidOutput { tool } => write!(f, "tool_invalid_output:{tool}"),
            StopReason::VerificationFailed { issue } => write!(f, "verification_failed:{issue}"),
            StopReason::InvalidNotes(e) => write!(f, "invalid_notes:{e}"),
            StopReason::InvalidAnswer(e) => write!(f, "invalid_answer:{e}"),
            StopReason::CircuitOpen { tool } => write!(f, "circuit_open:{tool}"),
            StopReason::BulkheadFull { tool } => write!(f, "bulkhead_full:{tool}"),
            StopReason::RetryBudgetExhausted => f.write_str("retry_budget_exhausted"),
            StopReason::MaxTokens => f.write_str("max_tokens"),
            StopReason::MaxCost => f.write_str("max_cost"),
            StopReason::EscalatedToHuman => f.write_str("escalated_to_human"),
            StopReason::CassetteMiss => f.write_str("cassette_miss"),
            StopReason::ModelOutputCut => f.write_str("model_output_cut"),
            StopReason::ModelRefused => f.write_str("model_refused"),
            StopReason::Other(s) => f.write_str(s),
        }
    }
}

impl FromStr for StopReason {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "success" => StopReason::Success,
            "cancelled" => StopReason::Cancelled,
            "max_seconds" => StopReason::MaxSeconds,
            "llm_timeout" => StopReason::LlmTimeout,
            "llm_error" => StopReason::LlmError,
            "llm_auth" => StopReason::LlmAuth,
            "llm_bad_response" => StopReason::LlmBadResponse,
            "llm_unavailable" => StopReason::LlmUnavailable,
            "llm_bad_request" => StopReason::LlmBadRequest,
            "llm_unexpected_status" => StopReason::LlmUnexpectedStatus,
            "llm_empty" => StopReason::LlmEmpty,
            "max_messages" => StopReason::MaxMessages,
            "max_rounds_reached" => StopReason::MaxRoundsReached,
            "max_dispatches" => StopReason::MaxDispatches,
            "task_timeout" => StopReason::TaskTimeout,
            "critical_task_failed" => StopReason::CriticalTaskFailed,
            "max_llm_calls" => StopReason::MaxLlmCalls,
            "invalid_turn" => StopReason::InvalidTurn,
            "invalid_search:query" => StopReason::InvalidSearchQuery,
            "no_sources_after_dedupe" => StopReason::NoSourcesAfterDedupe,
            "no_reliable_sources" => StopReason::NoReliableSources,
            "retry_budget_exhausted" => StopReason::RetryBudgetExhausted,
            "max_tokens" => StopReason::MaxTokens,
            "max_cost" => StopReason::MaxCost,
            "escalated_to_human" => StopReason::EscalatedToHuman,
            "cassette_miss" => StopReason::CassetteMiss,
            "model_output_cut" => StopReason::ModelOutputCut,
            "model_refused" => StopReason::ModelRefused,
            other => {
                parse_with_detail(other).unwrap_or_else(|| StopReason::Other(other.to_string()))
            }
        })
    }
}

/// The reasons that carry a name or a sub-reason after a colon.
fn parse_with_detail(s: &str) -> Option<StopReason> {
    let (head, rest) = s.split_once(':')?;
    let name = || rest.to_string();
    Some(match head {
        "agent_denied" => StopReason::AgentDenied { role: name() },
        "worker_denied" => StopReason::WorkerDenied { worker: name() },
        "worker_bad_args" => StopReason::WorkerBadArgs { worker: name() },
        "worker_error" => StopReason::WorkerError { worker: name() },
        "worker_bad_result" => StopReason::WorkerBadResult { worker: name() },
        "worker_missing" => StopReason::WorkerMissing { worker: name() },
        "node_timeout" => StopReason::NodeTimeout { agent: name() },
        "member_timeout" => StopReason::MemberTimeout { member: name() },
        "unknown_member" => StopReason::UnknownMember { member: name() },
        "circuit_open" => StopReason::CircuitOpen { tool: name() },
        "bulkhead_full" => StopReason::BulkheadFull { tool: name() },
        "invalid_contribution" => StopReason::InvalidContribution(rest.parse().ok()?),
        "invalid_plan" => StopReason::InvalidPlan(rest.parse().ok()?),
        "invalid_step" => StopReason::InvalidStep(rest.parse().ok()?),
        "invalid_notes" => StopReason::InvalidNotes(rest.parse().ok()?),
        "invalid_answer" => StopReason::InvalidAnswer(rest.parse().ok()?),
        "tool_invalid_output" => StopReason::ToolInvalidOutput { tool: name() },
        "verification_failed" => StopReason::VerificationFailed { issue: name() },
        _ => return None,
    })
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Ok(s.parse().unwrap_or_else(|never| match never {}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One reason of every kind (with each sub-reason), as the wire and
    /// the sentences are tested over. `kind` makes the compiler ask for a
    /// new kind here.
    pub(super) fn every_reason() -> Vec<StopReason> {
        let reasons = vec![
            StopReason::Success,
            StopReason::Cancelled,
            StopReason::MaxSeconds,
            StopReason::LlmTimeout,
            StopReason::LlmError,
            StopReason::LlmAuth,
            StopReason::LlmBadResponse,
            StopReason::LlmUnavailable,
            StopReason::LlmBadRequest,
            StopReason::LlmUnexpectedStatus,
            StopReason::LlmEmpty,
            StopReason::MaxMessages,
            StopReason::MaxRoundsReached,
            StopReason::AgentDenied {
                role: "legal_analyst".into(),
            },
            StopReason::InvalidContribution(ContributionError::AgentNotAllowed {
                agent: "x:y".into(),
            }),
            StopReason::InvalidContribution(ContributionError::AgentMismatch {
                expected: "risk_analyst".into(),
            }),
            StopReason::InvalidContribution(ContributionError::ConfidenceRange),
            StopReason::InvalidPlan(PlanError::NonJson),
            StopReason::InvalidPlan(PlanError::Kind),
            StopReason::InvalidPlan(PlanError::Tasks),
            StopReason::InvalidPlan(PlanError::MaxTasks),
            StopReason::InvalidPlan(PlanError::TaskShape),
            StopReason::InvalidPlan(PlanError::MissingKeys),
            StopReason::InvalidPlan(PlanError::TaskId),
            StopReason::InvalidPlan(PlanError::DuplicateTaskId),
            StopReason::InvalidPlan(PlanError::Worker),
            StopReason::InvalidPlan(PlanError::WorkerNotAllowed {
                worker: "fraud:worker".into(),
            }),
            StopReason::InvalidPlan(PlanError::Args),
            StopReason::InvalidPlan(PlanError::Critical),
            StopReason::MaxDispatches,
            StopReason::TaskTimeout,
            StopReason::WorkerDenied {
                worker: "inventory_worker".into(),
            },
            StopReason::WorkerBadArgs {
                worker: "sales_worker".into(),
            },
            StopReason::WorkerError {
                worker: "payments_worker".into(),
            },
            StopReason::WorkerMissing {
                worker: "fraud_worker".into(),
            },
            StopReason::WorkerBadResult {
                worker: "pricing_worker".into(),
            },
            StopReason::CriticalTaskFailed,
            StopReason::MaxLlmCalls,
            StopReason::NodeTimeout {
                agent: "billing".into(),
            },
            StopReason::MemberTimeout {
                member: "risk_analyst".into(),
            },
            StopReason::UnknownMember {
                member: "ghost".into(),
            },
            StopReason::InvalidTurn,
            StopReason::InvalidPlan(PlanError::Steps),
            StopReason::InvalidPlan(PlanError::TooManySteps),
            StopReason::InvalidPlan(PlanError::StepSequence),
            StopReason::InvalidStep(StepError::NotObject),
            StopReason::InvalidStep(StepError::Id),
            StopReason::InvalidStep(StepError::Action),
            StopReason::InvalidStep(StepError::Args),
            StopReason::InvalidSearchQuery,
            StopReason::NoSourcesAfterDedupe,
            StopReason::NoReliableSources,
            StopReason::ToolInvalidOutput {
                tool: "read_source".into(),
            },
            StopReason::VerificationFailed {
                issue: "quote_too_short".into(),
            },
            StopReason::InvalidNotes(NotesError::Empty),
            StopReason::InvalidNotes(NotesError::TooMany),
            StopReason::InvalidNotes(NotesError::Item),
            StopReason::InvalidNotes(NotesError::Id),
            StopReason::InvalidNotes(NotesError::Url),
            StopReason::InvalidNotes(NotesError::Claim),
            StopReason::InvalidNotes(NotesError::Quote),
            StopReason::InvalidAnswer(AnswerError::Empty),
            StopReason::InvalidAnswer(AnswerError::TooLong),
            StopReason::InvalidAnswer(AnswerError::Citations),
            StopReason::InvalidAnswer(AnswerError::CitationUnknown),
            StopReason::CircuitOpen {
                tool: "enrichment_worker".into(),
            },
            StopReason::BulkheadFull {
                tool: "model".into(),
            },
            StopReason::RetryBudgetExhausted,
            StopReason::WorkerBadResult {
                worker: "pricing_api".into(),
            },
            StopReason::MaxTokens,
            StopReason::MaxCost,
            StopReason::EscalatedToHuman,
            StopReason::CassetteMiss,
            StopReason::ModelOutputCut,
            StopReason::ModelRefused,
            StopReason::Other("from_the_future".into()),
            StopReason::Other("invalid_plan:from_the_future".into()),
        ];
        let kinds: std::collections::BTreeSet<usize> = reasons.iter().map(kind).collect();
        assert_eq!(
            kinds,
            (0..KINDS).collect(),
            "every kind of reason is listed"
        );
        reasons
    }

    /// How many kinds of reason there are: one past `kind`'s last number.
    const KINDS: usize = 47;

    fn kind(reason: &StopReason) -> usize {
        match reason {
            StopReason::Success => 0,
            StopReason::Cancelled => 1,
            StopReason::MaxSeconds => 2,
            StopReason::LlmTimeout => 3,
            StopReason::LlmError => 4,
            StopReason::LlmAuth => 5,
            StopReason::LlmBadResponse => 6,
            StopReason::LlmUnavailable => 7,
            StopReason::LlmBadRequest => 8,
            StopReason::LlmUnexpectedStatus => 9,
            StopReason::LlmEmpty => 10,
            StopReason::MaxMessages => 11,
            StopReason::MaxRoundsReached => 12,
            StopReason::AgentDenied { .. } => 13,
            StopReason::InvalidContribution(_) => 14,
            StopReason::InvalidPlan(_) => 15,
            StopReason::MaxDispatches => 16,
            StopReason::TaskTimeout => 17,
            StopReason::WorkerDenied { .. } => 18,
            StopReason::WorkerBadArgs { .. } => 19,
            StopReason::WorkerError { .. } => 20,
            StopReason::WorkerMissing { .. } => 21,
            StopReason::CriticalTaskFailed => 22,
            StopReason::MaxLlmCalls => 23,
            StopReason::NodeTimeout { .. } => 24,
            StopReason::MemberTimeout { .. } => 25,
            StopReason::UnknownMember { .. } => 26,
            StopReason::InvalidTurn => 27,
            StopReason::InvalidStep(_) => 28,
            StopReason::InvalidSearchQuery => 29,
            StopReason::NoSourcesAfterDedupe => 30,
            StopReason::NoReliableSources => 31,
            StopReason::ToolInvalidOutput { .. } => 32,
            StopReason::VerificationFailed { .. } => 33,
            StopReason::InvalidNotes(_) => 34,
            StopReason::InvalidAnswer(_) => 35,
            StopReason::CircuitOpen { .. } => 36,
            StopReason::BulkheadFull { .. } => 37,
            StopReason::RetryBudgetExhausted => 38,
            StopReason::Other(_) => 39,
            StopReason::WorkerBadResult { .. } => 40,
            StopReason::MaxTokens => 41,
            StopReason::MaxCost => 42,
            StopReason::EscalatedToHuman => 43,
            StopReason::CassetteMiss => 44,
            StopReason::ModelOutputCut => 45,
            StopReason::ModelRefused => 46,
        }
    }

    #[test]
    fn wire_strings_round_trip() {
        let reasons = every_reason();
        for reason in reasons {
            let wire = reason.to_string();
            assert_eq!(wire.parse::<StopReason>().unwrap(), reason, "{wire}");
        }
        assert_eq!(
            StopReason::AgentDenied {
                role: "legal_analyst".into()
            }
            .to_string(),
            "agent_denied:legal_analyst"
        );
        assert_eq!(
            StopReason::InvalidPlan(PlanError::WorkerNotAllowed {
                worker: " sales_worker".into()
            })
            .to_string(),
            "invalid_plan:worker_not_allowed: sales_worker",
            "the worker as the plan wrote it"
        );
    }
}
