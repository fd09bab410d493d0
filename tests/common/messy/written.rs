//! The messy model's answer written as a chat completion: one
//! `chat.completion`, or server-sent `chat.completion.chunk`s a few
//! characters at a time.

use serde_json::{Value, json};

/// How many characters one streamed chunk carries.
pub(super) const CHUNK_CHARS: usize = 8;

/// What the model says, before it is written as a completion.
pub(super) enum Said {
    Text(String),
    /// Tool calls: each function's name and its arguments as JSON text.
    Calls(Vec<(String, String)>),
    Refusal(String),
}

pub(super) struct Answer {
    pub(super) said: Said,
    pub(super) finish: &'static str,
    pub(super) reasoning: Option<&'static str>,
    pub(super) usage: Value,
}

/// The answer as one `chat.completion`.
pub(super) fn whole(answer: &Answer) -> Value {
    let mut message = json!({"role": "assistant", "content": null});
    match &answer.said {
        Said::Text(text) => message["content"] = json!(text),
        Said::Refusal(words) => message["refusal"] = json!(words),
        Said::Calls(calls) => {
            message["tool_calls"] = calls
                .iter()
                .enumerate()
                .map(|(i, (name, arguments))| {
                    json!({"id": format!("call_{i}"), "type": "function",
                           "function": {"name": name, "arguments": arguments}})
                })
                .collect();
        }
    }
    if let Some(reasoning) = answer.reasoning {
        message["reasoning_content"] = json!(reasoning);
    }
    json!({
        "id": "chatcmpl-messy", "object": "chat.completion", "model": "messy-model",
        "choices": [{"index": 0, "finish_reason": answer.finish, "message": message}],
        "usage": answer.usage
    })
}

/// The answer as server-sent `chat.completion.chunk`s, a few characters a
/// chunk: the reasoning first, then the content (or the refusal, or each
/// tool call's name and then its arguments), the finish, the usage in a
/// last chunk without choices, and `[DONE]`.
pub(super) fn stream(answer: &Answer) -> String {
    let mut deltas = vec![match answer.said {
        Said::Text(_) | Said::Calls(_) => json!({"role": "assistant", "content": ""}),
        Said::Refusal(_) => json!({"role": "assistant", "content": null, "refusal": ""}),
    }];
    for piece in pieces(answer.reasoning.unwrap_or_default()) {
        deltas.push(json!({"reasoning_content": piece}));
    }
    match &answer.said {
        Said::Text(text) => deltas.extend(pieces(text).map(|piece| json!({"content": piece}))),
        Said::Refusal(words) => deltas.extend(pieces(words).map(|piece| json!({"refusal": piece}))),
        Said::Calls(calls) => {
            for (i, (name, arguments)) in calls.iter().enumerate() {
                deltas.push(json!({"tool_calls": [{"index": i, "id": format!("call_{i}"), "type": "function",
                                                   "function": {"name": name, "arguments": ""}}]}));
                deltas.extend(pieces(arguments).map(
                    |piece| json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
                ));
            }
        }
    }
    let chunk = |choices: Value, usage: Option<&Value>| {
        let mut chunk = json!({"id": "chatcmpl-messy", "object": "chat.completion.chunk",
                               "model": "messy-model", "choices": choices});
        if let Some(usage) = usage {
            chunk["usage"] = usage.clone();
        }
        format!("data: {chunk}\n\n")
    };
    let mut events: String = deltas
        .into_iter()
        .map(|delta| {
            chunk(
                json!([{"index": 0, "delta": delta, "finish_reason": null}]),
                None,
            )
        })
        .collect();
    events.push_str(&chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": answer.finish}]),
        None,
    ));
    events.push_str(&chunk(json!([]), Some(&answer.usage)));
    events.push_str("data: [DONE]\n\n");
    events
}

/// `text` in pieces of a few characters.
fn pieces(text: &str) -> impl Iterator<Item = String> + '_ {
    let chars: Vec<char> = text.chars().collect();
    let count = chars.len().div_ceil(CHUNK_CHARS);
    (0..count).map(move |i| {
        chars[i * CHUNK_CHARS..((i + 1) * CHUNK_CHARS).min(chars.len())]
            .iter()
            .collect()
    })
}

/// A stream the server interrupted (as llama-cpp-python does when another
/// request arrives): `text` so far, then `[DONE]`, with no finish reason
/// and no usage.
pub(super) fn interrupted(text: &str) -> String {
    let mut events = String::new();
    let deltas = std::iter::once(json!({"role": "assistant", "content": ""}))
        .chain(pieces(text).map(|piece| json!({"content": piece})));
    for delta in deltas {
        let chunk = json!({"id": "chatcmpl-messy", "object": "chat.completion.chunk",
                           "model": "messy-model",
                           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
        events.push_str(&format!("data: {chunk}\n\n"));
    }
    events.push_str("data: [DONE]\n\n");
    events
}
