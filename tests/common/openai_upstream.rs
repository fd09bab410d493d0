//! An OpenAI-compatible upstream on the loopback server, answering as a
//! real one does for both APIs the frameworks' clients use: Chat
//! Completions (whole, or streamed in chunks with a usage chunk when
//! `stream_options.include_usage` asks) and the Responses API (whole, or
//! its streamed events ending in `response.completed` with usage). A
//! request that carries no tool result is answered with a call of the
//! first tool it offers; one that carries a result, with a text answer
//! quoting it. Each kind of answer has its own usage, so a test counts
//! what was served from the captured requests alone.

use super::loopback::{Captured, Loopback, Reply};
use serde_json::{Value, json};

/// The model every answer names.
pub const MODEL: &str = "test-model";
/// The arguments of every tool call.
pub const ARGUMENTS: &str = r#"{"city":"Paris"}"#;
/// The tokens an answer is served with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    /// The part of `input` served from the prompt cache.
    pub cached: u64,
    pub output: u64,
}

/// A tool call's tokens, and a text answer's (most of its prompt cached:
/// the conversation so far).
pub const TOOL_USAGE: Usage = Usage {
    input: 100,
    cached: 0,
    output: 20,
};
pub const ANSWER_USAGE: Usage = Usage {
    input: 150,
    cached: 100,
    output: 10,
};
/// The pieces a streamed text answer comes in, around the tool's result.
const BEFORE: &str = "In Paris it is ";
const AFTER: &str = ".";

/// The upstream, serving until the test process ends.
pub fn serve() -> Loopback {
    Loopback::serve(|request: &Captured, _| answer(request))
}

/// What one request to the upstream was: which API, whether it streamed,
/// and whether it was answered with a tool call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asked {
    pub responses: bool,
    pub stream: bool,
    pub tool_call: bool,
}

impl Asked {
    pub fn of(request: &Captured) -> Asked {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let responses = request.head.starts_with("POST /v1/responses");
        Asked {
            responses,
            stream: body["stream"] == true,
            tool_call: tool_result(&body, responses).is_none(),
        }
    }

    /// The tokens this request was served.
    pub fn usage(&self) -> Usage {
        if self.tool_call {
            TOOL_USAGE
        } else {
            ANSWER_USAGE
        }
    }
}

/// The final answer the upstream gives for a tool that returned `result`.
pub fn final_answer(result: &str) -> String {
    format!("{BEFORE}{result}{AFTER}")
}

fn answer(request: &Captured) -> Reply {
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        return Reply::json(400, &json!({"error": {"message": "not JSON"}}));
    };
    let asked = Asked::of(request);
    let tool = if asked.responses {
        body["tools"][0]["name"].as_str()
    } else {
        body["tools"][0]["function"]["name"].as_str()
    };
    let step = match (asked.tool_call, tool) {
        (true, Some(tool)) => Step::Tool(tool.to_string()),
        (true, None) => Step::Text("no tool offered".into()),
        (false, _) => Step::Text(tool_result(&body, asked.responses).unwrap_or_default()),
    };
    let usage = asked.usage();
    match (asked.responses, asked.stream) {
        (false, false) => Reply::json(200, &chat_whole(&step, usage)),
        (false, true) => {
            let with_usage = body["stream_options"]["include_usage"] == true;
            sse(chat_stream(&step, with_usage.then_some(usage)))
        }
        (true, false) => Reply::json(200, &response(&step, usage, "completed")),
        (true, true) => sse(response_events(&step, usage)),
    }
}

/// What the model answers: a call of the named tool, or text around a
/// tool's result.
enum Step {
    Tool(String),
    Text(String),
}

/// The tool's result the request carries, if it carries one: a `tool`
/// message's content, or a `function_call_output` item's output.
fn tool_result(body: &Value, responses: bool) -> Option<String> {
    let items = if responses {
        body["input"].as_array()?
    } else {
        body["messages"].as_array()?
    };
    let item = items.iter().rev().find(|m| {
        if responses {
            m["type"] == "function_call_output"
        } else {
            m["role"] == "tool"
        }
    })?;
    let content = if responses {
        &item["output"]
    } else {
        &item["content"]
    };
    Some(match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        other => other.to_string(),
    })
}

fn sse(body: String) -> Reply {
    Reply::text(200, &body)
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
}

fn chat_usage(usage: Usage) -> Value {
    json!({"prompt_tokens": usage.input, "completion_tokens": usage.output,
           "total_tokens": usage.input + usage.output,
           "prompt_tokens_details": {"cached_tokens": usage.cached},
           "completion_tokens_details": {"reasoning_tokens": 0}})
}

fn chat_whole(step: &Step, usage: Usage) -> Value {
    let (message, finish) = match step {
        Step::Tool(name) => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                   "function": {"name": name, "arguments": ARGUMENTS}}]}),
            "tool_calls",
        ),
        Step::Text(result) => (
            json!({"role": "assistant", "content": final_answer(result)}),
            "stop",
        ),
    };
    json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": MODEL,
           "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": null}],
           "usage": chat_usage(usage)})
}

