//! How a request asks for its answer in each output mode, with which
//! sampling, token and reasoning parameters, with its rounds of repair;
//! and a refusal of a feature told apart, then adapted to.

use super::contracts;
use super::*;
use crate::provider::contract::RepairTurn;
use crate::provider::output::{Feature, Setting};
use crate::scenario::OutputMode;

const BRIEF_PROMPT: Prompt = compiled_in!("collaboration_brief.md", text);

fn asking(server: &MockServer, model: &str, asking: AskingSettings) -> OpenAiProvider {
    let config = OpenAiConfig {
        base_url: format!("{}/v1", server.uri()),
        model: model.into(),
        timeout: Duration::from_secs(5),
        timeout_origin: crate::provider::openai::config::Origin::Default,
        key: Some(ApiKey::new(KEY.into())),
        max_body_bytes: http::DEFAULT_MAX_BODY_BYTES,
        stream: false,
        asking,
    };
    OpenAiProvider::new(config, Prompts::default()).unwrap()
}

fn in_mode(output: OutputMode) -> AskingSettings {
    AskingSettings {
        output,
        ..AskingSettings::default()
    }
}

async fn answering() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion("{\"stance\": \"go\"}")))
        .mount(&server)
        .await;
    server
}

/// The body of every request `server` received, in order.
async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

/// The body `provider` sends for `request` (the server answers every
/// request with text, which tool mode takes for tools ignored).
async fn sent(server: &MockServer, provider: &OpenAiProvider, request: &ModelRequest) -> Value {
    let _ = provider.complete(request, None).await;
    bodies(server).await.pop().unwrap()
}

fn keys(body: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

fn verdict_request() -> ModelRequest {
    contribution().keeping(contracts::verdict())
}

#[tokio::test]
async fn each_mode_asks_for_the_contract_its_own_way() {
    let server = answering().await;
    let strict = json!({"type": "json_schema", "json_schema": {
        "name": "verdict", "strict": true, "schema": contracts::verdict_schema()}});
    for mode in [OutputMode::Auto, OutputMode::Native] {
        let body = sent(
            &server,
            &asking(&server, "m", in_mode(mode)),
            &verdict_request(),
        )
        .await;
        assert_eq!(body["response_format"], strict, "{mode:?}");
        assert_eq!(
            keys(&body),
            ["messages", "model", "response_format", "temperature"]
        );
    }
    let body = sent(
        &server,
        &asking(&server, "m", in_mode(OutputMode::Tool)),
        &verdict_request(),
    )
    .await;
    assert_eq!(
        keys(&body),
        ["messages", "model", "temperature", "tool_choice", "tools"]
    );
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "function": {"name": "submit_verdict",
            "description": "Give your verdict.", "parameters": contracts::verdict_schema(), "strict": true}}])
    );
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "submit_verdict"}})
    );
    let body = sent(
        &server,
        &asking(&server, "m", in_mode(OutputMode::Json)),
        &verdict_request(),
    )
    .await;
    assert_eq!(
        keys(&body),
        ["messages", "model", "response_format", "temperature"]
    );
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    let prompted = asking(&server, "m", in_mode(OutputMode::Prompted));
    let body = sent(&server, &prompted, &verdict_request()).await;
    assert_eq!(keys(&body), ["messages", "model", "temperature"]);
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are the risk_analyst"), "{system}");
    let (_, schema) = system
        .split_once(
            "Answer with one JSON object that matches this JSON Schema, and nothing else:\n",
        )
        .unwrap();
    let schema: Value = serde_json::from_str(schema).unwrap();
    assert_eq!(schema, contracts::verdict_schema());
}

#[tokio::test]
async fn several_functions_are_offered_and_one_of_them_required() {
    let server = answering().await;
    let request = contribution().keeping(contracts::members());
    let body = sent(
        &server,
        &asking(&server, "m", in_mode(OutputMode::Tool)),
        &request,
    )
    .await;
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["billing", "shipping"]);
    assert_eq!(body["tool_choice"], "required");
}

