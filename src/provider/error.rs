//! How a model call failed, as the gateway sees it: the provider's own
//! errors (an endpoint's included) told apart by what the gateway does
//! about them, their words scrubbed of secrets.

use super::OpenAiError;
use super::output::Feature;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProviderError {
    #[error("the model did not answer in time")]
    Timeout,
    /// The endpoint is down or rate limiting: trying later may work, after
    /// `retry_after` when it said so.
    #[error("{message}")]
    Unavailable {
        message: String,
        retry_after: Option<Duration>,
    },
    /// The endpoint refused the credentials; the message says what to fix.
    #[error("{0}")]
    Auth(String),
    /// The endpoint answered with something that is not a chat completion
    /// (or a body past the size cap).
    #[error("{0}")]
    BadResponse(String),
    /// The endpoint refused the request itself (a 4xx other than 401, 403
    /// and 429): trying again cannot help.
    #[error("{0}")]
    BadRequest(String),
    /// The endpoint answered with a status that is neither a success nor a
    /// known failure (a redirect, a 1xx, a code past 599).
    #[error("{0}")]
    UnexpectedStatus(String),
    #[error("{0}")]
    Failed(String),
    /// The endpoint refused a feature of the request by name (a 400 or
    /// 422): the run may ask again without it (`Provider::adapt`).
    #[error("the endpoint refused {feature}: {said}")]
    Unsupported {
        feature: Feature,
        /// The endpoint's words: scrubbed, sanitised, at most 300
        /// characters.
        said: String,
    },
}

impl From<OpenAiError> for ProviderError {
    /// The words of the error, scrubbed once more on their way out of the
    /// provider (they hold the endpoint's URL and words).
    fn from(error: OpenAiError) -> Self {
        let message = crate::secrets::scrub(&error.to_string()).into_owned();
        match error {
            OpenAiError::Timeout(_) => ProviderError::Timeout,
            OpenAiError::RateLimited { retry_after } | OpenAiError::Server { retry_after, .. } => {
                ProviderError::Unavailable {
                    message,
                    retry_after,
                }
            }
            OpenAiError::Unreachable { .. } | OpenAiError::Interrupted(_) => {
                ProviderError::Unavailable {
                    message,
                    retry_after: None,
                }
            }
            OpenAiError::Auth { .. } | OpenAiError::NoKey { .. } => ProviderError::Auth(message),
            OpenAiError::BadResponse(_) | OpenAiError::TooLarge { .. } => {
                ProviderError::BadResponse(message)
            }
            OpenAiError::BadRequest { .. } | OpenAiError::ContextOverflow { .. } => {
                ProviderError::BadRequest(message)
            }
            OpenAiError::UnexpectedStatus { .. } => ProviderError::UnexpectedStatus(message),
            OpenAiError::Prompt(_) => ProviderError::Failed(message),
            OpenAiError::Unsupported { feature, said, .. } => {
                ProviderError::Unsupported { feature, said }
            }
            OpenAiError::Ignored { feature, said } => ProviderError::Unsupported {
                feature,
                said: format!("ignored: {said}"),
            },
        }
    }
}
