//! Small contracts built by hand for the provider's tests: a verdict the
//! model submits through one function, and a coordinator's turn whose
//! member calls are several functions.

use crate::provider::contract::{Contract, Function, ToolCall};
use serde_json::{Value, json};
use std::sync::Arc;

pub(super) fn verdict_schema() -> Value {
    json!({"type": "object",
           "properties": {"stance": {"type": "string", "enum": ["go", "no_go"]},
                          "reason": {"type": ["string", "null"]}},
           "required": ["stance", "reason"], "additionalProperties": false})
}

/// A verdict, submitted by calling `submit_verdict` once.
pub(super) fn verdict() -> Arc<Contract> {
    Arc::new(Contract {
        name: "verdict",
        schema: verdict_schema(),
        functions: vec![Function {
            name: "submit_verdict".into(),
            description: "Give your verdict.".into(),
            parameters: verdict_schema(),
            strict: true,
        }]
        .into(),
        answer_of_calls: Arc::new(verdict_of_calls),
        normalise: |value| value,
    })
}

fn verdict_of_calls(calls: &[ToolCall]) -> Result<Value, String> {
    match calls {
        [call] if call.name == "submit_verdict" && call.arguments.is_object() => {
            Ok(call.arguments.clone())
        }
        [call] => Err(format!(
            "expected submit_verdict with an object, found {}",
            call.name
        )),
        _ => Err(format!("expected one call, found {}", calls.len())),
    }
}

/// A coordinator's turn: each call of `billing` or `shipping` is a task
/// for that member.
pub(super) fn members() -> Arc<Contract> {
    let task = json!({"type": "object", "properties": {"task": {"type": "string"}},
                      "required": ["task"], "additionalProperties": false});
    let member = |name: &str| Function {
        name: name.into(),
        description: format!("Ask {name}."),
        parameters: task.clone(),
        strict: true,
    };
    Arc::new(Contract {
        name: "coordinator_turn",
        schema: json!({"type": "object"}),
        functions: vec![member("billing"), member("shipping")].into(),
        answer_of_calls: Arc::new(members_of_calls),
        normalise: |value| value,
    })
}

fn members_of_calls(calls: &[ToolCall]) -> Result<Value, String> {
    let calls = calls
        .iter()
        .map(|call| match call.arguments.get("task") {
            Some(task) => Ok(json!({"member": call.name, "task": task})),
            None => Err(format!("{} was called without a task", call.name)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({"call_members": calls}))
}
