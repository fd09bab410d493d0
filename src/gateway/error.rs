//! How a model call the gateway made failed, and what a run stops with
//! because of it. The provider's words come through already scrubbed of
//! secrets; nothing here adds any.

use super::retry::Failure;
use crate::provider::ProviderError;
use crate::stop::StopReason;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("the call timed out")]
    Timeout,
    #[error("the run was cancelled")]
    Cancelled,
    #[error("{0}")]
    Failed(String),
    /// The gateway failed the call fast without calling the model: an open
    /// breaker, a full bulkhead or an exhausted retry budget.
    #[error("the gateway refused the call: {0}")]
    Rejected(StopReason),
    /// The call ran into its caller's deadline (a swarm's node timeout);
    /// `model_by` reports it as `None`.
    #[error("the call was cut off at its deadline")]
    Cut,
    /// A remote model stayed down or rate limiting through its retries.
    #[error("{message}")]
    Unavailable {
        message: String,
        retry_after: Option<Duration>,
    },
    /// A remote model refused the credentials.
    #[error("{0}")]
    Auth(String),
    /// A remote model answered with something that is not a chat
    /// completion.
    #[error("{0}")]
    BadResponse(String),
    /// A remote model refused the request itself.
    #[error("{0}")]
    BadRequest(String),
    /// A remote model answered with a status it should not.
    #[error("{0}")]
    UnexpectedStatus(String),
    /// The endpoint asked to be called again later than the run may last:
    /// the call fails at once with the run's time budget (`max_seconds`)
    /// instead of waiting.
    #[error("{0}")]
    OutOfTime(String),
}

impl CallError {
    /// What the call failed with, as a reason: what a retry is scheduled
    /// after.
    pub fn reason(&self) -> StopReason {
        match self {
            CallError::Failed(_) => StopReason::LlmError,
            other => other.stop_reason(),
        }
    }

    /// What a run stops with when a model call fails: as the references
    /// do, `llm_timeout` whatever went wrong on the way, except for what
    /// only a real endpoint does (a refused key, a refused request, an
    /// unexpected status, a body that is not a chat completion, an endpoint
    /// still down after its retries, a wait past the run's time).
    pub fn stop_reason(&self) -> StopReason {
        match self {
            CallError::Timeout | CallError::Cut | CallError::Failed(_) => StopReason::LlmTimeout,
            CallError::Cancelled => StopReason::Cancelled,
            CallError::Rejected(reason) => reason.clone(),
            CallError::Unavailable { .. } => StopReason::LlmUnavailable,
            CallError::Auth(_) => StopReason::LlmAuth,
            CallError::BadResponse(_) => StopReason::LlmBadResponse,
            CallError::BadRequest(_) => StopReason::LlmBadRequest,
            CallError::UnexpectedStatus(_) => StopReason::LlmUnexpectedStatus,
            CallError::OutOfTime(_) => StopReason::MaxSeconds,
        }
    }

    /// The words of an error worth showing the user.
    pub fn message(&self) -> Option<String> {
        match self {
            CallError::Failed(m)
            | CallError::Unavailable { message: m, .. }
            | CallError::Auth(m)
            | CallError::BadResponse(m)
            | CallError::BadRequest(m)
            | CallError::UnexpectedStatus(m)
            | CallError::OutOfTime(m) => Some(m.clone()),
            _ => None,
        }
    }

    /// How the attempt failed, as far as retrying goes: only a timeout, a
    /// scripted failure and an endpoint that is down or rate limiting may
    /// pass on another try.
    pub(super) fn failure(&self) -> Failure {
        match self {
            CallError::Timeout => Failure::Timeout,
            CallError::Failed(_) => Failure::Transient,
            CallError::Unavailable { retry_after, .. } => Failure::Unavailable {
                retry_after: *retry_after,
            },
            CallError::Cancelled
            | CallError::Rejected(_)
            | CallError::Cut
            | CallError::Auth(_)
            | CallError::BadResponse(_)
            | CallError::BadRequest(_)
            | CallError::UnexpectedStatus(_)
            | CallError::OutOfTime(_) => Failure::Permanent,
        }
    }

    /// The wait the endpoint asked for, when it did.
    pub(super) fn retry_after(&self) -> Option<Duration> {
        match self {
            CallError::Unavailable { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    pub(super) fn from_provider(error: ProviderError) -> Self {
        match error {
            ProviderError::Timeout => CallError::Timeout,
            ProviderError::Failed(message) => CallError::Failed(message),
            ProviderError::Unavailable {
                message,
                retry_after,
            } => CallError::Unavailable {
                message,
                retry_after,
            },
            ProviderError::Auth(message) => CallError::Auth(message),
            ProviderError::BadResponse(message) => CallError::BadResponse(message),
            ProviderError::BadRequest(message) => CallError::BadRequest(message),
            ProviderError::UnexpectedStatus(message) => CallError::UnexpectedStatus(message),
        }
    }
}
