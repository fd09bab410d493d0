//! Where and how the HTTP provider calls the model: the command line over
//! the scenario's `provider` section over the environment over the
//! defaults, each value checked before a run starts. A value that cannot
//! work (a base URL that is no http(s) URL, a timeout that is no duration,
//! a body cap that is no size) is refused here, naming where it came from,
//! rather than retried at every call. The key only ever comes from the
//! environment; it is registered with the scrubber the moment it is read.

use crate::provider::http::{self, MaxBodyError};
use crate::provider::output::temperature_for;
use crate::scenario::{OutputMode, ProviderKind, ProviderSpec};
use std::fmt;
use std::time::Duration;

pub(crate) const KEY_VARIABLE: &str = "OPENAI_API_KEY";
pub(crate) const BASE_URL_VARIABLE: &str = "OPENAI_BASE_URL";
pub(crate) const MODEL_VARIABLE: &str = "OPENAI_MODEL";
pub(crate) const TIMEOUT_VARIABLE: &str = "OPENAI_TIMEOUT_SECONDS";
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub(crate) const DEFAULT_MODEL: &str = "gpt-4.1-mini";
pub(crate) const DEFAULT_TIMEOUT_SECONDS: f64 = 60.0;

/// An API key. It prints as `***` however it is printed.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ApiKey(String);

impl ApiKey {
    /// The key, registered with the process's scrubber.
    pub(crate) fn new(key: String) -> Self {
        crate::secrets::register(&key);
        ApiKey(key)
    }

    pub(super) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Where and how to call the model.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OpenAiConfig {
    pub(crate) base_url: String,
    pub(crate) model: String,
    pub(crate) timeout: Duration,
    /// Where the timeout came from, for the words of a call that ran
    /// out of it.
    pub(crate) timeout_origin: Origin,
    pub(crate) key: Option<ApiKey>,
    /// The largest response body read (`CONCLAVE_MAX_BODY_BYTES`), and
    /// the largest stream.
    pub(crate) max_body_bytes: usize,
    /// Ask for the answer as a stream of chunks (`"stream": true`).
    pub(crate) stream: bool,
    /// How each request asks for its answer.
    pub(crate) asking: AskingSettings,
}

/// How requests ask for their answers, as the scenario sets it up for
/// the model: the run's output policy starts from these.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AskingSettings {
    pub(crate) output: OutputMode,
    /// How many times an answer that fails its contract is asked for
    /// again.
    pub(crate) output_retries: u32,
    /// None: no temperature is sent.
    pub(crate) temperature: Option<f64>,
    pub(crate) max_output_tokens: Option<u64>,
    pub(crate) reasoning_effort: Option<String>,
}

impl AskingSettings {
    /// The settings of `spec` for `model`.
    pub(crate) fn of(spec: &ProviderSpec, model: &str) -> Self {
        AskingSettings {
            output: spec.output.unwrap_or_default(),
            output_retries: spec.output_retries(ProviderKind::Openai),
            temperature: temperature_for(model, spec.temperature),
            max_output_tokens: spec.max_output_tokens,
            reasoning_effort: spec.reasoning_effort.clone(),
        }
    }
}

impl Default for AskingSettings {
    /// What a scenario that sets none of them asks a model that is not a
    /// reasoning model.
    fn default() -> Self {
        AskingSettings {
            output: OutputMode::Auto,
            output_retries: 1,
            temperature: Some(0.0),
            max_output_tokens: None,
            reasoning_effort: None,
        }
    }
}

/// What the command line may set over the scenario and the environment.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Overrides {
    pub(crate) model: Option<String>,
    pub(crate) base_url: Option<String>,
    /// `--no-stream`: one whole answer per call, whatever the scenario says.
    pub(crate) no_stream: bool,
    /// `--call-timeout`: named as the origin of the timeout it gives (the
    /// scenario's section the endpoint reads has it in place already).
    pub(crate) call_timeout: Option<f64>,
}

/// Where a setting came from, as a user would name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// An option on the command line, e.g. `--base-url`.
    Flag(&'static str),
    /// A field of the scenario's `provider` section.
    Scenario(&'static str),
    /// An environment variable.
    Env(&'static str),
    /// Conclave's own default.
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag(flag) => f.write_str(flag),
            Origin::Scenario(field) => write!(f, "the scenario's provider.{field}"),
            Origin::Env(variable) => write!(f, "the environment variable {variable}"),
            Origin::Default => f.write_str("the default"),
        }
    }
}

/// A setting the HTTP provider cannot run with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("{origin}: {BASE_URL_EXPECTED}; found {found:?} ({problem})")]
    BaseUrl {
        origin: Origin,
        found: String,
        problem: String,
    },
    #[error(
        "{origin}: expected a number of seconds above 0 and at most one week, such as 60; found {found} ({problem})"
    )]
    Timeout {
        origin: Origin,
        found: String,
        problem: String,
    },
    #[error(transparent)]
    MaxBody(#[from] MaxBodyError),
}

