//! The OpenAI-compatible endpoint other frameworks' programs call, as the
//! gateway sees it: which run and which API a path names, what a run's
//! endpoint is given (its upstream, the variable holding the key, its
//! budgets), and the parts each call passes through (`prepare`, `spend`,
//! `stream`). Serving it on a listener is the watch's concern.

mod answer;
mod cassette;
mod edited;
mod forwarded;
mod prepare;
mod report;
mod request_hash;
mod restream;
mod serve;
mod served;
mod spend;
mod stream;
#[cfg(test)]
mod tests;
mod whole;

pub(crate) use cassette::{EndpointCassette, ForkPoint, check_answer};
pub(crate) use edited::EditedAnswer;
pub(crate) use forwarded::Forwarded;
#[cfg(test)]
pub(crate) use prepare::prepare;
pub(crate) use prepare::{prepare_hashed, usage_of_answer};
#[cfg(test)]
pub(crate) use report::RecordedAnswer;
pub(crate) use report::{EndpointCall, REPORTS_QUEUE, Report};
pub(crate) use serve::Endpoints;
pub(crate) use serve::MAX_REQUEST;
pub(crate) use served::{Served, ServedBody};
pub(crate) use spend::{Over, RunSpend};
pub(crate) use stream::StreamMeter;
pub(crate) use whole::whole_of;

use crate::scenario::PriceTable;

/// Every path of the endpoint starts so: `/gateway/<run>/v1/…`.
pub(crate) const PREFIX: &str = "/gateway/";
/// The variable the upstream's key is read from unless
/// `--upstream-key-env` names another.
pub(crate) const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";
/// The longest run name a path may carry.
const MAX_RUN_NAME: usize = 128;

/// What one run's endpoint is given: filled from `conclave watch`'s flags,
/// or by a launch for its own run.
#[derive(Clone, Debug, Default)]
pub struct EndpointConfig {
    /// The upstream's base URL, up to and with its `/v1`.
    pub upstream: String,
    /// The variable holding the upstream's key (never the key itself: it
    /// is read at each call and goes nowhere but the upstream's header).
    pub key_env: String,
    pub budgets: Budgets,
    /// `--pricing`: prices over the compiled-in list.
    pub pricing: Option<PriceTable>,
}

/// A run's budgets; none set is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budgets {
    /// `--max-tokens`: input and output tokens of every call.
    pub max_tokens: Option<u64>,
    /// `--max-cost`: US dollars, priced with the pricing table.
    pub max_cost_usd: Option<f64>,
    /// `--max-calls`: calls sent upstream.
    pub max_calls: Option<u64>,
}

impl EndpointConfig {
    /// The upstream's key, read now from its variable; `None` when unset
    /// or empty (the call then goes without an Authorization header).
    pub(crate) fn key(&self) -> Option<UpstreamKey> {
        let name = if self.key_env.is_empty() {
            DEFAULT_KEY_ENV
        } else {
            &self.key_env
        };
        std::env::var(name)
            .ok()
            .filter(|key| !key.is_empty())
            .map(UpstreamKey)
    }
}

/// The upstream's key: it prints as `[redacted]`, so that no log or
/// debug line can carry it.
pub(crate) struct UpstreamKey(String);

impl UpstreamKey {
    /// The `Authorization` header's value.
    pub(crate) fn bearer(&self) -> String {
        format!("Bearer {}", self.0)
    }
}

impl std::fmt::Debug for UpstreamKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

/// The APIs the endpoint answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Api {
    /// `POST …/v1/chat/completions`.
    ChatCompletions,
    /// `POST …/v1/responses`.
    Responses,
    /// `GET …/v1/models`.
    Models,
}

impl Api {
    /// Its name in a recording: `chat.completions`, `responses`, `models`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Api::ChatCompletions => "chat.completions",
            Api::Responses => "responses",
            Api::Models => "models",
        }
    }

    /// The path after the upstream's base URL.
    pub(crate) fn upstream_path(self) -> &'static str {
        match self {
            Api::ChatCompletions => "/chat/completions",
            Api::Responses => "/responses",
            Api::Models => "/models",
        }
    }

    fn method(self) -> &'static str {
        match self {
            Api::ChatCompletions | Api::Responses => "POST",
            Api::Models => "GET",
        }
    }
}

/// Which run and which API a request's path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Route<'a> {
    pub(crate) run: &'a str,
    pub(crate) api: Api,
}

/// A request the endpoint answers with an error of OpenAI's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) status: u16,
    pub(crate) message: String,
}

impl Refused {
    pub(crate) fn new(status: u16, message: impl Into<String>) -> Self {
        Refused {
            status,
            message: message.into(),
        }
    }

    /// The body: `{"error": {"message", "type", "param", "code"}}`, as
    /// OpenAI's clients read an error.
    pub(crate) fn body(&self) -> Vec<u8> {
        let kind = match self.status {
            401 | 403 => "authentication_error",
            404 | 405 | 400 | 413 | 415 => "invalid_request_error",
            429 => "rate_limit_error",
            _ => "server_error",
        };
        error_body(&self.message, kind, None)
    }
}

/// An error in OpenAI's shape.
pub(crate) fn error_body(message: &str, kind: &str, code: Option<&str>) -> Vec<u8> {
    let body = serde_json::json!({"error": {
        "message": message, "type": kind, "param": null, "code": code,
    }});
    body.to_string().into_bytes()
}

/// The run and API of `path` asked with `method`: a 404 naming the paths
/// served for any other path, a 405 for another method.
pub(crate) fn route<'a>(method: &str, path: &'a str) -> Result<Route<'a>, Refused> {
    let served = "the endpoint serves /gateway/<run>/v1/chat/completions, /gateway/<run>/v1/responses and /gateway/<run>/v1/models";
    let not_found = || Refused::new(404, format!("no such path {path:?}: {served}"));
    let rest = path.strip_prefix(PREFIX).ok_or_else(not_found)?;
    let (run, api) = rest.split_once("/v1/").ok_or_else(not_found)?;
    let api = match api.trim_end_matches('/') {
        "chat/completions" => Api::ChatCompletions,
        "responses" => Api::Responses,
        "models" => Api::Models,
        _ => return Err(not_found()),
    };
    let named = |c: char| c.is_ascii_alphanumeric() || "-_.:".contains(c);
    if run.is_empty() || run.len() > MAX_RUN_NAME || !run.chars().all(named) {
        return Err(Refused::new(
            404,
            format!(
                "the run's name in {path:?} must be 1 to {MAX_RUN_NAME} letters, digits, '-', '_', '.' or ':'"
            ),
        ));
    }
    if !method.eq_ignore_ascii_case(api.method()) {
        return Err(Refused::new(
            405,
            format!(
                "{} is asked with {}, not {method}",
                api.upstream_path(),
                api.method()
            ),
        ));
    }
    Ok(Route { run, api })
}
