//! What an agent's turn asks for, read from its model output: a reply, a
//! transfer, a tool call or (the coordinator's) member calls. Text is the
//! model's reply unless it is JSON naming one of those; whatever else
//! JSON the model returns is no turn at all. Pure functions.

pub(crate) use crate::gateway::Reading;
use crate::patterns::team::events::TurnOutcome;
use crate::provider::ModelOutput;
use crate::pycompat::{parse_model_text, py_strip};
use serde_json::{Map, Value, json};

/// The keys that say what a turn is, one per turn.
pub(crate) const ACTION_KEYS: [&str; 4] = [REPLY, TRANSFER_TO, CALL, CALL_MEMBERS];
pub(crate) const REPLY: &str = "reply";
pub(crate) const TRANSFER_TO: &str = "transfer_to";
pub(crate) const CALL: &str = "call";
pub(crate) const CALL_MEMBERS: &str = "call_members";
/// What a transfer and a tool call carry beside their key.
pub(crate) const MESSAGE: &str = "message";
pub(crate) const ARGS: &str = "args";
/// A member call's keys.
pub(crate) const MEMBER: &str = "member";
pub(crate) const TASK: &str = "task";

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    /// The agent answers; the text is stripped and not empty.
    Reply(String),
    /// The agent answered nothing (empty or blank text).
    Empty,
    Transfer {
        to: String,
    },
    Call {
        tool: String,
        args: Value,
    },
    CallMembers(Vec<MemberCall>),
    /// JSON that names a kind of turn but gets its shape wrong, or names
    /// none.
    Invalid,
}

impl Action {
    /// How the turn that asked for this ended.
    pub(crate) fn outcome(&self) -> TurnOutcome {
        match self {
            Action::Reply(_) => TurnOutcome::Reply,
            Action::Empty => TurnOutcome::Empty,
            Action::Transfer { .. } => TurnOutcome::Transfer,
            Action::Call { .. } => TurnOutcome::ToolCall,
            Action::CallMembers(_) => TurnOutcome::CallMembers,
            Action::Invalid => TurnOutcome::Invalid,
        }
    }
}

/// One member the coordinator asks, and what for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MemberCall {
    pub(crate) member: String,
    pub(crate) task: String,
}

/// The turn `output` asks for, and the output as the history records it
/// (text as `{"reply": text}` when it is a plain reply).
pub(crate) fn read(output: ModelOutput) -> (Action, Value) {
    match output.returned_json() {
        Ok(value) => (of_json(&value), value),
        Err(text) => match parse_model_text(&text) {
            Some(Value::Object(map)) if ACTION_KEYS.iter().any(|k| map.contains_key(*k)) => {
                (of_object(&map), Value::Object(map))
            }
            _ => {
                let answer = py_strip(&text);
                let action = if answer.is_empty() {
                    Action::Empty
                } else {
                    Action::Reply(answer.to_string())
                };
                (action, json!({REPLY: text}))
            }
        },
    }
}

/// The turn `output` asks for, read as `reading` says (the gateway's, for
/// the kind of its provider), and the output as the history records it.
/// An endpoint's text left over is a reply only when it is plain prose:
/// text that tries to be JSON and is not (a fence, a brace, an object cut
/// short) is no turn, and while the endpoint is asked for the contract
/// (`by_contract`) a reply comes only through it.
pub(crate) fn read_as(output: ModelOutput, reading: Reading) -> (Action, Value) {
    #[cfg(test)]
    crate::patterns::parses::note("turn");
    let Reading::Endpoint { by_contract } = reading else {
        return read(output);
    };
    match output.returned_json() {
        Ok(value) => (of_json(&value), value),
        Err(text) => {
            let answer = py_strip(&text);
            let action = if answer.is_empty() {
                Action::Empty
            } else if by_contract || crate::provider::lenient::looks_like_json(&text) {
                Action::Invalid
            } else {
                Action::Reply(answer.to_string())
            };
            let value = match action {
                Action::Invalid => Value::String(text),
                _ => json!({"reply": text}),
            };
            (action, value)
        }
    }
}

fn of_json(value: &Value) -> Action {
    match value {
        Value::Object(map) => of_object(map),
        _ => Action::Invalid,
    }
}

