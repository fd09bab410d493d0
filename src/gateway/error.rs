//! How a model call the gateway made failed, and what a run stops with
//! because of it. The provider's words come through already scrubbed of
//! secrets; nothing here adds any.

use super::retry::Failure;
use crate::provider::ProviderError;
use crate::stop::StopReason;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CallError {
    /// The attempt ran past its timeout (the gateway's, or the provider's
    /// own).
    #[error("the call timed out")]
    Timeout,
    #[error("the run was cancelled")]
    Cancelled,
    /// The gateway failed the call fast without calling the model: an open
    /// breaker, a full bulkhead, an exhausted retry budget, or a run past
    /// its token or dollar budget.
    #[error("the gateway refused the call: {0}")]
    Rejected(StopReason),
    /// The call ran into its caller's deadline (a swarm's node timeout);
    /// `model_by` reports it as `None`.
    #[error("the call was cut off at its deadline")]
    Cut,
    /// The endpoint asked to be called again later than the run may last:
    /// the call fails at once with the run's time budget (`max_seconds`)
    /// instead of waiting.
    #[error("{0}")]
    OutOfTime(String),
    /// What the model's provider said went wrong, as it said it.
    #[error(transparent)]
    Provider(ProviderError),
    /// The answer was cut at the output limit, and still was after its
    /// repairs: who, which call and how it began.
    #[error("{0}")]
    OutputCut(String),
    /// The model refused to answer, in its words.
    #[error("the model refused: {0}")]
    Refused(String),
}

impl CallError {
    /// What the call failed with, as a reason: what a retry is scheduled
    /// after.
    pub(crate) fn reason(&self) -> StopReason {
        match self {
            CallError::Provider(ProviderError::Failed(_)) => StopReason::LlmError,
            other => other.stop_reason(),
        }
    }

    /// What a run stops with when a model call fails: as the references
    /// do, `llm_timeout` whatever went wrong on the way, except for what
    /// only a real endpoint does (a refused key, a refused request, an
    /// unexpected status, a body that is not a chat completion, an endpoint
    /// still down after its retries, a wait past the run's time).
    pub(crate) fn stop_reason(&self) -> StopReason {
        match self {
            CallError::Timeout | CallError::Cut => StopReason::LlmTimeout,
            CallError::Cancelled => StopReason::Cancelled,
            CallError::Rejected(reason) => reason.clone(),
            CallError::OutOfTime(_) => StopReason::MaxSeconds,
            CallError::OutputCut(_) => StopReason::ModelOutputCut,
            CallError::Refused(_) => StopReason::ModelRefused,
            CallError::Provider(error) => match error {
                ProviderError::Timeout
                | ProviderError::TimedOutWriting { .. }
                | ProviderError::Failed(_) => StopReason::LlmTimeout,
                ProviderError::Unavailable { .. } => StopReason::LlmUnavailable,
                ProviderError::Auth(_) => StopReason::LlmAuth,
                ProviderError::BadResponse(_) => StopReason::LlmBadResponse,
                ProviderError::BadRequest(_) | ProviderError::Unsupported { .. } => {
                    StopReason::LlmBadRequest
                }
                ProviderError::UnexpectedStatus(_) => StopReason::LlmUnexpectedStatus,
            },
        }
    }

    /// The words of an error worth showing the user.
    pub(crate) fn message(&self) -> Option<String> {
        match self {
            CallError::OutOfTime(m) | CallError::OutputCut(m) => Some(m.clone()),
            CallError::Refused(words) => Some(format!("the model refused: {words}")),
            CallError::Provider(ProviderError::Timeout) => None,
            CallError::Provider(error) => Some(error.to_string()),
            _ => None,
        }
    }

    /// How the attempt failed, as far as retrying goes: only a timeout, a
    /// scripted failure and an endpoint that is down or rate limiting may
    /// pass on another try.
    pub(super) fn failure(&self) -> Failure {
        match self {
            CallError::Timeout
            | CallError::Provider(ProviderError::Timeout | ProviderError::TimedOutWriting { .. }) => {
                Failure::Timeout
            }
            CallError::Provider(ProviderError::Failed(_)) => Failure::Transient,
            CallError::Provider(ProviderError::Unavailable { retry_after, .. }) => {
                Failure::Unavailable {
                    retry_after: *retry_after,
                }
            }
            CallError::Cancelled
            | CallError::Rejected(_)
            | CallError::Cut
            | CallError::OutOfTime(_)
            | CallError::OutputCut(_)
            | CallError::Refused(_)
            | CallError::Provider(_) => Failure::Permanent,
        }
    }

    /// The wait the endpoint asked for, when it did.
    pub(super) fn retry_after(&self) -> Option<Duration> {
        match self {
            CallError::Provider(ProviderError::Unavailable { retry_after, .. }) => *retry_after,
            _ => None,
        }
    }

    pub(super) fn from_provider(error: ProviderError) -> Self {
        match error {
            ProviderError::Timeout => CallError::Timeout,
            other => CallError::Provider(other),
        }
    }
}