impl OpenAiConfig {
    /// The settings for a run: the command line over the scenario's
    /// `provider` section over the environment over the defaults. Blank
    /// environment variables count as unset.
    pub(crate) fn resolve(
        spec: &ProviderSpec,
        overrides: &Overrides,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let env = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let key = env(KEY_VARIABLE).map(ApiKey::new);
        let (base_url, origin) = if let Some(url) = &overrides.base_url {
            (url.clone(), Origin::Flag("--base-url"))
        } else if let Some(url) = &spec.base_url {
            (url.clone(), Origin::Scenario("base_url"))
        } else if let Some(url) = env(BASE_URL_VARIABLE) {
            (url, Origin::Env(BASE_URL_VARIABLE))
        } else {
            (DEFAULT_BASE_URL.to_string(), Origin::Default)
        };
        let base_url = checked_base_url(&base_url, origin)?;
        let model = overrides
            .model
            .clone()
            .or_else(|| spec.model.clone())
            .or_else(|| env(MODEL_VARIABLE))
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let (timeout, timeout_origin) = match (spec.timeout_seconds, env(TIMEOUT_VARIABLE)) {
            (Some(seconds), _) => {
                let origin = if overrides.call_timeout.is_some() {
                    Origin::Flag("--call-timeout")
                } else {
                    Origin::Scenario("timeout_seconds")
                };
                (
                    checked_timeout(seconds, &seconds.to_string(), origin)?,
                    origin,
                )
            }
            (None, Some(text)) => {
                let origin = Origin::Env(TIMEOUT_VARIABLE);
                let seconds = text
                    .trim()
                    .parse::<f64>()
                    .map_err(|_| ConfigError::Timeout {
                        origin,
                        found: quoted(&text),
                        problem: "not a number".into(),
                    })?;
                (checked_timeout(seconds, &quoted(&text), origin)?, origin)
            }
            (None, None) => (
                Duration::from_secs_f64(DEFAULT_TIMEOUT_SECONDS),
                Origin::Default,
            ),
        };
        Ok(OpenAiConfig {
            base_url,
            timeout,
            timeout_origin,
            key,
            max_body_bytes: http::max_body_bytes(env)?,
            // Streaming is the default: the dashboard shows the text as it
            // is written, and an endpoint that does not stream still answers.
            stream: !overrides.no_stream && spec.stream.unwrap_or(true),
            asking: AskingSettings::of(spec, &model),
            model,
        })
    }

    pub(super) fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }

    /// What a call that got no answer within the timeout stops with: how
    /// long it waited, where that came from and the flag that raises it.
    pub(crate) fn timeout_words(&self) -> String {
        format!(
            "the model gave no answer within {} s, the timeout per call ({}); a slow model may need longer: raise it with --call-timeout SECONDS",
            crate::duration::seconds_text(self.timeout),
            self.timeout_from()
        )
    }

    /// What a call whose timeout ran out while the model was still
    /// writing stops with: that it was writing, how much had come, and the
    /// text so far (`so_far`, already in words).
    pub(crate) fn timeout_writing_words(&self, pieces: u64, so_far: &str) -> String {
        format!(
            "the model was still writing when the timeout per call ran out after {} s ({}): {} had come, not a whole answer; {so_far}; a slow model may need longer: raise it with --call-timeout SECONDS",
            crate::duration::seconds_text(self.timeout),
            self.timeout_from(),
            crate::words::plural(pieces, "piece")
        )
    }

    fn timeout_from(&self) -> String {
        match self.timeout_origin {
            Origin::Default => "the default".to_string(),
            origin => origin.to_string(),
        }
    }
}

fn checked_base_url(text: &str, origin: Origin) -> Result<String, ConfigError> {
    base_url(text).map_err(|problem| ConfigError::BaseUrl {
        origin,
        found: shown(text),
        problem,
    })
}

/// `text` as a base URL requests can go to: http or https, a host, no
/// query or fragment (the endpoint's path is appended to it); without its
/// trailing slashes. Else what is wrong with it.
pub fn base_url(text: &str) -> Result<String, String> {
    let trimmed = text.trim();
    let url = reqwest::Url::parse(trimmed).map_err(|e| e.to_string())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("the scheme is {}", shown(url.scheme())));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("no host".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("a query or fragment cannot take the /chat/completions path after it".into());
    }
    Ok(trimmed.trim_end_matches('/').to_string())
}

/// What `--base-url` expects, for the command line's own check.
pub const BASE_URL_EXPECTED: &str =
    "expected an http:// or https:// URL with a host, such as http://localhost:11434/v1";

fn checked_timeout(seconds: f64, found: &str, origin: Origin) -> Result<Duration, ConfigError> {
    let refuse = |problem: String| ConfigError::Timeout {
        origin,
        found: found.to_string(),
        problem,
    };
    match crate::duration::from_seconds(seconds) {
        Ok(timeout) if timeout.is_zero() => Err(refuse("a call could never finish".into())),
        Ok(timeout) => Ok(timeout),
        Err(e) => Err(refuse(e.to_string())),
    }
}

/// A value as an error may show it: scrubbed, stripped of control
/// characters and cut short.
fn shown(text: &str) -> String {
    let text: String = text.chars().take(200).collect();
    crate::sanitize::clean(&crate::secrets::scrub(&text)).into_owned()
}

fn quoted(text: &str) -> String {
    format!("{:?}", shown(text))
}
