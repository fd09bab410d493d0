//! A framework's request as it goes upstream, and what a whole answer
//! counts. The body goes on byte for byte (tools, schemas and every field
//! Conclave does not read untouched), except that a stream of Chat
//! Completions that does not ask for its usage is made to, so that every
//! call is metered; the client is then not shown that chunk.

use super::{Api, Refused};
use crate::bus::TokenUsage;
use serde_json::Value;

/// A request ready for the upstream.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Prepared {
    /// The body to send.
    pub(crate) body: Vec<u8>,
    /// The model the request names.
    pub(crate) model: Option<String>,
    /// Whether the answer is a stream of server-sent events.
    pub(crate) stream: bool,
    /// Whether the usage chunk was asked for by Conclave, not the client,
    /// and so is kept from it.
    pub(crate) strip_usage: bool,
    /// The request's hash as a cassette matches it, when asked for.
    pub(crate) prompt_sha256: Option<String>,
}

/// `body` of a request to `api`, checked and ready for the upstream: a 400
/// naming the place when it is not a JSON object.
#[cfg(test)]
pub(crate) fn prepare(api: Api, body: &[u8]) -> Result<Prepared, Refused> {
    prepare_hashed(api, body, false)
}

/// [`prepare`], with the request's hash when `hashed` (a run that keeps
/// its calls, or serves them from a cassette).
pub(crate) fn prepare_hashed(api: Api, body: &[u8], hashed: bool) -> Result<Prepared, Refused> {
    let parsed: Value = serde_json::from_slice(body).map_err(|error| {
        Refused::new(
            400,
            format!(
                "the request body is not JSON: {error} (expected one JSON object, as OpenAI's API takes)"
            ),
        )
    })?;
    let Value::Object(fields) = &parsed else {
        return Err(Refused::new(
            400,
            "the request body is JSON but not an object (expected one JSON object, as OpenAI's API takes)",
        ));
    };
    let model = fields
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    let stream = fields.get("stream").and_then(Value::as_bool) == Some(true);
    let prompt_sha256 = hashed.then(|| super::request_hash::request_sha256(&parsed));
    let asked = fields
        .get("stream_options")
        .and_then(|o| o.get("include_usage"))
        .and_then(Value::as_bool)
        == Some(true);
    if api != Api::ChatCompletions || !stream || asked {
        return Ok(Prepared {
            body: body.to_vec(),
            model,
            stream,
            strip_usage: false,
            prompt_sha256,
        });
    }
    let body = match fields.get("stream_options") {
        // The field spliced in after the opening brace: the rest of the
        // body goes as the client wrote it.
        None => with_usage_asked(body),
        Some(_) => {
            let mut parsed = parsed.clone();
            parsed["stream_options"]["include_usage"] = Value::Bool(true);
            serde_json::to_vec(&parsed).unwrap_or_else(|_| body.to_vec())
        }
    };
    Ok(Prepared {
        body,
        model,
        stream,
        strip_usage: true,
        prompt_sha256,
    })
}

/// `body`, a JSON object without `stream_options`, with
/// `"stream_options":{"include_usage":true}` as its first field.
fn with_usage_asked(body: &[u8]) -> Vec<u8> {
    const FIELD: &[u8] = br#""stream_options":{"include_usage":true}"#;
    let Some(open) = body.iter().position(|b| *b == b'{') else {
        return body.to_vec();
    };
    let empty = body[open + 1..]
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'}');
    let mut out = Vec::with_capacity(body.len() + FIELD.len() + 1);
    out.extend_from_slice(&body[..=open]);
    out.extend_from_slice(FIELD);
    if !empty {
        out.push(b',');
    }
    out.extend_from_slice(&body[open + 1..]);
    out
}

/// The tokens a whole answer of `api` counts and the model that answered,
/// when it says.
pub(crate) fn usage_of_answer(api: Api, answer: &[u8]) -> (Option<TokenUsage>, Option<String>) {
    let Ok(answer) = serde_json::from_slice::<Value>(answer) else {
        return (None, None);
    };
    (usage_in(api, &answer), model_in(&answer))
}

/// The usage an answer or a stream's chunk (Chat Completions) or event
/// (Responses: under `response`) carries.
pub(super) fn usage_in(api: Api, value: &Value) -> Option<TokenUsage> {
    match api {
        Api::ChatCompletions => value
            .get("usage")
            .filter(|u| u.is_object())
            .map(crate::provider::openai::usage_of),
        Api::Responses => value
            .get("usage")
            .or_else(|| value.get("response").and_then(|r| r.get("usage")))
            .filter(|u| u.is_object())
            .map(responses_usage_of),
        Api::Models => None,
    }
}

/// The model an answer or a chunk names.
pub(super) fn model_in(value: &Value) -> Option<String> {
    value
        .get("model")
        .or_else(|| value.get("response").and_then(|r| r.get("model")))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The Responses API's usage: `input_tokens`, `output_tokens`, and their
/// `input_tokens_details.cached_tokens` and
/// `output_tokens_details.reasoning_tokens`, each part held at its whole.
fn responses_usage_of(usage: &Value) -> TokenUsage {
    let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    let (input, output) = (count("/input_tokens"), count("/output_tokens"));
    TokenUsage {
        input,
        output,
        cached: count("/input_tokens_details/cached_tokens").min(input),
        reasoning: count("/output_tokens_details/reasoning_tokens").min(output),
        ..TokenUsage::default()
    }
}