#[tokio::test]
async fn without_a_contract_json_prompts_ask_for_json_unless_prompted_and_text_for_nothing() {
    let server = answering().await;
    let brief = ModelRequest::new(Purpose::unscripted("final_brief"), &BRIEF_PROMPT, json!({}));
    for mode in [
        OutputMode::Auto,
        OutputMode::Native,
        OutputMode::Tool,
        OutputMode::Json,
    ] {
        let provider = asking(&server, "m", in_mode(mode));
        let body = sent(&server, &provider, &contribution()).await;
        assert_eq!(
            body["response_format"],
            json!({"type": "json_object"}),
            "{mode:?}"
        );
        assert!(body.get("tools").is_none());
        let body = sent(&server, &provider, &brief).await;
        assert_eq!(
            keys(&body),
            ["messages", "model", "temperature"],
            "{mode:?}"
        );
    }
    let prompted = asking(&server, "m", in_mode(OutputMode::Prompted));
    let body = sent(&server, &prompted, &contribution()).await;
    assert_eq!(keys(&body), ["messages", "model", "temperature"]);
}

#[tokio::test]
async fn temperature_tokens_and_effort_follow_the_model_and_the_scenario() {
    let server = answering().await;
    let with = |model: &str, doc: Value| {
        let mut doc = doc;
        doc["kind"] = json!("openai");
        let spec: ProviderSpec = serde_json::from_value(doc).unwrap();
        asking(&server, model, AskingSettings::of(&spec, model))
    };
    let cases = [
        ("o3-mini", json!({}), None),
        ("openai/gpt-5-mini", json!({}), None),
        ("gpt-4.1-mini", json!({}), Some(json!(0))),
        ("o4-mini", json!({"temperature": 1}), Some(json!(1))),
        (
            "gpt-4.1-mini",
            json!({"temperature": 0.3}),
            Some(json!(0.3)),
        ),
        ("gpt-4.1-mini", json!({"temperature": null}), None),
    ];
    for (model, doc, temperature) in cases {
        let body = sent(&server, &with(model, doc.clone()), &contribution()).await;
        assert_eq!(
            body.get("temperature").cloned(),
            temperature,
            "{model} {doc}"
        );
        assert!(
            body.get("max_completion_tokens").is_none() && body.get("reasoning_effort").is_none()
        );
    }
    let provider = with(
        "o3",
        json!({"max_output_tokens": 500, "reasoning_effort": "low"}),
    );
    let body = sent(&server, &provider, &contribution()).await;
    assert_eq!(body["max_completion_tokens"], 500);
    assert_eq!(body["reasoning_effort"], "low");
    assert!(body.get("max_tokens").is_none(), "never max_tokens first");
    assert!(body.get("temperature").is_none());
}

#[test]
fn the_temperature_follows_the_model_the_command_line_names() {
    let spec: ProviderSpec = serde_json::from_value(json!({"kind": "openai",
        "model": "gpt-4.1-mini", "output": "json", "output_retries": 2}))
    .unwrap();
    let overrides = Overrides {
        model: Some("o3".into()),
        ..Overrides::default()
    };
    let config = OpenAiConfig::resolve(&spec, &overrides, |_| None).unwrap();
    assert_eq!(
        (
            config.asking.temperature,
            config.asking.output,
            config.asking.output_retries
        ),
        (None, OutputMode::Json, 2)
    );
    let config = OpenAiConfig::resolve(&spec, &Overrides::default(), |_| None).unwrap();
    assert_eq!(config.asking.temperature, Some(0.0));
    let bare: ProviderSpec = serde_json::from_value(json!({"kind": "sim"})).unwrap();
    let config = OpenAiConfig::resolve(&bare, &Overrides::default(), |_| None).unwrap();
    assert_eq!(
        config.asking,
        AskingSettings {
            temperature: Some(0.0),
            ..AskingSettings::default()
        }
    );
}

