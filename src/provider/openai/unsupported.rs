//! A refused request read for the feature it names, whatever the status.
//! A 4xx (but 401, 403, 404, 408 and 429, which say nothing of a feature)
//! whose words (OpenAI's `error.message`, `error.param` and `error.code`;
//! vLLM's top-level `message`; FastAPI's `detail`; or a plain-text body)
//! name a feature the request used is a refusal of that feature, which the
//! run can ask without. So is a 5xx whose words name one and say it is
//! refused (unsupported, invalid, not permitted, "should be" something
//! else): llama-cpp-python answers a request its schema does not take with
//! a 500 quoting pydantic's validation error. Any other refusal stays a
//! refused request, and any other 5xx a server error: a name is only read
//! as the feature when the request sent it.

use crate::provider::output::Feature;
use serde_json::Value;

/// The words by which an endpoint names each feature.
fn names(feature: Feature) -> &'static [&'static str] {
    match feature {
        Feature::JsonSchema => &["json_schema", "response_format"],
        Feature::ResponseFormat => &["response_format", "json_object"],
        // vLLM: `"auto" tool choice requires --enable-auto-tool-choice`;
        // llama.cpp: `tools param requires --jinja flag`.
        Feature::Tools => &[
            "tools",
            "tool",
            "tool_choice",
            "tool_calls",
            "function",
            "functions",
            "parallel_tool_calls",
        ],
        Feature::Temperature => &["temperature"],
        Feature::MaxCompletionTokens => &["max_completion_tokens"],
    }
}

/// The feature of `used` that a refusal with `status` and `body` names,
/// and the endpoint's words (unscrubbed: the caller shows them).
pub(super) fn refused_feature(
    status: u16,
    body: &[u8],
    used: &[Feature],
) -> Option<(Feature, String)> {
    let refusal = match status {
        401 | 403 | 404 | 408 | 429 => false,
        400..=599 => true,
        _ => false,
    };
    if !refusal || used.is_empty() {
        return None;
    }
    let said = Said::of(body);
    if status >= 500 && !says_refused(&said.words) {
        return None;
    }
    // The parameter the endpoint names, when it names one, over words
    // that may mention others in passing ("'max_tokens' is not supported
    // … use 'max_completion_tokens' instead" refuses `max_tokens`).
    let words = tokens(said.param.as_deref().unwrap_or(&said.words));
    let feature = used.iter().copied().find(|&feature| {
        names(feature)
            .iter()
            .any(|name| words.iter().any(|word| word == name))
    })?;
    Some((feature, said.message))
}

/// The parameters a request may send that an endpoint may refuse: a 5xx
/// naming one of these that the request sent, in words of refusal, is a
/// refused request rather than a failing server.
pub(super) const PARAMETERS: [&str; 9] = [
    "response_format",
    "json_schema",
    "tools",
    "tool_choice",
    "temperature",
    "max_completion_tokens",
    "parallel_tool_calls",
    "stream_options",
    "reasoning_effort",
];

/// Whether a 5xx `body` refuses a parameter of `sent` (the request's
/// body) that no feature covers, such as `stream_options` or
/// `reasoning_effort`: the request is refused, and asking it again as it
/// is cannot mend that.
pub(super) fn refuses_a_parameter(status: u16, body: &[u8], sent: &Value) -> bool {
    if !(500..=599).contains(&status) {
        return false;
    }
    let said = Said::of(body);
    if !says_refused(&said.words) {
        return false;
    }
    let words = tokens(said.param.as_deref().unwrap_or(&said.words));
    PARAMETERS.iter().any(|name| {
        sent.get(name).is_some_and(|value| !value.is_null()) && words.iter().any(|w| w == name)
    })
}

/// Whether words say a parameter is refused: unsupported, invalid, not
/// permitted or allowed, that it "should be" something else (pydantic:
/// "Input should be 'text' or 'json_object'"), or that it needs the
/// server started with a flag (llama.cpp's `llama-server --no-jinja`:
/// "tools param requires --jinja flag", a 500).
fn says_refused(words: &str) -> bool {
    let words = words.to_ascii_lowercase();
    [
        "unsupported",
        "not supported",
        "invalid",
        "not permitted",
        "not allowed",
        "should be",
        "extra inputs",
        "unrecognized",
        "requires --",
    ]
    .iter()
    .any(|phrase| words.contains(phrase))
}

