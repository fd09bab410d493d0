//! A whole answer as the stream its API would have sent for it (Chat
//! Completions' chunks, the Responses API's events), for a client that
//! asks for a stream; it reads only the answer it is given.

use super::Api;
use serde_json::{Map, Value, json};

/// `answer`, a whole answer of `api`, as its stream's events, each with
/// its blank line; `with_usage`: the client asked for Chat Completions'
/// usage chunk.
pub(crate) fn events_of(api: Api, answer: &Value, with_usage: bool) -> Vec<String> {
    match api {
        Api::Responses => responses_events(answer),
        _ => chat_events(answer, with_usage),
    }
}

/// Chat Completions: per choice, a chunk with its whole message as the
/// delta and one with its finish reason; the usage chunk; `[DONE]`.
fn chat_events(answer: &Value, with_usage: bool) -> Vec<String> {
    let mut head = Map::new();
    chat_head(answer, &mut head);
    head.insert("object".into(), json!("chat.completion.chunk"));
    let chunk = |choices: Value| {
        let mut chunk = head.clone();
        chunk.insert("choices".into(), choices);
        format!("data: {}\n\n", Value::Object(chunk))
    };
    let mut events = Vec::new();
    let choices = answer["choices"].as_array().cloned().unwrap_or_default();
    for (at, choice) in choices.iter().enumerate() {
        let index = choice.get("index").cloned().unwrap_or_else(|| json!(at));
        let mut delta = choice["message"].as_object().cloned().unwrap_or_default();
        if let Some(Value::Array(calls)) = delta.get_mut("tool_calls") {
            for (n, call) in calls.iter_mut().enumerate() {
                if let Some(call) = call.as_object_mut() {
                    call.entry("index").or_insert(json!(n));
                }
            }
        }
        delta.entry("role").or_insert(json!("assistant"));
        events.push(chunk(json!([{"index": index, "delta": delta,
            "finish_reason": null, "logprobs": null}])));
        let finish = choice.get("finish_reason").cloned().unwrap_or(Value::Null);
        events.push(chunk(json!([{"index": index, "delta": {},
            "finish_reason": finish, "logprobs": null}])));
    }
    if let Some(usage) = answer.get("usage").filter(|u| with_usage && u.is_object()) {
        let mut last = head.clone();
        last.insert("choices".into(), json!([]));
        last.insert("usage".into(), usage.clone());
        events.push(format!("data: {}\n\n", Value::Object(last)));
    }
    events.push("data: [DONE]\n\n".to_string());
    events
}

/// The fields of a Chat Completions answer or chunk that every chunk of
/// its stream repeats, taken into `head` where it has none yet.
pub(super) fn chat_head(value: &Value, head: &mut Map<String, Value>) {
    for key in [
        "id",
        "created",
        "model",
        "system_fingerprint",
        "service_tier",
    ] {
        if let Some(value) = value.get(key).filter(|v| !v.is_null()) {
            head.entry(key).or_insert_with(|| value.clone());
        }
    }
}

/// The Responses API's events of `answer`, numbered in order.
fn responses_events(answer: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut started = answer.clone();
    started["status"] = json!("in_progress");
    started["output"] = json!([]);
    started["usage"] = Value::Null;
    out.push(json!({"type": "response.created", "response": started}));
    out.push(json!({"type": "response.in_progress", "response": started}));
    let items = answer["output"].as_array().cloned().unwrap_or_default();
    for (at, item) in items.iter().enumerate() {
        item_events(&mut out, at, item);
    }
    let last = match answer["status"].as_str() {
        Some("incomplete") => "response.incomplete",
        Some("failed") => "response.failed",
        _ => "response.completed",
    };
    out.push(json!({"type": last, "response": answer}));
    out.into_iter()
        .enumerate()
        .map(|(number, mut event)| {
            event["sequence_number"] = json!(number);
            let kind = event["type"].as_str().unwrap_or_default().to_string();
            format!("event: {kind}\ndata: {event}\n\n")
        })
        .collect()
}