#[tokio::test]
async fn each_round_of_repair_follows_as_the_answer_and_what_was_wrong() {
    let server = answering().await;
    let mut request = verdict_request();
    request.repair = vec![
        RepairTurn {
            answer: "```json\n{\"stance\": \"maybe\"}\n```".into(),
            error: format!("stance: expected go or no_go, found \"maybe\" (key {KEY})"),
        },
        RepairTurn {
            answer: "[{\"name\": \"submit_verdict\", \"arguments\": \"{oops\"}]".into(),
            error: "not JSON".into(),
        },
    ];
    let body = sent(
        &server,
        &asking(&server, "m", in_mode(OutputMode::Tool)),
        &request,
    )
    .await;
    let messages = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "user", "assistant", "user"]
    );
    assert_eq!(
        messages[2]["content"],
        "```json\n{\"stance\": \"maybe\"}\n```"
    );
    assert_eq!(
        messages[3]["content"],
        format!(
            "stance: expected go or no_go, found \"maybe\" (key {})",
            crate::secrets::MASK
        )
    );
    assert_eq!(messages[4]["content"], request.repair[1].answer);
    assert!(messages.iter().all(|m| m.get("tool_calls").is_none()));
}

/// A server that refuses every request whose body `refuses` with `words`
/// (400) and answers the others with `answer`.
struct Refusing {
    refuses: fn(&Value) -> Option<Value>,
    answer: Value,
}

impl wiremock::Respond for Refusing {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        match (self.refuses)(&body) {
            Some(words) => ResponseTemplate::new(400).set_body_json(words),
            None => ResponseTemplate::new(200).set_body_json(self.answer.clone()),
        }
    }
}

async fn refusing(refuses: fn(&Value) -> Option<Value>, answer: Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Refusing { refuses, answer })
        .mount(&server)
        .await;
    server
}

fn openai_error(message: &str, param: &str, code: Value) -> Value {
    json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}})
}

#[tokio::test]
async fn openai_refusals_of_a_parameter_are_told_apart_and_adapted_to() {
    // OpenAI's reasoning models, word for word.
    let server = refusing(
        |body| {
            if body.get("temperature").is_some() {
                return Some(openai_error("Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "temperature", json!("unsupported_value")));
            }
            if body.get("max_tokens").is_some() {
                return Some(openai_error("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens", json!("unsupported_parameter")));
            }
            if body["response_format"]["type"] == "json_schema" {
                return Some(openai_error("Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", "response_format", Value::Null));
            }
            None
        },
        completion("{\"stance\": \"go\", \"reason\": null}"),
    )
    .await;
    let settings = AskingSettings {
        max_output_tokens: Some(64),
        ..AskingSettings::default()
    };
    let provider = asking(&server, "a-reasoning-model", settings);
    let error = provider
        .complete(&verdict_request(), None)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, OpenAiError::Unsupported { status: 400, feature: Feature::Temperature, said }
            if said.starts_with("Unsupported value: 'temperature' does not support 0")),
        "{error:?}"
    );
    let said = match ProviderError::from(error) {
        ProviderError::Unsupported {
            feature: Feature::Temperature,
            said,
            ..
        } => said,
        other => panic!("{other:?}"),
    };
    let adapted = provider
        .policy()
        .adapt(Feature::Temperature, &said)
        .unwrap();
    assert_eq!(
        (adapted.what, adapted.from.as_str(), adapted.to.as_str()),
        (Setting::Temperature, "0", "none")
    );
    let error = provider
        .complete(&verdict_request(), None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            OpenAiError::Unsupported {
                feature: Feature::JsonSchema,
                ..
            }
        ),
        "{error:?}"
    );
    let adapted = provider.policy().adapt(Feature::JsonSchema, "").unwrap();
    assert_eq!(
        (adapted.from.as_str(), adapted.to.as_str()),
        ("native", "tool")
    );
    // Now in tool mode: the server answers in text although a call was
    // forced: the tools were ignored, and the text is not the answer.
    let error = provider
        .complete(&verdict_request(), None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            &error,
            OpenAiError::Ignored { feature: Feature::Tools, said, .. }
                if said.contains("made none") && said.contains("{\"stance\"")
        ),
        "{error:?}"
    );
    assert!(matches!(
        ProviderError::from(error),
        ProviderError::Unsupported {
            feature: Feature::Tools,
            ..
        }
    ));
    let last = bodies(&server).await.pop().unwrap();
    assert_eq!(last["max_completion_tokens"], 64);
    assert!(last.get("temperature").is_none() && last.get("tools").is_some());
}

