//! What an answer says besides its text: the function calls it made
//! (whole, or streamed a piece at a time), a refusal, and why it stopped.
//! Calls become the text the contract reads: the contract's own JSON when
//! they stand for an answer, else the calls written out, which then fail
//! the contract's check in its own words. Everything read is scrubbed.

use super::{OpenAiError, shown};
use crate::provider::contract::{Contract, Finish, ToolCall};
use crate::provider::output::Feature;
use crate::provider::{Completion, ModelOutput};
use crate::secrets;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// What one answer carried besides its content, gathered as it comes.
#[derive(Debug, Default)]
pub(super) struct Extras {
    /// Function calls by their index: name and arguments text so far.
    calls: BTreeMap<u64, (String, String)>,
    /// Arguments a server gave as JSON rather than text, by index.
    given: BTreeMap<u64, Value>,
    refusal: String,
    /// `finish_reason: "length"`.
    cut: bool,
}

impl Extras {
    /// A whole answer's choice: its message's calls and refusal, and its
    /// `finish_reason`.
    pub(super) fn of_choice(choice: &Value) -> Extras {
        let mut extras = Extras::default();
        extras.take(choice, "message");
        extras
    }

    /// A streamed chunk's choice: its delta's pieces, added to those
    /// before; the arguments text it brought, as it came (unscrubbed).
    pub(super) fn take_delta(&mut self, choice: &Value) -> String {
        self.take(choice, "delta")
    }

    /// Take a choice's `part`; the arguments text it brought.
    fn take(&mut self, choice: &Value, part: &str) -> String {
        let mut brought = String::new();
        let message = &choice[part];
        if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                let index = call["index"].as_u64().unwrap_or(position as u64);
                let (name, arguments) = self.calls.entry(index).or_default();
                // OpenAI sends the name once; some proxies repeat it whole
                // in every piece.
                if let Some(piece) = call.pointer("/function/name").and_then(Value::as_str)
                    && piece != name.as_str()
                {
                    name.push_str(piece);
                }
                match call.pointer("/function/arguments") {
                    Some(Value::String(piece)) => {
                        arguments.push_str(piece);
                        brought.push_str(piece);
                    }
                    Some(Value::Null) | None => {}
                    Some(value) => {
                        brought.push_str(&value.to_string());
                        self.given.insert(index, value.clone());
                    }
                }
            }
        }
        if let Some(words) = message.get("refusal").and_then(Value::as_str) {
            self.refusal.push_str(words);
        }
        if choice.get("finish_reason").and_then(Value::as_str) == Some("length") {
            self.cut = true;
        }
        brought
    }

    /// How many function calls the answer made.
    pub(super) fn calls(&self) -> usize {
        self.calls
            .keys()
            .chain(self.given.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    }

    /// The answer stops here, cut (`finish_reason: "length"`) whatever
    /// came before.
    pub(super) fn cut_here(&mut self) {
        self.cut = true;
    }

    /// The answer's text and why it stopped, from its `content` (already
    /// scrubbed) and what else it carried, for a request that asked for
    /// `contract`.
    pub(super) fn finish(self, content: String, contract: Option<&Contract>) -> (String, Finish) {
        let finish = if !self.refusal.trim().is_empty() {
            Finish::Refused(secrets::scrub_model_text(&self.refusal).into_owned())
        } else if self.cut {
            Finish::Length
        } else {
            Finish::Stop
        };
        if self.calls.is_empty() && self.given.is_empty() {
            // Some servers answer in text although tools were offered: the
            // text is the answer, read as a prompted one.
            return (content, finish);
        }
        let calls = self.into_calls();
        let text = match contract.map(|contract| (contract.answer_of_calls)(&calls)) {
            Some(Ok(answer)) => answer.to_string(),
            Some(Err(_)) | None => written(&calls),
        };
        (text, finish)
    }

    fn into_calls(mut self) -> Vec<ToolCall> {
        let mut indexes: Vec<u64> = self
            .calls
            .keys()
            .chain(self.given.keys())
            .copied()
            .collect();
        indexes.sort_unstable();
        indexes.dedup();
        indexes
            .into_iter()
            .map(|index| {
                let (name, text) = self.calls.remove(&index).unwrap_or_default();
                let arguments = self.given.remove(&index).unwrap_or_else(|| parsed(&text));
                ToolCall {
                    name: secrets::scrub_model_text(&name).into_owned(),
                    arguments: scrubbed(arguments),
                }
            })
            .collect()
    }
}

/// Arguments as JSON; text that is not JSON is kept as a string, so that
/// the contract's check fails on it and a repair can quote it.
fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

fn scrubbed(mut value: Value) -> Value {
    secrets::scrub_json(&mut value);
    value
}

/// Calls written out as text: `[{"name": …, "arguments": …}]`.
fn written(calls: &[ToolCall]) -> String {
    let calls: Vec<Value> = calls
        .iter()
        .map(|call| json!({"name": call.name, "arguments": call.arguments}))
        .collect();
    Value::Array(calls).to_string()
}

/// `completion`, unless the request forced a function call (tool mode
/// always does: the one function by name, or `required`) and the answer
/// made none while saying nothing of why (no refusal): the endpoint
/// ignored the tools, and the text, written without the contract the
/// functions carried, is not read as the answer. An answer cut at its
/// limit counts too when it wrote text: a server that honours a forced
/// call writes the call from the first token, so prose cut short (a small
/// model rambling on under `llama-server` with a template without tools)
/// is the tools ignored, not a call cut; a cut answer with no text at all
/// (its tokens spent reasoning) says nothing either way.
pub(super) fn called_as_forced(
    used: &[Feature],
    completion: Completion,
) -> Result<Completion, OpenAiError> {
    let wrote = matches!(&completion.output, ModelOutput::Text(text) if !text.trim().is_empty());
    let silent = match completion.finish {
        Finish::Stop => true,
        Finish::Length => wrote,
        Finish::Refused(_) => false,
    };
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
        spent: completion.usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(text: &str, finish: Finish) -> Completion {
        Completion {
            finish,
            ..Completion::from(ModelOutput::Text(text.into()))
        }
    }

    #[test]
    fn prose_where_a_call_was_forced_is_the_tools_ignored_even_when_cut() {
        let tools = [Feature::Tools];
        for finish in [Finish::Stop, Finish::Length] {
            let error =
                called_as_forced(&tools, answered("This is an example of", finish)).unwrap_err();
            assert!(
                matches!(&error, OpenAiError::Ignored { feature: Feature::Tools, said, .. }
                    if said.contains("made none") && said.contains("This is an example")),
                "{error:?}"
            );
        }
        // Cut with nothing written, refused, or not forced: not a sign.
        assert!(called_as_forced(&tools, answered("", Finish::Length)).is_ok());
        let refused = answered("", Finish::Refused("no".into()));
        assert!(called_as_forced(&tools, refused).is_ok());
        assert!(called_as_forced(&[], answered("prose", Finish::Length)).is_ok());
        // A call that was made, cut or not, is read as the call.
        let called = Completion {
            calls: 1,
            ..answered("{\"stance\": \"go", Finish::Length)
        };
        assert!(called_as_forced(&tools, called).is_ok());
    }
}
