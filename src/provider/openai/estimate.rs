//! Tokens for an answer the endpoint counted none for: llama-cpp-python
//! sends no usage in a stream, and a stream Conclave cut itself counted
//! only what came. The count is estimated by the sim's rule of thumb (four
//! characters a token) over the whole request as it went out, the system
//! prompt, the schema or functions, the history and any repair turns, not
//! the payload alone, and over the answer's text, and is marked
//! estimated, so a token budget trips on it and every place that shows it
//! says so.

use crate::bus::TokenUsage;
use crate::provider::sim::estimate::tokens;
use crate::provider::{Completion, ModelOutput};
use serde_json::Value;

/// `completion` with a usage: its own when the endpoint sent one that
/// Conclave did not cut; else estimated from `sent` (the request's body)
/// and the answer, the larger of the answer's characters and the `pieces`
/// a stream brought counting for its output.
pub(super) fn counted(sent: &Value, mut completion: Completion) -> Completion {
    let input = tokens(prompt_chars(sent));
    match completion.usage.as_mut() {
        // A stream Conclave cut: the pieces that came are its output.
        Some(usage) if usage.estimated => usage.input = input,
        Some(_) => {}
        None => {
            completion.usage = Some(TokenUsage {
                input,
                output: tokens(answer_chars(&completion.output)),
                estimated: true,
                ..TokenUsage::default()
            });
        }
    }
    completion
}

/// The tokens of a stream whose timeout ran out: the whole request in,
/// the `pieces` that came out, estimated.
pub(super) fn spent(sent: &Value, pieces: u64) -> TokenUsage {
    TokenUsage {
        input: tokens(prompt_chars(sent)),
        output: pieces,
        estimated: true,
        ..TokenUsage::default()
    }
}

/// Characters of what the model was given: every message's text, and the
/// schema or functions the request carried, as compact JSON.
fn prompt_chars(sent: &Value) -> u64 {
    let messages: u64 = sent["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|message| match &message["content"] {
            Value::String(text) => text.chars().count() as u64,
            Value::Null => 0,
            other => other.to_string().chars().count() as u64,
        })
        .sum();
    let carried: u64 = ["response_format", "tools"]
        .iter()
        .filter_map(|key| sent.get(*key).filter(|value| !value.is_null()))
        .map(|value| value.to_string().chars().count() as u64)
        .sum();
    messages + carried
}

fn answer_chars(output: &ModelOutput) -> u64 {
    match output {
        ModelOutput::Text(text) => text.chars().count() as u64,
        ModelOutput::Json(value) => value.to_string().chars().count() as u64,
        ModelOutput::JsonText(text) => text.text().chars().count() as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sent() -> Value {
        json!({"model": "m", "messages": [
            {"role": "system", "content": "s".repeat(400)},
            {"role": "user", "content": "u".repeat(200)},
            {"role": "assistant", "content": "a".repeat(100)},
            {"role": "user", "content": "r".repeat(100)}],
            "response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "object"}}}})
    }

    #[test]
    fn an_answer_without_usage_is_counted_from_the_whole_request_and_marked_estimated() {
        let completion = counted(&sent(), Completion::from(ModelOutput::Text("x".repeat(81))));
        let usage = completion.usage.unwrap();
        let format = json!({"type": "json_schema", "json_schema": {"schema": {"type": "object"}}})
            .to_string()
            .len() as u64;
        assert_eq!(
            usage.input,
            (800 + format).div_ceil(4),
            "every message and the schema"
        );
        assert_eq!(usage.output, 21);
        assert!(usage.estimated);
    }

    #[test]
    fn an_endpoints_own_usage_stays_and_a_cut_streams_prompt_is_counted_whole() {
        let own = TokenUsage {
            input: 758,
            output: 40,
            ..TokenUsage::default()
        };
        let completion = Completion {
            usage: Some(own),
            ..Completion::from(ModelOutput::Text("hi".into()))
        };
        assert_eq!(counted(&sent(), completion).usage, Some(own));
        let cut = TokenUsage {
            output: 530,
            estimated: true,
            ..TokenUsage::default()
        };
        let completion = Completion {
            usage: Some(cut),
            ..Completion::from(ModelOutput::Text("hi".into()))
        };
        let usage = counted(&sent(), completion).usage.unwrap();
        assert_eq!(usage.output, 530, "the pieces that came");
        assert!(usage.input > 200 && usage.estimated);
    }
}
