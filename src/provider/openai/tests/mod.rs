use super::config::{
    ApiKey, AskingSettings, BASE_URL_VARIABLE, ConfigError, DEFAULT_MODEL, TIMEOUT_VARIABLE,
};
use super::*;
use crate::bus::TokenUsage;
use crate::provider::ModelOutput;
use crate::provider::prompts::{Prompt, compiled_in};
use crate::provider::{ProviderError, Purpose};
use crate::scenario::ProviderSpec;
use serde_json::Value;
use serde_json::json;
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-test-3f9c1e77a0d24b5b8c6e";

/// A round table's analyst's call, as its pattern builds it: the prompt
/// is told the role and its focus.
fn analyst_call() -> Purpose {
    Purpose::unscripted("risk_analyst")
        .spoken_by("risk_analyst")
        .filling("role", "risk_analyst")
        .filling("focus", "payments")
}

fn provider(server: &MockServer, timeout: Duration) -> OpenAiProvider {
    provider_with(server, timeout, false)
}

/// A provider of `server`'s endpoint that asks for whole answers or for
/// streams, with the default settings otherwise.
fn provider_with(server: &MockServer, timeout: Duration, stream: bool) -> OpenAiProvider {
    let config = OpenAiConfig {
        base_url: format!("{}/v1", server.uri()),
        model: "test-model".into(),
        timeout,
        timeout_origin: crate::provider::openai::config::Origin::Default,
        key: Some(ApiKey::new(KEY.into())),
        max_body_bytes: http::DEFAULT_MAX_BODY_BYTES,
        stream,
        asking: AskingSettings::default(),
    };
    OpenAiProvider::new(config, Prompts::default()).unwrap()
}

const CONTRIBUTION_PROMPT: Prompt = compiled_in!("collaboration_contribution.md", json);

