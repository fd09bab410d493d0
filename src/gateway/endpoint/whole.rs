//! A recorded call's answer as one whole answer of its API, the form a
//! person edits and a fork serves: a whole answer as it was, a stream's
//! chunks folded, or a Responses stream's completed answer.

use super::Api;
use super::report::EndpointCall;
use serde_json::{Map, Value, json};

/// The whole answer of `call`, or why it has none.
pub(crate) fn whole_of(call: &EndpointCall) -> Result<Value, String> {
    let Some(answer) = &call.answer else {
        return Err(match (&call.answer_not_kept, &call.error) {
            (Some(why), _) => format!("its answer was not kept ({why})"),
            (None, Some(error)) => format!("it has no answer: {error}"),
            (None, None) => "it has no answer".to_string(),
        });
    };
    if !call.served() {
        return Err(format!(
            "it was not answered with a success (status {})",
            call.status.map_or("none".to_string(), |s| s.to_string())
        ));
    }
    let api = match call.api.as_str() {
        "responses" => Api::Responses,
        _ => Api::ChatCompletions,
    };
    match &answer.body {
        Some(body) => {
            serde_json::from_str(body).map_err(|e| format!("its answer is not JSON ({e})"))
        }
        None => whole_of_events(api, &answer.events),
    }
}

/// The JSON data of each event, `[DONE]` and comments left out.
fn data_of(events: &[String]) -> impl Iterator<Item = Value> + '_ {
    events.iter().filter_map(|event| {
        let data: String = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .collect();
        serde_json::from_str(&data).ok()
    })
}

/// A stream's `events` of `api` as the whole answer they make.
pub(crate) fn whole_of_events(api: Api, events: &[String]) -> Result<Value, String> {
    if api == Api::Responses {
        return data_of(events)
            .filter(|e| {
                matches!(
                    e["type"].as_str(),
                    Some("response.completed" | "response.incomplete" | "response.failed")
                )
            })
            .last()
            .map(|e| e["response"].clone())
            .ok_or_else(|| "its stream ended before its response.completed event".to_string());
    }
    let mut head = Map::new();
    let mut choices: Vec<Map<String, Value>> = Vec::new();
    let mut usage = Value::Null;
    let mut done = false;
    for chunk in data_of(events) {
        super::restream::chat_head(&chunk, &mut head);
        if chunk.get("usage").is_some_and(Value::is_object) {
            usage = chunk["usage"].clone();
        }
        for choice in chunk["choices"].as_array().into_iter().flatten() {
            let index = choice["index"].as_u64().unwrap_or(0) as usize;
            while choices.len() <= index {
                let mut message = Map::new();
                message.insert("role".into(), json!("assistant"));
                message.insert("content".into(), Value::Null);
                choices.push(message);
            }
            fold_delta(&mut choices[index], &choice["delta"]);
            if let Some(finish) = choice["finish_reason"].as_str() {
                choices[index].insert("\u{0}finish".into(), json!(finish));
                done = true;
            }
        }
    }
    if !done {
        return Err("its stream ended before a choice's finish_reason".to_string());
    }
    let choices: Vec<Value> = choices
        .into_iter()
        .enumerate()
        .map(|(index, mut message)| {
            let finish = message.remove("\u{0}finish").unwrap_or(Value::Null);
            json!({"index": index, "message": message, "finish_reason": finish, "logprobs": null})
        })
        .collect();
    let mut whole = head;
    whole.insert("object".into(), json!("chat.completion"));
    whole.insert("choices".into(), json!(choices));
    if !usage.is_null() {
        whole.insert("usage".into(), usage);
    }
    Ok(Value::Object(whole))
}

/// Fold one chunk's `delta` into the message so far: text and refusal
/// appended, each tool call by its index, its name and arguments appended.
fn fold_delta(message: &mut Map<String, Value>, delta: &Value) {
    let Some(delta) = delta.as_object() else {
        return;
    };
    for (key, value) in delta {
        match (key.as_str(), value) {
            ("content" | "refusal", Value::String(piece)) => {
                let so_far = message.get(key).and_then(Value::as_str).unwrap_or_default();
                let joined = format!("{so_far}{piece}");
                message.insert(key.clone(), json!(joined));
            }
            ("tool_calls", Value::Array(calls)) => {
                for call in calls {
                    fold_tool_call(message, call);
                }
            }
            (_, Value::Null) => {}
            _ => {
                message.insert(key.clone(), value.clone());
            }
        }
    }
}

fn fold_tool_call(message: &mut Map<String, Value>, call: &Value) {
    let calls = message.entry("tool_calls").or_insert_with(|| json!([]));
    let Some(calls) = calls.as_array_mut() else {
        return;
    };
    let index = call["index"].as_u64().unwrap_or(0) as usize;
    while calls.len() <= index {
        calls.push(
            json!({"id": null, "type": "function", "function": {"name": "", "arguments": ""}}),
        );
    }
    let whole = &mut calls[index];
    for key in ["id", "type"] {
        if let Some(value) = call.get(key).filter(|v| !v.is_null()) {
            whole[key] = value.clone();
        }
    }
    for key in ["name", "arguments"] {
        if let Some(piece) = call["function"][key].as_str() {
            let so_far = whole["function"][key].as_str().unwrap_or_default();
            whole["function"][key] = json!(format!("{so_far}{piece}"));
        }
    }
}