/// What an error body says.
pub(super) struct Said {
    /// `error.param`.
    param: Option<String>,
    /// Every field that may name the feature, in one text.
    pub(super) words: String,
    /// What to quote: the message, else the whole body.
    pub(super) message: String,
}

impl Said {
    pub(super) fn of(body: &[u8]) -> Said {
        let text = String::from_utf8_lossy(body).trim().to_string();
        let Ok(document) = serde_json::from_str::<Value>(&text) else {
            return Said {
                param: None,
                words: text.clone(),
                message: text,
            };
        };
        let error = match document.get("error") {
            Some(error @ Value::Object(_)) => error,
            Some(Value::String(message)) => {
                return Said {
                    param: None,
                    words: message.clone(),
                    message: message.clone(),
                };
            }
            _ => &document,
        };
        let field = |key: &str| match error.get(key) {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        let param = field("param");
        let message = field("message").or_else(|| field("detail"));
        let words = [message.clone(), param.clone(), field("code")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        Said {
            param,
            words,
            message: without_trace(&message.unwrap_or(text)),
        }
    }
}

/// `message` up to a Python traceback's first frame: llama-cpp-python
/// follows pydantic's words with `File "/…/site-packages/…", line N`,
/// which says where the server is installed and nothing about the
/// request.
fn without_trace(message: &str) -> String {
    let frame = message.lines().position(|line| {
        let line = line.trim_start();
        line.starts_with("File \"") || line.starts_with("Traceback (most recent call last)")
    });
    match frame {
        Some(at) if at > 0 => message
            .lines()
            .take(at)
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string(),
        _ => message.to_string(),
    }
}

/// The words of `text` as names are written (`max_completion_tokens`,
/// `response_format.type` as two), lowercased.
fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused(body: Value, used: &[Feature]) -> Option<Feature> {
        refused_feature(400, body.to_string().as_bytes(), used).map(|(feature, _)| feature)
    }

    #[test]
    fn the_named_parameter_wins_over_words_in_passing() {
        let body = json!({"error": {"message": "Unsupported value: 'temperature' does not support 0 with this model; response_format is fine.",
            "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}});
        assert_eq!(
            refused(body, &[Feature::JsonSchema, Feature::Temperature]),
            Some(Feature::Temperature)
        );
    }

    #[test]
    fn a_name_of_a_feature_not_sent_is_no_refusal_of_it() {
        let body = json!({"error": {"message": "tools are not supported", "param": null}});
        assert_eq!(refused(body.clone(), &[Feature::JsonSchema]), None);
        assert_eq!(refused(body, &[Feature::Tools]), Some(Feature::Tools));
        let model =
            json!({"error": {"message": "The model `gpt-9` does not exist", "param": "model"}});
        assert_eq!(
            refused(model, &[Feature::JsonSchema, Feature::Temperature]),
            None
        );
    }

    #[test]
    fn a_named_parameter_not_sent_is_no_refusal_of_one_sent() {
        let body = json!({"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}});
        assert_eq!(refused(body, &[Feature::MaxCompletionTokens]), None);
    }

    #[test]
    fn other_statuses_and_shapes() {
        let words = b"response_format is not supported by this server";
        assert_eq!(
            refused_feature(422, words, &[Feature::ResponseFormat]).map(|f| f.0),
            Some(Feature::ResponseFormat)
        );
        assert_eq!(
            refused_feature(404, words, &[Feature::ResponseFormat]),
            None
        );
        assert_eq!(
            refused_feature(429, words, &[Feature::ResponseFormat]),
            None
        );
        let fastapi = json!({"detail": [{"loc": ["body", "tool_choice"], "msg": "extra fields not permitted"}]});
        assert_eq!(refused(fastapi, &[Feature::Tools]), Some(Feature::Tools));
        let vllm = json!({"object": "error", "message": "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set", "type": "BadRequestError", "param": null, "code": 400});
        assert_eq!(refused(vllm, &[Feature::Tools]), Some(Feature::Tools));
    }

    /// llama-cpp-python's 500: pydantic's validation error, as Python
    /// prints it, in an OpenAI-shaped error.
    const LLAMA_CPP_PYTHON: &str = r#"{"error": {"message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}]", "type": "internal_server_error", "param": null, "code": null}}"#;

    #[test]
    fn a_5xx_naming_a_sent_feature_in_words_of_refusal_refuses_it() {
        let used = [Feature::JsonSchema, Feature::Temperature];
        let (feature, said) = refused_feature(500, LLAMA_CPP_PYTHON.as_bytes(), &used).unwrap();
        assert_eq!(feature, Feature::JsonSchema);
        assert!(
            said.contains("Input should be 'text' or 'json_object'"),
            "{said}"
        );
        let pydantic = json!({"detail": [{"type": "literal_error", "loc": ["body", "response_format", "type"],
            "msg": "Input should be 'text' or 'json_object'", "input": "json_schema"}]});
        assert_eq!(
            refused_feature(500, pydantic.to_string().as_bytes(), &used).map(|f| f.0),
            Some(Feature::JsonSchema)
        );
        // Not sent: a server failing, not a refusal.
        assert_eq!(
            refused_feature(500, LLAMA_CPP_PYTHON.as_bytes(), &[Feature::Temperature]),
            None
        );
    }

    /// llama.cpp's `llama-server --no-jinja` answering a request with
    /// tools: a 500 in its own error shape.
    #[test]
    fn a_python_traceback_after_the_words_is_not_quoted() {
        // llama-cpp-python 0.3.36's 500 for a json_schema, as it came.
        let body = json!({"error": {"message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}\n\n  File \"/opt/venv/lib/python3.11/site-packages/llama_cpp/server/app.py\", line 376, in create_chat_completion\n    POST /v1/chat/completions",
            "type": "internal_server_error", "param": null, "code": null}});
        let (feature, said) =
            refused_feature(500, body.to_string().as_bytes(), &[Feature::JsonSchema]).unwrap();
        assert_eq!(feature, Feature::JsonSchema);
        assert!(said.ends_with("'input': 'json_schema'}"), "{said}");
        assert!(
            !said.contains("site-packages") && !said.contains("File"),
            "{said}"
        );
        // A message that is all trace, or has none, is quoted as it is.
        assert_eq!(
            without_trace("File \"x.py\", line 1"),
            "File \"x.py\", line 1"
        );
        assert_eq!(
            without_trace("json_schema is not supported"),
            "json_schema is not supported"
        );
    }

    #[test]
    fn a_5xx_saying_a_sent_feature_requires_a_server_flag_refuses_it() {
        let body = json!({"error": {"code": 500, "message": "tools param requires --jinja flag",
                                    "type": "server_error"}});
        let bytes = body.to_string();
        let (feature, said) = refused_feature(
            500,
            bytes.as_bytes(),
            &[Feature::Tools, Feature::Temperature],
        )
        .unwrap();
        assert_eq!(feature, Feature::Tools);
        assert_eq!(said, "tools param requires --jinja flag");
        assert_eq!(
            refused_feature(500, bytes.as_bytes(), &[Feature::JsonSchema]),
            None,
            "tools were not sent: a failing server"
        );
        let memory =
            json!({"error": {"message": "sampling at temperature 0 requires more memory"}});
        assert_eq!(
            refused_feature(500, memory.to_string().as_bytes(), &[Feature::Temperature]),
            None,
            "a need of the server's own is no refusal"
        );
    }

    #[test]
    fn a_5xx_that_only_mentions_a_feature_is_a_failing_server() {
        let used = [Feature::JsonSchema, Feature::Temperature];
        for body in [
            json!({"error": {"message": "CUDA out of memory while sampling at temperature 0"}}),
            json!({"error": {"message": "upstream timed out; response_format json_schema"}}),
        ] {
            assert_eq!(
                refused_feature(500, body.to_string().as_bytes(), &used),
                None
            );
            assert_eq!(
                refused_feature(503, body.to_string().as_bytes(), &used),
                None
            );
        }
        let unsupported = json!({"error": {"message": "temperature is not supported"}});
        assert_eq!(
            refused_feature(502, unsupported.to_string().as_bytes(), &used).map(|f| f.0),
            Some(Feature::Temperature)
        );
    }

    #[test]
    fn a_5xx_refusing_a_parameter_no_feature_covers_is_a_refused_request() {
        let body = json!({"error": {"message": "[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted'}]"}});
        let bytes = body.to_string();
        let sent = json!({"model": "m", "stream": true, "stream_options": {"include_usage": true}});
        assert!(refuses_a_parameter(500, bytes.as_bytes(), &sent));
        assert!(!refuses_a_parameter(400, bytes.as_bytes(), &sent));
        assert!(!refuses_a_parameter(
            500,
            bytes.as_bytes(),
            &json!({"model": "m"})
        ));
        let busy = json!({"error": {"message": "stream_options: the server is busy"}}).to_string();
        assert!(!refuses_a_parameter(500, busy.as_bytes(), &sent));
    }
}