fn contribution() -> ModelRequest {
    ModelRequest::new(
        analyst_call(),
        &CONTRIBUTION_PROMPT,
        json!({"goal": "Decide."}),
    )
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
    let config = OpenAiConfig::resolve(&spec, &Overrides::default(), env).unwrap();
    assert_eq!(config.model, "from-scenario");
    assert_eq!(config.base_url, "http://localhost:11434/v1");
    assert_eq!(config.timeout, Duration::from_millis(12_500));
    let overrides = Overrides {
        model: Some("from-flag".into()),
        ..Overrides::default()
    };
    assert_eq!(
        OpenAiConfig::resolve(&spec, &overrides, env).unwrap().model,
        "from-flag"
    );
    let bare = OpenAiConfig::resolve(&spec, &Overrides::default(), |_| None).unwrap();
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
        .respond_with(ResponseTemplate::new(200).set_body_json(completion("{\"stance\": \"go\"}")))
        .expect(1)
        .mount(&server)
        .await;
    let answer = provider(&server, Duration::from_secs(5))
        .complete(&contribution(), None)
        .await
        .unwrap();
    assert_eq!(
        answer.output,
        ModelOutput::Text("{\"stance\": \"go\"}".into())
    );
    assert_eq!(
        answer.usage,
        Some(TokenUsage {
            input: 120,
            output: 30,
            ..TokenUsage::default()
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
            .complete(&contribution(), None)
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
            OpenAiError::BadRequest { status: 400, .. } => "refused",
            OpenAiError::Timeout(_) => "timeout",
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(kind, want);
        assert!(!error.to_string().contains(KEY), "{error}");
        assert_eq!(
            retried(&error),
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
        timeout_origin: crate::provider::openai::config::Origin::Default,
        key: None,
        max_body_bytes: http::DEFAULT_MAX_BODY_BYTES,
        stream: false,
        asking: AskingSettings::default(),
    };
    let error = OpenAiProvider::new(config, Prompts::default())
        .unwrap()
        .complete(&contribution(), None)
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("OPENAI_API_KEY is not set"),
        "{error}"
    );
}

fn spec(doc: Value) -> ProviderSpec {
    serde_json::from_value(doc).unwrap()
}

fn resolve_with(
    spec: &ProviderSpec,
    base_url: Option<&str>,
    vars: &[(&str, &str)],
) -> Result<OpenAiConfig, ConfigError> {
    let overrides = Overrides {
        model: None,
        base_url: base_url.map(str::to_string),
        no_stream: false,
        call_timeout: None,
    };
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    OpenAiConfig::resolve(spec, &overrides, |name| {
        vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    })
}

#[test]
fn a_malformed_base_url_is_refused_naming_where_it_came_from() {
    let bare = spec(json!({"kind": "openai"}));
    let bad = [
        "not a url",
        "ftp://example.com/v1",
        "http://[::1",
        "http://",
        "",
        "file:///tmp/x",
        "http://host/v1?x=1",
    ];
    for url in bad {
        let error = resolve_with(&bare, Some(url), &[]).unwrap_err().to_string();
        assert!(
            error.starts_with("--base-url: expected an http:// or https:// URL"),
            "{error}"
        );
        assert!(error.contains(&format!("{url:?}")), "{error}");
        let error = resolve_with(&spec(json!({"kind": "openai", "base_url": url})), None, &[])
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("the scenario's provider.base_url: expected"),
            "{error}"
        );
        if !url.is_empty() {
            let error = resolve_with(&bare, None, &[(BASE_URL_VARIABLE, url)])
                .unwrap_err()
                .to_string();
            assert!(
                error.starts_with("the environment variable OPENAI_BASE_URL: expected"),
                "{error}"
            );
        }
    }
    let error = resolve_with(&bare, Some("ftp://example.com"), &[])
        .unwrap_err()
        .to_string();
    assert!(error.contains("the scheme is ftp"), "{error}");
    for good in [
        "http://127.0.0.1:8080/v1/",
        " https://api.example.com/v1 ",
        "http://[::1]:11434/v1",
    ] {
        let config = resolve_with(&bare, Some(good), &[]).unwrap();
        assert_eq!(config.base_url, good.trim().trim_end_matches('/'));
    }
    let blank = resolve_with(&bare, None, &[(BASE_URL_VARIABLE, "  ")]).unwrap();
    assert_eq!(
        blank.base_url, DEFAULT_BASE_URL,
        "a blank variable is unset"
    );
}

#[test]
fn a_timeout_that_is_no_duration_is_refused_naming_the_variable_or_the_field() {
    let bare = spec(json!({"kind": "openai"}));
    for bad in ["1e308", "-1", "0", "NaN", "inf", "soon"] {
        let error = resolve_with(&bare, None, &[(TIMEOUT_VARIABLE, bad)])
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(
                "the environment variable OPENAI_TIMEOUT_SECONDS: expected a number of seconds"
            ),
            "{error}"
        );
        assert!(error.contains(bad), "{error}");
    }
    for bad in [1e308, 0.0, 604_801.0] {
        let error = resolve_with(
            &spec(json!({"kind": "openai", "timeout_seconds": bad})),
            None,
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with("the scenario's provider.timeout_seconds: expected"),
            "{error}"
        );
    }
    let week = resolve_with(&bare, None, &[(TIMEOUT_VARIABLE, "604800")]).unwrap();
    assert_eq!(week.timeout, crate::duration::MAX);
    let error = resolve_with(&bare, None, &[(http::MAX_BODY_VARIABLE, "lots")]).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("CONCLAVE_MAX_BODY_BYTES: expected"),
        "{error}"
    );
    let capped = resolve_with(&bare, None, &[(http::MAX_BODY_VARIABLE, "4096")]).unwrap();
    assert_eq!(capped.max_body_bytes, 4096);
}

async fn answer_with(response: ResponseTemplate) -> Result<Completion, OpenAiError> {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(response)
        .mount(&server)
        .await;
    provider(&server, Duration::from_secs(5))
        .complete(&contribution(), None)
        .await
}

#[tokio::test]
async fn a_refused_request_and_an_unexpected_status_are_told_apart_and_not_transient() {
    for status in (400..=499).filter(|s| ![401, 403, 429].contains(s)) {
        let error = answer_with(ResponseTemplate::new(status).set_body_string("no such model"))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, OpenAiError::BadRequest { status: s, .. } if *s == status),
            "{status}: {error:?}"
        );
        assert!(!retried(&error));
        assert!(error.to_string().contains("no such model"), "{error}");
        assert!(matches!(
            ProviderError::from(error),
            ProviderError::BadRequest(_)
        ));
    }
    for status in [300, 301, 302, 304, 307, 308, 600, 999] {
        let error = answer_with(
            ResponseTemplate::new(status).insert_header("location", "https://elsewhere.example/v1"),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&error, OpenAiError::UnexpectedStatus { status: s, .. } if *s == status),
            "{status}: {error:?}"
        );
        assert!(!retried(&error));
        assert!(
            error.to_string().contains("https://elsewhere.example/v1"),
            "{error}"
        );
        assert!(matches!(
            ProviderError::from(error),
            ProviderError::UnexpectedStatus(_)
        ));
    }
    for status in [500, 502, 503, 504, 529, 599] {
        let error = answer_with(ResponseTemplate::new(status))
            .await
            .unwrap_err();
        assert!(matches!(error, OpenAiError::Server { .. }), "{status}");
        assert!(retried(&error));
    }
}