/// A streamed Chat Completions answer: a chunk per piece, the finish, the
/// usage chunk when asked for, `[DONE]`.
fn chat_stream(step: &Step, usage: Option<Usage>) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-2", "object": "chat.completion.chunk", "created": 1, "model": MODEL,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": null}]})
    };
    let mut chunks = Vec::new();
    match step {
        Step::Tool(name) => {
            chunks.push(chunk(
                json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_1",
                       "type": "function", "function": {"name": name, "arguments": ""}}]}),
                Value::Null,
            ));
            let (head, tail) = ARGUMENTS.split_at(8);
            for piece in [head, tail] {
                chunks.push(chunk(
                    json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
                    Value::Null,
                ));
            }
            chunks.push(chunk(json!({}), json!("tool_calls")));
        }
        Step::Text(result) => {
            chunks.push(chunk(
                json!({"role": "assistant", "content": ""}),
                Value::Null,
            ));
            for piece in [BEFORE, result, AFTER] {
                chunks.push(chunk(json!({"content": piece}), Value::Null));
            }
            chunks.push(chunk(json!({}), json!("stop")));
        }
    }
    if let Some(usage) = usage {
        chunks.push(
            json!({"id": "chatcmpl-2", "object": "chat.completion.chunk", "created": 1,
                           "model": MODEL, "choices": [], "usage": chat_usage(usage)}),
        );
    }
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

/// The output item of a Responses API answer, as it ends.
fn item(step: &Step) -> Value {
    match step {
        Step::Tool(name) => json!({"type": "function_call", "id": "fc_1", "call_id": "call_1",
                                   "name": name, "arguments": ARGUMENTS, "status": "completed"}),
        Step::Text(result) => json!({"type": "message", "id": "msg_1", "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": final_answer(result), "annotations": []}]}),
    }
}

/// A Responses API answer in `status`, its output and usage once completed.
fn response(step: &Step, usage: Usage, status: &str) -> Value {
    let done = status == "completed";
    json!({"id": "resp_1", "object": "response", "created_at": 1, "status": status, "model": MODEL,
           "output": if done { json!([item(step)]) } else { json!([]) },
           "usage": if done { json!({"input_tokens": usage.input,
               "input_tokens_details": {"cached_tokens": usage.cached},
               "output_tokens": usage.output, "output_tokens_details": {"reasoning_tokens": 0},
               "total_tokens": usage.input + usage.output}) } else { Value::Null },
           "error": null, "incomplete_details": null, "instructions": null, "metadata": {},
           "parallel_tool_calls": true, "temperature": 1.0, "top_p": 1.0, "tool_choice": "auto",
           "tools": [], "text": {"format": {"type": "text"}}, "truncation": "disabled"})
}

/// A streamed Responses API answer: its events, each named, numbered, the
/// last `response.completed` with the usage.
fn response_events(step: &Step, usage: Usage) -> String {
    let whole = item(step);
    let mut events = vec![
        json!({"type": "response.created", "response": response(step, usage, "in_progress")}),
        json!({"type": "response.in_progress", "response": response(step, usage, "in_progress")}),
    ];
    let mut started = whole.clone();
    started["status"] = json!("in_progress");
    let id = whole["id"].clone();
    match step {
        Step::Tool(_) => {
            started["arguments"] = json!("");
            events.push(
                json!({"type": "response.output_item.added", "output_index": 0, "item": started}),
            );
            let (head, tail) = ARGUMENTS.split_at(8);
            for piece in [head, tail] {
                events.push(
                    json!({"type": "response.function_call_arguments.delta", "item_id": id,
                                   "output_index": 0, "delta": piece}),
                );
            }
            events.push(
                json!({"type": "response.function_call_arguments.done", "item_id": id,
                               "output_index": 0, "arguments": ARGUMENTS, "name": whole["name"]}),
            );
        }
        Step::Text(result) => {
            started["content"] = json!([]);
            events.push(
                json!({"type": "response.output_item.added", "output_index": 0, "item": started}),
            );
            let part = |text: &str| json!({"type": "output_text", "text": text, "annotations": []});
            let at = json!({"item_id": id, "output_index": 0, "content_index": 0});
            let with = |kind: &str, field: &str, value: Value| {
                let mut event = at.clone();
                event["type"] = json!(kind);
                event[field] = value;
                event
            };
            events.push(with("response.content_part.added", "part", part("")));
            for piece in [BEFORE, result, AFTER] {
                let mut delta = with("response.output_text.delta", "delta", json!(piece));
                delta["logprobs"] = json!([]);
                events.push(delta);
            }
            let text = final_answer(result);
            events.push(with("response.output_text.done", "text", json!(text)));
            events.push(with("response.content_part.done", "part", part(&text)));
        }
    }
    events.push(json!({"type": "response.output_item.done", "output_index": 0, "item": whole}));
    events.push(
        json!({"type": "response.completed", "response": response(step, usage, "completed")}),
    );
    let mut body = String::new();
    for (number, mut event) in events.into_iter().enumerate() {
        event["sequence_number"] = json!(number);
        body.push_str(&format!(
            "event: {}\ndata: {event}\n\n",
            event["type"].as_str().unwrap()
        ));
    }
    body
}
