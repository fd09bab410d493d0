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
mod overflow;
pub mod probe;
mod profile;
mod request;
mod stream;
#[cfg(test)]
mod tests;
mod transport;
mod unsupported;

pub use config::{BASE_URL_EXPECTED, base_url};
pub(crate) use config::{
    DEFAULT_BASE_URL, DEFAULT_MODEL, KEY_VARIABLE, MODEL_VARIABLE, OpenAiConfig, Overrides,
};
pub use profile::EndpointProfile;

use super::contract::Contract;
use super::http::{self, BodyError};
use super::output::{Feature, OutputPolicy};
use super::prompts::{PromptError, Prompts};
use super::{Completion, ModelOutput, ModelRequest, TextSink};
use crate::bus::TokenUsage;
use crate::secrets;
use serde_json::Value;
use std::time::{Duration, SystemTime};
use stream::StreamFailure;

/// What went wrong with one call. Every message is scrubbed of secrets.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum OpenAiError {
    #[error("the model did not answer within {0:?}")]
    Timeout(Duration),
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
        let system = self.prompts.system(request.prompt, &request.purpose)?;
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
                let mut completion =
                    stream::read(body, self.config.max_body_bytes, text, contract, tokens)
                        .await
                        .map_err(|failure| match failure {
                            StreamFailure::Transport(e) => self.transport_error(&e),
                            StreamFailure::TooLarge { limit } => OpenAiError::TooLarge { limit },
                            StreamFailure::Broken(words) => OpenAiError::BadResponse(words),
                            StreamFailure::Interrupted(words) => OpenAiError::Interrupted(words),
                        })?;
                // A stream cut for running past its limit counted only
                // what came: its prompt is estimated as the sim's is.
                if let Some(usage) = completion.usage.as_mut().filter(|u| u.estimated) {
                    usage.input = crate::provider::sim::estimate::tokens(request.payload_chars());
                }
                return called_as_forced(&sent.used, completion);
            }
            let body = http::read_capped(response, self.config.max_body_bytes)
                .await
                .map_err(|e| match e {
                    BodyError::TooLarge { limit } => OpenAiError::TooLarge { limit },
                    BodyError::Transport(e) => self.transport_error(&e),
                })?;
            return called_as_forced(&sent.used, parse_completion(&body, contract)?);
        }
        let retry_after = http::retry_after(response.headers(), SystemTime::now());
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .map(|to| String::from_utf8_lossy(to.as_bytes()).into_owned());
        let body = http::read_excerpt(response, http::ERROR_EXCERPT_BYTES).await;
        if let Some(said) = overflow::context_overflow(status, &body) {
            return Err(OpenAiError::ContextOverflow {
                status,
                said: shown(said.trim()),
            });
        }
        if let Some((feature, said)) = unsupported::refused_feature(status, &body, &sent.used) {
            return Err(OpenAiError::Unsupported {
                status,
                feature,
                said: shown(said.trim()),
            });
        }
        let words = excerpt(&body);
        if unsupported::refuses_a_parameter(status, &body, &sent.body) {
            return Err(OpenAiError::BadRequest {
                status,
                message: words,
            });
        }
        Err(match status {
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
        })
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

/// `completion`, unless the request forced a function call (tool mode
/// always does: the one function by name, or `required`) and the answer
/// made none while saying nothing of why (no refusal, not cut): the
/// endpoint ignored the tools, and the text, written without the contract
/// the functions carried, is not read as the answer.
fn called_as_forced(used: &[Feature], completion: Completion) -> Result<Completion, OpenAiError> {
    let silent = matches!(completion.finish, super::contract::Finish::Stop);
    if !used.contains(&Feature::Tools) || completion.calls > 0 || !silent {
        return Ok(completion);
    }
    let began = match &completion.output {
        ModelOutput::Text(text) if !text.trim().is_empty() => {
            let start: String = text.trim().chars().take(120).collect();
            format!("it answered in text, which began: {}", shown(&start))
        }
        _ => "it answered with no text".to_string(),
    };
    Err(OpenAiError::Ignored {
        feature: Feature::Tools,
        said: format!(
            "the request offered tools and forced a call (tool_choice), and the answer made none; {began}"
        ),
    })
}