#[tokio::test]
async fn content_given_as_text_parts_is_joined() {
    let body = json!({"choices": [{"message": {"content": [
        {"type": "text", "text": "{\"stance\": "}, {"type": "text", "text": "\"go\"}"}]}}]});
    let answer = answer_with(ResponseTemplate::new(200).set_body_json(body))
        .await
        .unwrap();
    assert_eq!(
        answer.output,
        ModelOutput::Text("{\"stance\": \"go\"}".into())
    );
}

/// Every run of eight characters of the key.
fn key_windows() -> Vec<&'static str> {
    (0..=KEY.len() - 8).map(|i| &KEY[i..i + 8]).collect()
}

fn assert_no_key(text: &str) {
    for window in key_windows() {
        assert!(!text.contains(window), "{window:?} of the key in {text:?}");
    }
}

/// An endpoint that quotes the request's Authorization header back, in the
/// shape `shape` gives it.
struct Echo(fn(&str) -> ResponseTemplate);

impl wiremock::Respond for Echo {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let header = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        (self.0)(&header)
    }
}

#[tokio::test]
async fn an_endpoint_echoing_the_key_gets_no_fragment_of_it_through() {
    let shapes: Vec<fn(&str) -> ResponseTemplate> = vec![
        |h| ResponseTemplate::new(200).set_body_json(completion(&format!("You sent {h}"))),
        |h| {
            let tail = &h[h.len() - 12..];
            ResponseTemplate::new(200).set_body_json(completion(&format!("Bearer *** {tail}")))
        },
        |h| {
            let escaped: String = h.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
            let text = format!("{{\"summary\": \"{escaped}\"}}");
            ResponseTemplate::new(200).set_body_json(completion(&text))
        },
        |h| {
            ResponseTemplate::new(200).set_body_json(
                json!({"choices": [{"message": {"content": {"auth": h, "n": [h]}}}]}),
            )
        },
        |h| ResponseTemplate::new(400).set_body_json(json!({"error": format!("bad header {h}")})),
        |h| ResponseTemplate::new(404).set_body_string(&h[7..20]),
        |h| ResponseTemplate::new(500).set_body_string(format!("upstream said {h}")),
        |h| {
            ResponseTemplate::new(302)
                .insert_header("location", format!("http://x/?k={h}").as_str())
        },
        |h| ResponseTemplate::new(200).set_body_string(format!("<html>{h}</html>")),
        |h| {
            // Five characters a part: no part holds a run of eight.
            let parts: Vec<Value> = h
                .as_bytes()
                .chunks(5)
                .map(|part| json!({"type": "text", "text": String::from_utf8_lossy(part)}))
                .collect();
            ResponseTemplate::new(200)
                .set_body_json(json!({"choices": [{"message": {"content": parts}}]}))
        },
    ];
    for shape in shapes {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(Echo(shape))
            .mount(&server)
            .await;
        let said = match provider(&server, Duration::from_secs(5))
            .complete(&contribution(), None)
            .await
        {
            Ok(answer) => format!("{:?}", answer.output),
            Err(error) => format!("{error} {:?} {}", error, ProviderError::from(error.clone())),
        };
        assert_no_key(&said);
    }
}

#[tokio::test]
async fn a_prompt_never_carries_the_key_back_to_the_model() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion("{}")))
        .mount(&server)
        .await;
    let request = ModelRequest::new(
        analyst_call(),
        &CONTRIBUTION_PROMPT,
        json!({"history": [{"summary": format!("the key is {KEY}"), KEY: &KEY[3..15]}]}),
    );
    provider(&server, Duration::from_secs(5))
        .complete(&request, None)
        .await
        .unwrap();
    let sent = server.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&sent[0].body).unwrap();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert_no_key(user);
    assert!(user.contains(crate::secrets::MASK), "{user}");
    let payload: Value = serde_json::from_str(user).unwrap();
    assert_eq!(
        payload["history"][0]["summary"],
        format!("the key is {}", crate::secrets::MASK)
    );
}