/// The events of one output item: added (empty), its text or arguments in
/// one delta and done, then done whole.
fn item_events(out: &mut Vec<Value>, at: usize, item: &Value) {
    let id = item.get("id").cloned().unwrap_or(Value::Null);
    let mut added = item.clone();
    added["status"] = json!("in_progress");
    match item["type"].as_str() {
        Some("message") => added["content"] = json!([]),
        Some("function_call") => added["arguments"] = json!(""),
        _ => {}
    }
    out.push(json!({"type": "response.output_item.added", "output_index": at, "item": added}));
    if item["type"] == "function_call" {
        let arguments = item.get("arguments").cloned().unwrap_or(json!(""));
        out.push(
            json!({"type": "response.function_call_arguments.delta", "item_id": id,
            "output_index": at, "delta": arguments}),
        );
        out.push(
            json!({"type": "response.function_call_arguments.done", "item_id": id,
            "output_index": at, "arguments": arguments, "name": item["name"]}),
        );
    }
    let parts = item["content"].as_array().cloned().unwrap_or_default();
    for (n, part) in parts
        .iter()
        .enumerate()
        .filter(|_| item["type"] == "message")
    {
        let at_part = |kind: &str| json!({"type": kind, "item_id": id, "output_index": at, "content_index": n});
        let mut empty = part.clone();
        let (delta_kind, done_kind, field) = match part["type"].as_str() {
            Some("refusal") => ("response.refusal.delta", "response.refusal.done", "refusal"),
            _ => (
                "response.output_text.delta",
                "response.output_text.done",
                "text",
            ),
        };
        empty[field] = json!("");
        let mut added = at_part("response.content_part.added");
        added["part"] = empty;
        out.push(added);
        let text = part.get(field).cloned().unwrap_or(json!(""));
        let mut delta = at_part(delta_kind);
        delta["delta"] = text.clone();
        let mut done = at_part(done_kind);
        done[field] = text;
        if field == "text" {
            delta["logprobs"] = json!([]);
            done["logprobs"] = json!([]);
        }
        out.push(delta);
        out.push(done);
        let mut part_done = at_part("response.content_part.done");
        part_done["part"] = part.clone();
        out.push(part_done);
    }
    out.push(json!({"type": "response.output_item.done", "output_index": at, "item": item}));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(event: &str) -> Value {
        let line = event
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .unwrap();
        serde_json::from_str(line).unwrap_or(Value::Null)
    }

    #[test]
    fn a_chat_answer_streams_as_its_chunks_and_reads_back_whole() {
        let answer = json!({"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                "tool_calls": [{"id": "t1", "type": "function",
                    "function": {"name": "weather", "arguments": "{\"city\":\"Lyon\"}"}}]},
                "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}});
        let events = events_of(Api::ChatCompletions, &answer, true);
        assert_eq!(events.last().unwrap(), "data: [DONE]\n\n");
        assert_eq!(
            data(&events[0])["choices"][0]["delta"]["tool_calls"][0]["index"],
            0
        );
        assert_eq!(
            data(&events[1])["choices"][0]["finish_reason"],
            "tool_calls"
        );
        assert_eq!(data(&events[2])["usage"]["total_tokens"], 5);
        let without = events_of(Api::ChatCompletions, &answer, false);
        assert_eq!(without.len(), 3, "no usage chunk unless asked: {without:?}");
        let whole = super::super::whole::whole_of_events(Api::ChatCompletions, &events).unwrap();
        assert_eq!(
            whole["choices"][0]["message"],
            answer["choices"][0]["message"]
        );
        assert_eq!(whole["usage"], answer["usage"]);
    }

    #[test]
    fn a_responses_answer_streams_as_its_events_ending_completed() {
        let answer = json!({"id": "r1", "object": "response", "status": "completed", "model": "m",
            "output": [{"type": "message", "id": "m1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "It rains.", "annotations": []}]},
                {"type": "function_call", "id": "f1", "call_id": "c1", "name": "weather",
                 "arguments": "{}", "status": "completed"}],
            "usage": {"input_tokens": 4, "output_tokens": 3}});
        let events = events_of(Api::Responses, &answer, false);
        let kinds: Vec<String> = events
            .iter()
            .map(|e| data(e)["type"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(kinds.first().unwrap(), "response.created");
        assert!(kinds.contains(&"response.output_text.delta".to_string()));
        assert!(kinds.contains(&"response.function_call_arguments.done".to_string()));
        assert_eq!(data(events.last().unwrap())["response"], answer);
        for (n, event) in events.iter().enumerate() {
            assert!(event.starts_with("event: ") && event.ends_with("\n\n"));
            assert_eq!(data(event)["sequence_number"], n);
        }
        let whole = super::super::whole::whole_of_events(Api::Responses, &events).unwrap();
        assert_eq!(whole, answer);
    }
}