#[tokio::test]
async fn auto_walks_down_every_mode_an_endpoint_refuses_and_an_explicit_mode_stays() {
    // A local server without structured outputs, tools or JSON mode,
    // answering as vLLM and llama.cpp do.
    let refuses = |body: &Value| {
        if body.get("tools").is_some() {
            return Some(
                json!({"error": {"code": 400, "message": "tools param requires --jinja flag", "type": "invalid_request_error"}}),
            );
        }
        body.get("response_format").map(|_| {
            json!({"object": "error", "message": "response_format is not supported by this server", "type": "BadRequestError", "param": null, "code": 400})
        })
    };
    let server = refusing(
        refuses,
        completion("{\"stance\": \"go\", \"reason\": null}"),
    )
    .await;
    let provider = asking(&server, "llama3.1:8b", AskingSettings::default());
    let mut walked = Vec::new();
    let answer = loop {
        match provider.complete(&verdict_request(), None).await {
            Ok(answer) => break answer,
            Err(OpenAiError::Unsupported { feature, said, .. }) => {
                let adapted = provider.policy().adapt(feature, &said).unwrap();
                assert!(adapted.first);
                walked.push(format!("{feature}: {} → {}", adapted.from, adapted.to));
            }
            Err(other) => panic!("{other:?}"),
        }
        assert!(walked.len() < 4, "{walked:?}");
    };
    assert_eq!(
        walked,
        [
            "json_schema: native → tool",
            "tools: tool → json",
            "response_format: json → prompted"
        ]
    );
    assert_eq!(
        answer.output,
        ModelOutput::Text("{\"stance\": \"go\", \"reason\": null}".into())
    );
    let explicit = asking(&server, "llama3.1:8b", in_mode(OutputMode::Native));
    let error = explicit
        .complete(&verdict_request(), None)
        .await
        .unwrap_err();
    let OpenAiError::Unsupported { feature, said, .. } = error else {
        panic!("{error:?}");
    };
    assert_eq!(explicit.policy().adapt(feature, &said), None);
    let error = explicit
        .complete(&verdict_request(), None)
        .await
        .unwrap_err();
    assert!(matches!(
        error,
        OpenAiError::Unsupported {
            feature: Feature::JsonSchema,
            ..
        }
    ));
}

#[tokio::test]
async fn a_refusal_quotes_the_endpoint_scrubbed_and_short_and_a_422_counts() {
    let server = MockServer::start().await;
    let message = format!(
        "Unknown field tool_choice for key {KEY}: {}",
        "x".repeat(400)
    );
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(422).set_body_json(json!({"detail": message})))
        .mount(&server)
        .await;
    let provider = asking(&server, "m", in_mode(OutputMode::Tool));
    let error = provider
        .complete(&verdict_request(), None)
        .await
        .unwrap_err();
    let OpenAiError::Unsupported {
        status: 422,
        feature: Feature::Tools,
        said,
    } = &error
    else {
        panic!("{error:?}");
    };
    assert!(
        said.starts_with("Unknown field tool_choice for key"),
        "{said}"
    );
    assert!(said.chars().count() <= 300);
    assert_no_key(&error.to_string());
    // The same words about a feature the request did not send are a
    // refused request as before.
    let error = asking(&server, "m", in_mode(OutputMode::Json))
        .complete(&verdict_request(), None)
        .await
        .unwrap_err();
    assert!(
        matches!(error, OpenAiError::BadRequest { status: 422, .. }),
        "{error:?}"
    );
}
