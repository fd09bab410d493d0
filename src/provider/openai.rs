//! The OpenAI-compatible chat-completions provider: OpenAI itself or a local
//! server (Ollama, vLLM, llama.cpp). One request per call; it classifies
//! what went wrong (timeout, rate limit, server error, refused key, a body
//! that is not a chat completion) and leaves retrying to the gateway. The
//! API key comes only from the environment and never appears in an error,
//! a log line or a `Debug` print.

use super::prompts::{PromptError, Prompts};
use super::{ModelOutput, ModelRequest};
use crate::scenario::{ProviderSpec, Scenario};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub const KEY_VARIABLE: &str = "OPENAI_API_KEY";
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_MODEL: &str = "gpt-4.1-mini";
pub const DEFAULT_TIMEOUT_SECONDS: f64 = 60.0;

/// An API key. It prints as `***` however it is printed.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: String) -> Self {
        ApiKey(key)
    }

    fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced.
    fn scrub(&self, text: &str) -> String {
        if self.0.is_empty() {
            text.to_string()
        } else {
            text.replace(&self.0, "***")
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Where and how to call the model.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenAiConfig {
    pub base_url: String,
    pub model: String,
    pub timeout: Duration,
    pub key: Option<ApiKey>,
}

/// What the command line may set over the scenario and the environment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    pub model: Option<String>,
    pub base_url: Option<String>,
}

impl OpenAiConfig {
    /// The settings for a run: the command line over the scenario's
    /// `provider` section over the environment over the defaults. The key
    /// only ever comes from the environment.
    pub fn resolve(
        spec: &ProviderSpec,
        overrides: &Overrides,
        env: impl Fn(&str) -> Option<String>,
    ) -> Self {
        let base_url = overrides
            .base_url
            .clone()
            .or_else(|| spec.base_url.clone())
            .or_else(|| env("OPENAI_BASE_URL"))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        let model = overrides
            .model
            .clone()
            .or_else(|| spec.model.clone())
            .or_else(|| env("OPENAI_MODEL"))
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let seconds = spec
            .timeout_seconds
            .or_else(|| env("OPENAI_TIMEOUT_SECONDS").and_then(|s| s.trim().parse().ok()))
            .filter(|s: &f64| s.is_finite() && *s > 0.0)
            .unwrap_or(DEFAULT_TIMEOUT_SECONDS);
        OpenAiConfig {
            base_url: base_url.trim_end_matches('/').to_string(),
            model,
            timeout: Duration::from_secs_f64(seconds),
            key: env(KEY_VARIABLE)
                .filter(|k| !k.trim().is_empty())
                .map(ApiKey::new),
        }
    }

    fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }
}

/// What went wrong with one call.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OpenAiError {
    #[error("the model did not answer within {0:?}")]
    Timeout(Duration),
    #[error("cannot reach {url}: {message}")]
    Unreachable { url: String, message: String },
    #[error("the endpoint is rate limiting (HTTP 429)")]
    RateLimited { retry_after: Option<Duration> },
    #[error("the endpoint failed (HTTP {status})")]
    Server {
        status: u16,
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
    #[error("the endpoint refused the request (HTTP {status}): {message}")]
    Refused { status: u16, message: String },
    #[error(transparent)]
    Prompt(#[from] PromptError),
}

impl OpenAiError {
    /// Whether trying again later may help (the gateway decides whether to).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            OpenAiError::Timeout(_)
                | OpenAiError::Unreachable { .. }
                | OpenAiError::RateLimited { .. }
                | OpenAiError::Server { .. }
        )
    }

    /// How long the endpoint asked to wait before the next try.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            OpenAiError::RateLimited { retry_after } | OpenAiError::Server { retry_after, .. } => {
                *retry_after
            }
            _ => None,
        }
    }
}

/// Tokens a call used, as the endpoint counted them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
}

/// One answer: the model's text and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub output: ModelOutput,
    pub usage: Option<Usage>,
}

#[derive(Debug)]
pub struct OpenAiProvider {
    client: reqwest::Client,
    config: OpenAiConfig,
    prompts: Prompts,
    scenario: Arc<Scenario>,
}

