//! The body of one chat-completions request: the messages (the system
//! prompt, the payload, and each round of repair as the failed answer and
//! what was wrong with it), how the answer is asked for in the run's
//! output mode, and the sampling, token and reasoning parameters. Every
//! text it sends is scrubbed of secrets. It notes the features it used,
//! so that a refusal is only ever read as naming one that was sent.

use super::OpenAiConfig;
use crate::provider::ModelRequest;
use crate::provider::contract::Contract;
use crate::provider::output::{Asking, Feature, Mode, TokenLimit};
use crate::provider::prompts::SystemPrompt;
use crate::secrets;
use serde_json::{Value, json};

/// A request's body and the features it carries.
pub(super) struct Sent {
    pub(super) body: Value,
    pub(super) used: Vec<Feature>,
}

/// The body asking `request` of the model as `asking` says.
pub(super) fn body(
    config: &OpenAiConfig,
    asking: Asking,
    system: &SystemPrompt,
    request: &ModelRequest,
) -> Sent {
    let contract = request.contract.as_deref();
    let mut used = Vec::new();
    let mut body = json!({
        "model": config.model,
        "messages": messages(&system_text(system, contract, asking.mode), request),
    });
    if let Some(temperature) = asking.temperature {
        body["temperature"] = number(temperature);
        used.push(Feature::Temperature);
    }
    if let Some(limit) = config.asking.max_output_tokens {
        body[asking.token_limit.as_str()] = json!(limit);
        if asking.token_limit == TokenLimit::MaxCompletionTokens {
            used.push(Feature::MaxCompletionTokens);
        }
    }
    if let Some(effort) = &config.asking.reasoning_effort {
        body["reasoning_effort"] = json!(effort);
    }
    let json_object = match (contract, asking.mode) {
        (_, Mode::Prompted) => false,
        (Some(contract), Mode::Native) => {
            body["response_format"] = json!({"type": "json_schema", "json_schema": {
                "name": contract.name, "strict": true, "schema": contract.schema}});
            used.push(Feature::JsonSchema);
            false
        }
        (Some(contract), Mode::Tool) if !contract.functions.is_empty() => {
            body["tools"] = tools(contract);
            body["tool_choice"] = tool_choice(contract);
            used.push(Feature::Tools);
            false
        }
        (Some(_), _) => true,
        (None, _) => system.json,
    };
    if json_object {
        body["response_format"] = json!({"type": "json_object"});
        used.push(Feature::ResponseFormat);
    }
    if config.stream {
        // Without `include_usage` a streaming endpoint counts no tokens.
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    Sent { body, used }
}

/// The system prompt; in `prompted` mode with the contract's schema after
/// it, since nothing else asks for the answer's shape.
fn system_text(system: &SystemPrompt, contract: Option<&Contract>, mode: Mode) -> String {
    let text = secrets::scrub(&system.text);
    match contract {
        Some(contract) if mode == Mode::Prompted => format!(
            "{text}\n\nAnswer with one JSON object that matches this JSON Schema, and nothing else:\n{}",
            contract.schema
        ),
        _ => text.into_owned(),
    }
}

/// The system prompt, the payload, then each round of repair: the failed
/// answer as the assistant's turn and what was wrong as the next user
/// message, as Instructor re-asks. An answer that came as function calls
/// is given back as their text, so no tool results need to follow it.
fn messages(system: &str, request: &ModelRequest) -> Value {
    let mut messages = vec![
        json!({"role": "system", "content": system}),
        json!({"role": "user", "content": payload_text(&request.payload_value())}),
    ];
    for turn in &request.repair {
        messages.push(json!({"role": "assistant", "content": secrets::scrub(&turn.answer)}));
        messages.push(json!({"role": "user", "content": secrets::scrub(&turn.error)}));
    }
    Value::Array(messages)
}

/// The payload as the model reads it, scrubbed of every secret (a model's
/// earlier answer, a scenario's text).
fn payload_text(payload: &Value) -> String {
    if secrets::is_active() {
        let mut payload = payload.clone();
        secrets::scrub_json(&mut payload);
        crate::pycompat::py_json_dumps(&payload)
    } else {
        crate::pycompat::py_json_dumps(payload)
    }
}

fn tools(contract: &Contract) -> Value {
    contract
        .functions
        .iter()
        .map(|function| {
            json!({"type": "function", "function": {
                "name": function.name,
                "description": function.description,
                "parameters": function.parameters,
                "strict": function.strict,
            }})
        })
        .collect()
}

/// The one function, by name; else any of them, but one.
fn tool_choice(contract: &Contract) -> Value {
    match &*contract.functions {
        [only] => json!({"type": "function", "function": {"name": only.name}}),
        _ => json!("required"),
    }
}

/// A temperature as it is written: a whole one as an integer, as Conclave
/// has always sent its 0.
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        json!(value as i64)
    } else {
        json!(value)
    }
}
