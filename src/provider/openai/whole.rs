//! A whole chat completion read: the model's text (scrubbed), why it
//! stopped, its reasoning kept apart, its function calls counted, and the
//! usage, as OpenAI and the servers that copy it write them.

use super::{OpenAiError, answer, shown};
use crate::bus::TokenUsage;
use crate::provider::contract::Contract;
use crate::provider::{Completion, ModelOutput};
use crate::secrets;
use serde_json::Value;

/// The model's text (scrubbed), why it stopped and the usage out of a
/// chat-completion body answering a request for `contract`.
pub(super) fn parse_completion(
    body: &[u8],
    contract: Option<&Contract>,
) -> Result<Completion, OpenAiError> {
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
pub(super) fn reasoning_of(message: &Value) -> Option<&str> {
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
pub(crate) fn usage_of(usage: &Value) -> TokenUsage {
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

/// A part of a content list that holds text (`{"type": "text", "text": …}`),
/// as some OpenAI-compatible servers answer.
fn is_text_part(part: &Value) -> bool {
    part.get("type").is_none_or(|t| t == "text") && part.get("text").is_some_and(Value::is_string)
}