/// A raw HTTP server on loopback that answers one request with `head`
/// and then, while the client reads, an endless chunked body; it returns
/// how many bytes it managed to send.
async fn endless(head: &'static str) -> (String, tokio::task::JoinHandle<usize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // What was sent and not read sits in the kernel's buffers, which grow
    // to tens of megabytes on some machines: a small send buffer (which
    // the accepted socket takes) keeps the count a measure of the reader.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_send_buffer_size(16 * 1024).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(1).unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = vec![0u8; 64 * 1024];
        let _ = socket.read(&mut request).await;
        let mut sent = 0;
        if socket.write_all(head.as_bytes()).await.is_err() {
            return sent;
        }
        // 16 KiB a chunk of a JSON document that never closes.
        let chunk = format!("4000\r\n{}\r\n", "[".repeat(0x4000));
        while socket.write_all(chunk.as_bytes()).await.is_ok() {
            sent += chunk.len();
        }
        sent
    });
    (url, task)
}

#[tokio::test]
async fn an_endless_body_stops_at_the_cap_without_buffering_past_it() {
    let (url, server) = endless(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
    )
    .await;
    let config = OpenAiConfig {
        base_url: url,
        model: "m".into(),
        timeout: Duration::from_secs(600),
        timeout_origin: crate::provider::openai::config::Origin::Default,
        key: Some(ApiKey::new(KEY.into())),
        max_body_bytes: 1024 * 1024,
        stream: false,
        asking: AskingSettings::default(),
    };
    let error = OpenAiProvider::new(config, Prompts::default())
        .unwrap()
        .complete(&contribution(), None)
        .await
        .unwrap_err();
    assert_eq!(error, OpenAiError::TooLarge { limit: 1024 * 1024 });
    assert!(
        error.to_string().contains("CONCLAVE_MAX_BODY_BYTES"),
        "{error}"
    );
    assert!(matches!(
        ProviderError::from(error),
        ProviderError::BadResponse(_)
    ));
    let sent = server.await.unwrap();
    assert!(
        sent < 64 * 1024 * 1024,
        "the reader stopped soon after the cap, the server sent {sent} bytes"
    );
}

#[tokio::test]
async fn a_declared_length_past_the_cap_is_refused_before_reading() {
    let (url, _server) = endless(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 99999999999\r\n\r\n",
    )
    .await;
    let config = OpenAiConfig {
        base_url: url,
        model: "m".into(),
        timeout: Duration::from_secs(600),
        timeout_origin: crate::provider::openai::config::Origin::Default,
        key: None,
        max_body_bytes: http::DEFAULT_MAX_BODY_BYTES,
        stream: false,
        asking: AskingSettings::default(),
    };
    let error = OpenAiProvider::new(config, Prompts::default())
        .unwrap()
        .complete(&contribution(), None)
        .await
        .unwrap_err();
    assert_eq!(
        error,
        OpenAiError::TooLarge {
            limit: http::DEFAULT_MAX_BODY_BYTES
        }
    );
}

#[tokio::test]
async fn an_endless_error_body_still_reports_its_status() {
    let (url, _server) = endless(
        "HTTP/1.1 503 Service Unavailable\r\nretry-after: 7\r\ntransfer-encoding: chunked\r\n\r\n",
    )
    .await;
    let config = OpenAiConfig {
        base_url: url,
        model: "m".into(),
        timeout: Duration::from_secs(600),
        timeout_origin: crate::provider::openai::config::Origin::Default,
        key: None,
        max_body_bytes: http::DEFAULT_MAX_BODY_BYTES,
        stream: false,
        asking: AskingSettings::default(),
    };
    let error = OpenAiProvider::new(config, Prompts::default())
        .unwrap()
        .complete(&contribution(), None)
        .await
        .unwrap_err();
    assert!(
        matches!(error, OpenAiError::Server { status: 503, retry_after: Some(d), .. } if d == Duration::from_secs(7)),
        "{error:?}"
    );
    assert!(error.to_string().chars().count() < 400, "{error}");
}

/// Whether the gateway may try again after `error`: a timeout, or an
/// endpoint that is down or rate limiting.
fn retried(error: &OpenAiError) -> bool {
    matches!(
        ProviderError::from(error.clone()),
        ProviderError::Timeout | ProviderError::Unavailable { .. }
    )
}

mod answers;
mod contracts;
mod output_modes;
mod reasoning;
mod streaming;
mod timed_out;