fn of_object(map: &Map<String, Value>) -> Action {
    let named: Vec<&str> = ACTION_KEYS
        .iter()
        .copied()
        .filter(|k| map.contains_key(*k))
        .collect();
    let [key] = named[..] else {
        return Action::Invalid;
    };
    match (key, &map[key]) {
        (REPLY, Value::String(text)) => {
            let answer = py_strip(text);
            if answer.is_empty() {
                Action::Empty
            } else {
                Action::Reply(answer.to_string())
            }
        }
        (TRANSFER_TO, Value::String(to)) => Action::Transfer { to: to.clone() },
        (CALL, Value::String(tool)) => match map.get(ARGS) {
            None => Action::Call {
                tool: tool.clone(),
                args: json!({}),
            },
            Some(args @ Value::Object(_)) => Action::Call {
                tool: tool.clone(),
                args: args.clone(),
            },
            Some(_) => Action::Invalid,
        },
        (CALL_MEMBERS, Value::Array(calls)) if !calls.is_empty() => calls
            .iter()
            .map(member_call)
            .collect::<Option<Vec<_>>>()
            .map_or(Action::Invalid, Action::CallMembers),
        _ => Action::Invalid,
    }
}

fn member_call(value: &Value) -> Option<MemberCall> {
    let member = value.get(MEMBER)?.as_str()?.to_string();
    let task = match value.get(TASK) {
        None => String::new(),
        Some(Value::String(task)) => task.clone(),
        Some(_) => return None,
    };
    Some(MemberCall { member, task })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Action {
        read(ModelOutput::Text(s.into())).0
    }

    fn json(v: Value) -> Action {
        read(ModelOutput::Json(v)).0
    }

    #[test]
    fn text_is_a_reply_unless_it_is_json_naming_a_turn() {
        assert_eq!(
            text("  Refund sent. "),
            Action::Reply("Refund sent.".into())
        );
        assert_eq!(text("{\"note\": 1}"), Action::Reply("{\"note\": 1}".into()));
        assert_eq!(text("42"), Action::Reply("42".into()));
        assert_eq!(
            text("{\"transfer_to\": \"billing\"}"),
            Action::Transfer {
                to: "billing".into()
            }
        );
        assert_eq!(text(""), Action::Empty);
        assert_eq!(text(" \n"), Action::Empty);
        assert_eq!(text("{\"reply\": 5}"), Action::Invalid);
    }

    #[test]
    fn an_endpoints_text_is_a_reply_only_when_it_is_plain_prose() {
        let lenient = Reading::Endpoint { by_contract: false };
        let read = |s: &str| read_as(ModelOutput::Text(s.into()), lenient).0;
        assert_eq!(read("Refund sent."), Action::Reply("Refund sent.".into()));
        assert_eq!(read("  "), Action::Empty);
        for broken in [
            "```json\n{\"reply\": \"Refund sent.\"",
            "{\"transfer_to\": \"billing\", \"mess",
            "Sure! {\"reply\": \"cut",
            "[1, 2]",
        ] {
            assert_eq!(read(broken), Action::Invalid, "{broken}");
        }
        let by_contract = Reading::Endpoint { by_contract: true };
        assert_eq!(
            read_as(ModelOutput::Text("Refund sent.".into()), by_contract).0,
            Action::Invalid,
            "asked for the contract, a reply comes through it"
        );
        assert_eq!(
            read_as(
                ModelOutput::Json(serde_json::json!({"reply": "ok"})),
                by_contract
            )
            .0,
            Action::Reply("ok".into())
        );
    }

    #[test]
    fn json_turns_take_one_kind_each() {
        assert_eq!(
            json(serde_json::json!({"reply": " ok "})),
            Action::Reply("ok".into())
        );
        assert_eq!(json(serde_json::json!({"reply": ""})), Action::Empty);
        assert_eq!(
            json(serde_json::json!({"transfer_to": "refunds", "message": "over to you"})),
            Action::Transfer {
                to: "refunds".into()
            }
        );
        assert_eq!(
            json(serde_json::json!({"call": "refund_api"})),
            Action::Call {
                tool: "refund_api".into(),
                args: serde_json::json!({})
            }
        );
        assert_eq!(
            json(
                serde_json::json!({"call_members": [{"member": "a", "task": "t"}, {"member": "b"}]})
            ),
            Action::CallMembers(vec![
                MemberCall {
                    member: "a".into(),
                    task: "t".into()
                },
                MemberCall {
                    member: "b".into(),
                    task: String::new()
                }
            ])
        );
        for invalid in [
            serde_json::json!({"reply": "a", "transfer_to": "b"}),
            serde_json::json!({"call": "x", "args": [1]}),
            serde_json::json!({"call_members": []}),
            serde_json::json!({"call_members": [{"task": "t"}]}),
            serde_json::json!({"note": "nothing to do"}),
            serde_json::json!([1, 2]),
        ] {
            assert_eq!(json(invalid.clone()), Action::Invalid, "{invalid}");
        }
    }
}
