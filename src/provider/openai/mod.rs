//! The OpenAI-compatible chat-completions provider: OpenAI itself or a local
//! server (Ollama, vLLM, llama.cpp). One request per call, its answer
//! streamed (`stream`, handed on as it comes) or whole; it classifies what
//! went wrong (timeout, rate limit, server error, refused key, refused
//! request, a status it does not expect, a body that is not a chat
//! completion, a stream that breaks off, a body too large) and leaves
//! retrying and publishing to the gateway. Every
//! byte it takes in is scrubbed of secrets before anything else sees it:
//! the model's text and the endpoint's words in an error alike; and every
//! prompt it sends is scrubbed too. The API key never appears in an error,
//! a log line or a `Debug` print.

mod answer;
pub(crate) mod config;
mod estimate;
mod overflow;
pub mod probe;
mod profile;
mod request;
mod stream;
#[cfg(test)]
mod tests;
mod transport;
mod whole;

pub(crate) use transport::cause as transport_cause;
pub(crate) use whole::usage_of;
use whole::{parse_completion, reasoning_of};
mod unsupported;

pub use config::{BASE_URL_EXPECTED, base_url};
pub(crate) use config::{
    DEFAULT_BASE_URL, DEFAULT_MODEL, KEY_VARIABLE, MODEL_VARIABLE, OpenAiConfig, Overrides,
};
pub use profile::EndpointProfile;

use super::http::{self, BodyError};
use super::output::{Feature, OutputPolicy};
use super::prompts::{PromptError, Prompts};
use super::{Completion, ModelRequest, TextSink};
use crate::bus::TokenUsage;
use crate::secrets;
use std::time::{Duration, SystemTime};
use stream::StreamFailure;
pub(crate) use stream::pieces_past;

/// What went wrong with one call. Every message is scrubbed of secrets.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum OpenAiError {
    #[error("the model did not answer within {0:?}")]
    Timeout(Duration),
    /// The call's timeout ran out while the model was still writing: what
    /// had come is no answer; `words` say so and quote it, `spent` is its
    /// estimate (the whole prompt in, the pieces that came out).
    #[error("{words}")]
    TimedOutWriting { words: String, spent: TokenUsage },
    #[error("cannot reach {url}: {message}")]
    Unreachable { url: String, message: String },
    #[error("the endpoint is rate limiting (HTTP 429)")]
    RateLimited { retry_after: Option<Duration> },
    #[error("the endpoint failed (HTTP {status}){message}")]
    Server {
        status: u16,
        /// `: ` and the start of the endpoint's words, or nothing.
        message: String,
        retry_after: Option<Duration>,
    },
    #[error(
        "the endpoint refused the credentials (HTTP {status}): set {KEY_VARIABLE} to a valid key for {url}"
    )]
    Auth { status: u16, url: String },
    #[error("{KEY_VARIABLE} is not set: export {KEY_VARIABLE}=... to call {url}")]
    NoKey { url: String },
    #[error("the endpoint's answer is not a chat completion: {0}")]
    BadResponse(String),
    /// A request that forced a function call (`tool_choice`) answered
    /// with none: the endpoint took `tools` and ignored them (a server
    /// whose chat template has no tools, or that honours only one named
    /// function). The run may ask without them, as for a refusal.
    #[error("the endpoint ignored {feature}: {said}")]
    Ignored {
        feature: Feature,
        /// What the answer did instead, with how it began.
        said: String,
        /// The answer's tokens: the endpoint generated them.
        spent: Option<TokenUsage>,
    },
    /// The server ended a streamed answer early: tried again as an
    /// endpoint that failed is (a server that interrupts a stream for
    /// another request answers the next try whole).
    #[error("{0}")]
    Interrupted(String),
    #[error(
        "the endpoint's answer is larger than {limit} bytes (raise {} to accept more)",
        http::MAX_BODY_VARIABLE
    )]
    TooLarge { limit: usize },
    /// A 4xx other than 401, 403 and 429, or a 5xx refusing a parameter
    /// the request sent: the request itself is wrong (a model the
    /// endpoint does not serve, a path that is not an endpoint).
    #[error(
        "the endpoint refused the request (HTTP {status}){message}: check the model name and the base URL"
    )]
    BadRequest { status: u16, message: String },
    /// A status that is neither a success nor a failure this provider
    /// knows (1xx, 3xx: redirects are not followed, codes past 599).
    #[error("the endpoint answered with the unexpected HTTP status {status}{message}")]
    UnexpectedStatus { status: u16, message: String },
    /// The server said the prompt does not fit the model's context.
    #[error(
        "the prompt does not fit the model's context on the server (HTTP {status}: {said}): start the server with a larger context (llama-server -c, llama-cpp-python --n_ctx) or give the run a shorter input"
    )]
    ContextOverflow {
        status: u16,
        /// The server's words, scrubbed and sanitised, at most 300
        /// characters.
        said: String,
    },
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// A 4xx, or a 5xx in words of refusal, naming a feature the request
    /// used: the run may ask without it.
    #[error("the endpoint refused {feature} (HTTP {status}): {said}")]
    Unsupported {
        status: u16,
        feature: Feature,
        /// The endpoint's words, scrubbed and sanitised, at most 300
        /// characters.
        said: String,
    },
}