impl OpenAiProvider {
    pub fn new(
        config: OpenAiConfig,
        prompts: Prompts,
        scenario: Arc<Scenario>,
    ) -> Result<Self, OpenAiError> {
        install_crypto();
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|e| OpenAiError::Unreachable {
                url: config.endpoint(),
                message: e.to_string(),
            })?;
        Ok(OpenAiProvider {
            client,
            config,
            prompts,
            scenario,
        })
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    pub async fn complete(&self, request: &ModelRequest) -> Result<Completion, OpenAiError> {
        let url = self.config.endpoint();
        if self.config.key.is_none() && self.config.base_url == DEFAULT_BASE_URL {
            return Err(OpenAiError::NoKey { url });
        }
        let system = self.prompts.system(&self.scenario, &request.purpose)?;
        let mut body = json!({
            "model": self.config.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system.text},
                {"role": "user", "content": crate::pycompat::py_json_dumps(&request.payload)},
            ],
        });
        if system.json {
            body["response_format"] = json!({"type": "json_object"});
        }
        let mut call = self.client.post(&url).json(&body);
        if let Some(key) = &self.config.key {
            call = call.bearer_auth(key.expose());
        }
        let response = call.send().await.map_err(|e| self.transport_error(&e))?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let text = response
            .text()
            .await
            .map_err(|e| self.transport_error(&e))?;
        match status {
            StatusCode::OK => parse_completion(&text),
            StatusCode::TOO_MANY_REQUESTS => Err(OpenAiError::RateLimited { retry_after }),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(OpenAiError::Auth {
                status: status.as_u16(),
                url,
            }),
            s if s.is_server_error() => Err(OpenAiError::Server {
                status: s.as_u16(),
                retry_after,
            }),
            s => Err(OpenAiError::Refused {
                status: s.as_u16(),
                message: self.scrub(&excerpt(&text)),
            }),
        }
    }

    fn transport_error(&self, error: &reqwest::Error) -> OpenAiError {
        if error.is_timeout() {
            OpenAiError::Timeout(self.config.timeout)
        } else {
            OpenAiError::Unreachable {
                url: self.config.endpoint(),
                message: self.scrub(&error.to_string()),
            }
        }
    }

    fn scrub(&self, text: &str) -> String {
        match &self.config.key {
            Some(key) => key.scrub(text),
            None => text.to_string(),
        }
    }
}

/// rustls needs one process-wide crypto provider; ring is the one built in.
fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// `Retry-After` in seconds (or `retry-after-ms`, which some servers send).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let read = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    read("retry-after-ms")
        .map(|ms| ms / 1000.0)
        .or_else(|| read("retry-after"))
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Duration::from_secs_f64(s.min(3600.0)))
}

fn excerpt(text: &str) -> String {
    let text: String = text.chars().take(300).collect();
    crate::sanitize::clean(&text).into_owned()
}

