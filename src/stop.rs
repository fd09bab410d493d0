//! Why a run ended: the reasons every pattern shares (success, the
//! budgets, the model's and the gateway's failures), and a pattern's own
//! reasons as the opaque strings it declares (`Pattern`). Written on the
//! wire as the references write their `stop_reason` strings
//! (`agent_denied:legal_analyst`), so that results compare equal to the
//! references' and recordings read back. Never names a pattern's reason:
//! each pattern's folder declares its own (`stops.rs`).

mod explain;
mod pattern;
#[cfg(test)]
mod tests;

pub(crate) use explain::StopFacts;
pub(crate) use pattern::PatternReason;
pub use pattern::{PatternStop, StopKind};

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
    /// A role in the speaking order, or an agent of a team, is outside the
    /// execution allowlist.
    AgentDenied {
        role: String,
    },
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
    /// The next model call would exceed `max_llm_calls` (swarm, coordinator).
    MaxLlmCalls,
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
    /// The run asked a person and nobody answered: a headless run
    /// without `--decide`.
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
    /// A pattern's own reason, as the pattern declared it; also any reason
    /// this build does not know, read from another version's recording.
    Pattern(PatternStop),
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
        match self {
            StopReason::ModelOutputCut | StopReason::ModelRefused => true,
            StopReason::Pattern(reason) => reason.kind() == StopKind::Contract,
            _ => false,
        }
    }

    /// Whether something ran out of time: a model call, a tool call, or
    /// one of a pattern's own timeouts (not the run's `max_seconds`).
    pub(crate) fn is_timeout(&self) -> bool {
        match self {
            StopReason::LlmTimeout | StopReason::TaskTimeout => true,
            StopReason::Pattern(reason) => reason.kind() == StopKind::Timeout,
            _ => false,
        }
    }

    /// A pattern's typed reason as every floor carries it.
    pub(crate) fn of_pattern<R: PatternReason>(reason: &R) -> StopReason {
        StopReason::Pattern(PatternStop::of(reason))
    }

    /// The typed reason of the pattern `R` this is, if it is one: how a
    /// pattern reads back a reason it made.
    pub(crate) fn pattern<R: PatternReason>(&self) -> Option<R> {
        match self {
            StopReason::Pattern(reason) => R::read(reason.wire()),
            _ => None,
        }
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
            StopReason::AgentDenied { role } => write!(f, "agent_denied:{role}"),
            StopReason::MaxDispatches => f.write_str("max_dispatches"),
            StopReason::TaskTimeout => f.write_str("task_timeout"),
            StopReason::WorkerDenied { worker } => write!(f, "worker_denied:{worker}"),
            StopReason::WorkerBadArgs { worker } => write!(f, "worker_bad_args:{worker}"),
            StopReason::WorkerError { worker } => write!(f, "worker_error:{worker}"),
            StopReason::WorkerBadResult { worker } => write!(f, "worker_bad_result:{worker}"),
            StopReason::WorkerMissing { worker } => write!(f, "worker_missing:{worker}"),
            StopReason::MaxLlmCalls => f.write_str("max_llm_calls"),
            StopReason::CircuitOpen { tool } => write!(f, "circuit_open:{tool}"),
            StopReason::BulkheadFull { tool } => write!(f, "bulkhead_full:{tool}"),
            StopReason::RetryBudgetExhausted => f.write_str("retry_budget_exhausted"),
            StopReason::MaxTokens => f.write_str("max_tokens"),
            StopReason::MaxCost => f.write_str("max_cost"),
            StopReason::EscalatedToHuman => f.write_str("escalated_to_human"),
            StopReason::CassetteMiss => f.write_str("cassette_miss"),
            StopReason::ModelOutputCut => f.write_str("model_output_cut"),
            StopReason::ModelRefused => f.write_str("model_refused"),
            StopReason::Pattern(reason) => f.write_str(reason.wire()),
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
            "max_dispatches" => StopReason::MaxDispatches,
            "task_timeout" => StopReason::TaskTimeout,
            "max_llm_calls" => StopReason::MaxLlmCalls,
            "retry_budget_exhausted" => StopReason::RetryBudgetExhausted,
            "max_tokens" => StopReason::MaxTokens,
            "max_cost" => StopReason::MaxCost,
            "escalated_to_human" => StopReason::EscalatedToHuman,
            "cassette_miss" => StopReason::CassetteMiss,
            "model_output_cut" => StopReason::ModelOutputCut,
            "model_refused" => StopReason::ModelRefused,
            other => parse_with_detail(other)
                .unwrap_or_else(|| StopReason::Pattern(PatternStop::read(other))),
        })
    }
}

/// The shared reasons that carry a name after a colon.
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
        "circuit_open" => StopReason::CircuitOpen { tool: name() },
        "bulkhead_full" => StopReason::BulkheadFull { tool: name() },
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