#[derive(Debug)]
pub(crate) struct OpenAiProvider {
    client: reqwest::Client,
    /// A client that keeps no connection: a request that met a pooled
    /// connection the server had closed is sent again on this one, so it
    /// goes out on a connection of its own.
    fresh: reqwest::Client,
    config: OpenAiConfig,
    prompts: Prompts,
    policy: OutputPolicy,
}

impl OpenAiProvider {
    pub(crate) fn new(config: OpenAiConfig, prompts: Prompts) -> Result<Self, OpenAiError> {
        http::install_crypto();
        if let Some(key) = &config.key {
            secrets::register(key.expose());
        }
        // A redirect is reported, not followed: a chat completion posted
        // to a moved endpoint would come back as a GET elsewhere.
        let build = |idle_per_host: usize| {
            reqwest::Client::builder()
                .timeout(config.timeout)
                .redirect(reqwest::redirect::Policy::none())
                .pool_max_idle_per_host(idle_per_host)
                .build()
                .map_err(|e| OpenAiError::Unreachable {
                    url: config.endpoint(),
                    message: secrets::scrub(&e.to_string()).into_owned(),
                })
        };
        Ok(OpenAiProvider {
            client: build(usize::MAX)?,
            fresh: build(0)?,
            policy: OutputPolicy::new(config.asking.output, config.asking.temperature),
            config,
            prompts,
        })
    }

    /// The model every call asks for.
    pub(crate) fn model(&self) -> &str {
        &self.config.model
    }

    /// The endpoint's base URL as a recording may keep it: without a
    /// user or password, which are secrets.
    pub(crate) fn recordable_base_url(&self) -> String {
        recordable(&self.config.base_url)
    }

    /// How the run asks, shared by its calls.
    pub(crate) fn policy(&self) -> &OutputPolicy {
        &self.policy
    }

    pub(crate) fn output_retries(&self) -> u32 {
        self.config.asking.output_retries
    }

    /// What a call that ran out of its timeout stops with.
    pub(crate) fn timeout_words(&self) -> String {
        self.config.timeout_words()
    }

    /// The output limit every request sends (`max_output_tokens`).
    pub(crate) fn output_limit(&self) -> Option<u64> {
        self.config.asking.max_output_tokens
    }

    /// One call. With streaming on, the text goes to `text` as it arrives
    /// (when the endpoint streams at all).
    pub(crate) async fn complete(
        &self,
        request: &ModelRequest,
        text: Option<TextSink>,
    ) -> Result<Completion, OpenAiError> {
        let url = self.config.endpoint();
        if self.config.key.is_none() && self.config.base_url == DEFAULT_BASE_URL {
            return Err(OpenAiError::NoKey { url });
        }
        let system = self
            .prompts
            .system(request.prompt, request.purpose.fills())?;
        let contract = request.contract.as_deref();
        let sent = request::body(&self.config, self.policy.now(), &system, request);
        let send = |client: &reqwest::Client| {
            let call = client.post(&url).json(&sent.body);
            match &self.config.key {
                Some(key) => call.bearer_auth(key.expose()),
                None => call,
            }
            .send()
        };
        // A server may close a connection its headers kept alive (llama.cpp's
        // server does after every streamed answer); the pool hands it out
        // again and the request fails before any byte of an answer. That
        // is the pool's miss, not the endpoint's failure: the request goes
        // again at once on a connection of its own, and only what that
        // meets is the call's outcome.
        let response = match send(&self.client).await {
            Err(e) if transport::met_a_closed_connection(&e) => send(&self.fresh).await,
            sent => sent,
        }
        .map_err(|e| self.transport_error(&e))?;
        let status = response.status().as_u16();
        if response.status().is_success() {
            if self.config.stream && is_event_stream(&response) {
                let body = response.bytes_stream();
                let tokens = self.config.asking.max_output_tokens;
                let completion =
                    stream::read(body, self.config.max_body_bytes, text, contract, tokens)
                        .await
                        .map_err(|failure| match failure {
                            StreamFailure::Transport(e) => self.transport_error(&e),
                            StreamFailure::TooLarge { limit } => OpenAiError::TooLarge { limit },
                            StreamFailure::Broken(words) => OpenAiError::BadResponse(words),
                            StreamFailure::Interrupted(words) => OpenAiError::Interrupted(words),
                            StreamFailure::TimedOut { pieces, so_far } => {
                                OpenAiError::TimedOutWriting {
                                    words: self.config.timeout_writing_words(pieces, &so_far),
                                    spent: estimate::spent(&sent.body, pieces),
                                }
                            }
                        })?;
                let completion = estimate::counted(&sent.body, completion);
                return answer::called_as_forced(&sent.used, completion);
            }
            let body = http::read_capped(response, self.config.max_body_bytes)
                .await
                .map_err(|e| match e {
                    BodyError::TooLarge { limit } => OpenAiError::TooLarge { limit },
                    BodyError::Transport(e) => self.transport_error(&e),
                })?;
            let completion = estimate::counted(&sent.body, parse_completion(&body, contract)?);
            return answer::called_as_forced(&sent.used, completion);
        }
        Err(refusal(response, status, url, &sent).await)
    }