/// A base URL as a recording or a profile may keep it: without a user or
/// a password, which are secrets.
fn recordable(base_url: &str) -> String {
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

/// The model's text (scrubbed), why it stopped and the usage out of a
/// chat-completion body answering a request for `contract`.
fn parse_completion(body: &[u8], contract: Option<&Contract>) -> Result<Completion, OpenAiError> {
    let body: Value = serde_json::from_slice(body)
        .map_err(|e| OpenAiError::BadResponse(format!("not JSON ({e})")))?;
    let message = body
        .pointer("/choices/0/message")
        .filter(|message| message.is_object())
        .ok_or_else(|| OpenAiError::BadResponse("no choices[0].message object".into()))?;
    let content = match message.get("content") {
        Some(Value::String(text)) => secrets::scrub_model_text(text).into_owned(),
        Some(Value::Null) | None => String::new(),
        Some(Value::Array(parts)) if parts.iter().all(is_text_part) => {
            // Joined first: a secret split across parts is still one run.
            let text: String = parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect();
            secrets::scrub_model_text(&text).into_owned()
        }
        Some(other) => {
            let mut other = other.clone();
            secrets::scrub_json(&mut other);
            return Err(OpenAiError::BadResponse(format!(
                "the message content is not text but {}",
                shown(&other.to_string())
            )));
        }
    };
    let usage = body.get("usage").map(usage_of);
    let extras = answer::Extras::of_choice(&body["choices"][0]);
    let calls = extras.calls();
    let (text, finish) = extras.finish(content, contract);
    Ok(Completion {
        calls,
        usage,
        reasoning: reasoning_of(message)
            .filter(|text| !text.is_empty())
            .map(|text| secrets::scrub_model_text(text).into_owned()),
        finish,
        ..Completion::from(ModelOutput::Text(text))
    })
}

/// The reasoning text of a message or a stream's delta, as the servers
/// that send it name it: `reasoning_content` (DeepSeek, vLLM, llama.cpp)
/// or `reasoning` (Ollama, OpenRouter). Anything but text is not read:
/// reasoning is shown and kept, never needed for the answer.
fn reasoning_of(message: &Value) -> Option<&str> {
    ["reasoning_content", "reasoning"]
        .into_iter()
        .find_map(|key| message.get(key).and_then(Value::as_str))
}

/// The tokens a `usage` object counts (absent counts read as 0), with
/// the cached part of the prompt (`prompt_tokens_details.cached_tokens`)
/// and the reasoning part of the completion
/// (`completion_tokens_details.reasoning_tokens`), each held at the count
/// it is a part of. A count past the
/// largest (2^64 − 1, which JSON can write) is held there rather than read
/// as none; the run's usage then says it is held.
fn usage_of(usage: &Value) -> TokenUsage {
    let count = |pointer: &str| {
        usage.pointer(pointer).map_or(0, |n| {
            n.as_u64()
                .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
                .unwrap_or(0)
        })
    };
    let (input, output) = (count("/prompt_tokens"), count("/completion_tokens"));
    TokenUsage {
        input,
        output,
        cached: count("/prompt_tokens_details/cached_tokens").min(input),
        reasoning: count("/completion_tokens_details/reasoning_tokens").min(output),
        ..TokenUsage::default()
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

/// A part of a content list that holds text (`{"type": "text", "text": …}`),
/// as some OpenAI-compatible servers answer.
fn is_text_part(part: &Value) -> bool {
    part.get("type").is_none_or(|t| t == "text") && part.get("text").is_some_and(Value::is_string)
}