/// The model's text and the usage out of a chat-completion body.
fn parse_completion(text: &str) -> Result<Completion, OpenAiError> {
    let body: Value = serde_json::from_str(text)
        .map_err(|e| OpenAiError::BadResponse(format!("not JSON ({e})")))?;
    let message = body
        .pointer("/choices/0/message")
        .ok_or_else(|| OpenAiError::BadResponse("no choices[0].message".into()))?;
    let content = match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => {
            return Err(OpenAiError::BadResponse(format!(
                "the message content is {other}"
            )));
        }
    };
    let usage = body.get("usage").map(|u| Usage {
        input: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        output: u
            .get("completion_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    });
    Ok(Completion {
        output: ModelOutput::Text(content),
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Purpose;
    use wiremock::matchers::{body_partial_json, header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const KEY: &str = "sk-test-3f9c1e77a0d24b5b8c6e";

    fn scenario() -> Arc<Scenario> {
        Arc::new(
            serde_json::from_value(json!({
                "name": "t", "pattern": "collaboration", "goal": "g", "context": {},
                "team": {"roles": {"risk_analyst": {"focus": "payments"}}, "sequence": ["risk_analyst"]},
                "provider": {"kind": "openai"}
            }))
            .unwrap(),
        )
    }

    fn provider(server: &MockServer, timeout: Duration) -> OpenAiProvider {
        let config = OpenAiConfig {
            base_url: format!("{}/v1", server.uri()),
            model: "test-model".into(),
            timeout,
            key: Some(ApiKey::new(KEY.into())),
        };
        OpenAiProvider::new(config, Prompts::default(), scenario()).unwrap()
    }

    fn contribution() -> ModelRequest {
        ModelRequest {
            purpose: Purpose::Contribution {
                role: "risk_analyst".into(),
            },
            payload: json!({"goal": "Decide."}),
        }
    }

    fn completion(content: &str) -> Value {
        json!({"choices": [{"message": {"role": "assistant", "content": content}}],
               "usage": {"prompt_tokens": 120, "completion_tokens": 30}})
    }

    #[test]
    fn settings_come_from_the_command_line_then_the_scenario_then_the_environment() {
        let spec: ProviderSpec =
            serde_json::from_value(json!({"kind": "openai", "model": "from-scenario"})).unwrap();
        let env = |name: &str| match name {
            "OPENAI_MODEL" => Some("from-env".to_string()),
            "OPENAI_BASE_URL" => Some("http://localhost:11434/v1/".to_string()),
            "OPENAI_TIMEOUT_SECONDS" => Some("12.5".to_string()),
            KEY_VARIABLE => Some(KEY.to_string()),
            _ => None,
        };
        let config = OpenAiConfig::resolve(&spec, &Overrides::default(), env);
        assert_eq!(config.model, "from-scenario");
        assert_eq!(config.base_url, "http://localhost:11434/v1");
        assert_eq!(config.timeout, Duration::from_millis(12_500));
        let overrides = Overrides {
            model: Some("from-flag".into()),
            base_url: None,
        };
        assert_eq!(
            OpenAiConfig::resolve(&spec, &overrides, env).model,
            "from-flag"
        );
        let bare = OpenAiConfig::resolve(&spec, &Overrides::default(), |_| None);
        assert_eq!(
            (bare.base_url.as_str(), bare.timeout),
            (DEFAULT_BASE_URL, Duration::from_secs(60))
        );
        assert_eq!(bare.key, None);
        assert_eq!(
            format!("{config:?}").matches(KEY).count(),
            0,
            "the key never prints"
        );
    }

    #[tokio::test]
    async fn a_completion_carries_the_text_and_the_tokens() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .and(header("authorization", format!("Bearer {KEY}").as_str()))
            .and(body_partial_json(
                json!({"model": "test-model", "temperature": 0,
                                           "response_format": {"type": "json_object"}}),
            ))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(completion("{\"stance\": \"go\"}")),
            )
            .expect(1)
            .mount(&server)
            .await;
        let answer = provider(&server, Duration::from_secs(5))
            .complete(&contribution())
            .await
            .unwrap();
        assert_eq!(
            answer.output,
            ModelOutput::Text("{\"stance\": \"go\"}".into())
        );
        assert_eq!(
            answer.usage,
            Some(Usage {
                input: 120,
                output: 30
            })
        );
    }

    #[tokio::test]
    async fn failures_are_told_apart() {
        let cases = [
            (
                ResponseTemplate::new(429).insert_header("retry-after", "2"),
                "rate",
            ),
            (ResponseTemplate::new(503), "server"),
            (
                ResponseTemplate::new(401).set_body_string(format!("bad key {KEY}")),
                "auth",
            ),
            (
                ResponseTemplate::new(200).set_body_string("<html>gateway</html>"),
                "bad",
            ),
            (
                ResponseTemplate::new(200).set_body_json(json!({"id": "x"})),
                "bad",
            ),
            (
                ResponseTemplate::new(400)
                    .set_body_string(format!("{{\"error\": \"unknown model, key {KEY}\"}}")),
                "refused",
            ),
            (
                ResponseTemplate::new(200)
                    .set_delay(Duration::from_secs(3))
                    .set_body_json(completion("{}")),
                "timeout",
            ),
        ];
        for (response, want) in cases {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .respond_with(response)
                .mount(&server)
                .await;
            let error = provider(&server, Duration::from_millis(500))
                .complete(&contribution())
                .await
                .unwrap_err();
            let kind = match &error {
                OpenAiError::RateLimited { retry_after } => {
                    assert_eq!(*retry_after, Some(Duration::from_secs(2)));
                    "rate"
                }
                OpenAiError::Server { status: 503, .. } => "server",
                OpenAiError::Auth { status: 401, .. } => "auth",
                OpenAiError::BadResponse(_) => "bad",
                OpenAiError::Refused { status: 400, .. } => "refused",
                OpenAiError::Timeout(_) => "timeout",
                other => panic!("unexpected {other:?}"),
            };
            assert_eq!(kind, want);
            assert!(!error.to_string().contains(KEY), "{error}");
            assert_eq!(
                error.is_transient(),
                matches!(want, "rate" | "server" | "timeout")
            );
        }
    }

    #[tokio::test]
    async fn the_public_endpoint_without_a_key_names_the_variable() {
        let config = OpenAiConfig {
            base_url: DEFAULT_BASE_URL.into(),
            model: DEFAULT_MODEL.into(),
            timeout: Duration::from_secs(1),
            key: None,
        };
        let error = OpenAiProvider::new(config, Prompts::default(), scenario())
            .unwrap()
            .complete(&contribution())
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("OPENAI_API_KEY is not set"),
            "{error}"
        );
    }
}
