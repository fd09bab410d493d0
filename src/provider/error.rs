//! How a model call failed, as the gateway sees it: the provider's own
//! errors (an endpoint's included) told apart by what the gateway does
//! about them, their words scrubbed of secrets.

use super::OpenAiError;
use super::output::Feature;
use crate::bus::TokenUsage;
use std::time::Duration;

/// The tokens of an answer that came back and is not used (an answer that
/// ignored the tools its request forced, a stream its timeout cut): the
/// endpoint generated them, so the run counts them all the same.
/// `served` when a cassette gave them back, priced as they were then.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Spent {
    pub(crate) usage: TokenUsage,
    pub(crate) served: bool,
}

// A usage's cost is a product of counts and prices, never NaN.
impl Eq for Spent {}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProviderError {
    #[error("the model did not answer in time")]
    Timeout,
    /// The model was still writing when the call's timeout ran out: what
    /// had come is no answer, and the words quote it.
    #[error("{words}")]
    TimedOutWriting { words: String, spent: Spent },
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
        /// The tokens of the answer, when one came that ignored it.
        spent: Option<Spent>,
    },
}

impl ProviderError {
    /// The tokens of an answer that came back and is not used.
    pub(crate) fn spent(&self) -> Option<Spent> {
        match self {
            ProviderError::TimedOutWriting { spent, .. } => Some(*spent),
            ProviderError::Unsupported { spent, .. } => *spent,
            _ => None,
        }
    }

    /// The error with its spent tokens as the run charged them (priced).
    pub(crate) fn charged(mut self, usage: Option<TokenUsage>) -> Self {
        if let (
            ProviderError::TimedOutWriting { spent, .. }
            | ProviderError::Unsupported {
                spent: Some(spent), ..
            },
            Some(usage),
        ) = (&mut self, usage)
        {
            spent.usage = usage;
        }
        self
    }
}

impl From<OpenAiError> for ProviderError {
    /// The words of the error, scrubbed once more on their way out of the
    /// provider (they hold the endpoint's URL and words).
    fn from(error: OpenAiError) -> Self {
        let message = crate::secrets::scrub(&error.to_string()).into_owned();
        match error {
            OpenAiError::Timeout(_) => ProviderError::Timeout,
            OpenAiError::TimedOutWriting { spent, .. } => ProviderError::TimedOutWriting {
                words: message,
                spent: Spent {
                    usage: spent,
                    served: false,
                },
            },
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
            OpenAiError::Unsupported { feature, said, .. } => ProviderError::Unsupported {
                feature,
                said,
                spent: None,
            },
            OpenAiError::Ignored {
                feature,
                said,
                spent,
            } => ProviderError::Unsupported {
                feature,
                said: format!("ignored: {said}"),
                spent: spent.map(|usage| Spent {
                    usage,
                    served: false,
                }),
            },
        }
    }
}