    fn transport_error(&self, error: &reqwest::Error) -> OpenAiError {
        if error.is_timeout() {
            OpenAiError::Timeout(self.config.timeout)
        } else {
            OpenAiError::Unreachable {
                url: self.config.endpoint(),
                message: secrets::scrub(&transport::cause(error)).into_owned(),
            }
        }
    }
}

/// What an answer with the failing `status` says, in the endpoint's
/// words: a prompt past the context, a refused feature or parameter, a
/// rate limit, refused credentials, a failing server, a refused request,
/// or a status no failure names (a redirect is said with where it went).
async fn refusal(
    response: reqwest::Response,
    status: u16,
    url: String,
    sent: &request::Sent,
) -> OpenAiError {
    let retry_after = http::retry_after(response.headers(), SystemTime::now());
    let location = response
        .headers()
        .get(reqwest::header::LOCATION)
        .map(|to| String::from_utf8_lossy(to.as_bytes()).into_owned());
    let body = http::read_excerpt(response, http::ERROR_EXCERPT_BYTES).await;
    if let Some(said) = overflow::context_overflow(status, &body) {
        return OpenAiError::ContextOverflow {
            status,
            said: shown(said.trim()),
        };
    }
    if let Some((feature, said)) = unsupported::refused_feature(status, &body, &sent.used) {
        return OpenAiError::Unsupported {
            status,
            feature,
            said: shown(said.trim()),
        };
    }
    let words = excerpt(&body);
    if unsupported::refuses_a_parameter(status, &body, &sent.body) {
        return OpenAiError::BadRequest {
            status,
            message: words,
        };
    }
    match status {
        429 => OpenAiError::RateLimited { retry_after },
        401 | 403 => OpenAiError::Auth { status, url },
        500..=599 => OpenAiError::Server {
            status,
            message: words,
            retry_after,
        },
        400..=499 => OpenAiError::BadRequest {
            status,
            message: words,
        },
        _ => OpenAiError::UnexpectedStatus {
            status,
            message: match location {
                Some(to) => format!(
                    " (a redirect to {}, which Conclave does not follow: give that address as the base URL)",
                    shown(&to)
                ),
                None => words,
            },
        },
    }
}

/// A base URL as a recording or a profile may keep it: without a user or
/// a password, which are secrets.
pub(crate) fn recordable(base_url: &str) -> String {
    match reqwest::Url::parse(base_url) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.as_str().trim_end_matches('/').to_string()
        }
        _ => base_url.to_string(),
    }
}

/// A text as an error may quote it: scrubbed of secrets, stripped of
/// control characters, at most 300 characters.
fn shown(text: &str) -> String {
    let text = secrets::scrub_model_text(text);
    let text: String = text.chars().take(300).collect();
    crate::sanitize::clean(&text).into_owned()
}

/// `: ` and the start of an error body, or nothing for an empty one.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = shown(text.trim());
    if text.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", text.trim())
    }
}

/// Whether the response says it is a stream of server-sent events.
fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|t| t.to_str().ok())
        .is_some_and(|t| t.to_ascii_lowercase().contains("text/event-stream"))
}
