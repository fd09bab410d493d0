//! A turn read once for its check, and what is wrong with an endpoint's
//! turn in words the model can act on: what the answer did, then what it
//! may do, naming only the action keys of the agent's own turn (a swarm
//! agent is never told of `call_members`). Pure functions; the gateway
//! decides when to ask again.

use super::action::{ARGS, Action, CALL, CALL_MEMBERS, MEMBER, REPLY, TASK, TRANSFER_TO, read_as};
use crate::gateway::Reading;
use crate::patterns::answer_words::{args_rule, found};
use crate::provider::ModelOutput;
use serde_json::Value;

/// The turn `output` asks for and its output as the history records it,
/// read once as `reading` says; where the turn is wrong for an endpoint,
/// the same with what is wrong in words the model can act on. `keys`
/// are the action keys the agent's turn may set (its shape's), `agents`
/// whom the agent may hand off to or call (its part's agents). A
/// transfer or a call to a name that is not one fails here, to be
/// repaired; the pattern still decides what such a turn does once the
/// repairs run out.
pub(crate) fn checked(
    output: ModelOutput,
    reading: Reading,
    keys: &[&str],
    agents: &dyn Fn(&str) -> bool,
) -> Result<(Action, Value), Box<WrongTurn>> {
    let was_text = matches!(output, ModelOutput::Text(_));
    let (action, value) = read_as(output, reading);
    let answer = Answer {
        action: &action,
        value: &value,
        was_text,
        reading,
    };
    match problem(&answer, keys, agents) {
        None => Ok((action, value)),
        Some(problem) => Err(Box::new(WrongTurn {
            turn: (action, value),
            problem,
        })),
    }
}

/// A turn an endpoint's answer got wrong: the turn as read, and what is
/// wrong with it in words the model can act on.
pub(crate) struct WrongTurn {
    pub(crate) turn: (Action, Value),
    pub(crate) problem: String,
}

/// A turn as read from an endpoint's answer: the action, the answer as
/// the history records it, and whether it came as text.
pub(super) struct Answer<'a> {
    pub(super) action: &'a Action,
    pub(super) value: &'a Value,
    pub(super) was_text: bool,
    pub(super) reading: Reading,
}

/// What is wrong with `answer` from an agent whose turn may set `keys`
/// and name `agents`; `None` when nothing is.
pub(super) fn problem(
    answer: &Answer<'_>,
    keys: &[&str],
    agents: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let own_key = match answer.action {
        Action::Transfer { .. } => Some(TRANSFER_TO),
        Action::CallMembers(_) => Some(CALL_MEMBERS),
        _ => None,
    };
    if let Some(key) = own_key.filter(|key| !keys.contains(key)) {
        return Some(format!(
            "the answer sets {key}, which your turn cannot; set exactly one of {}",
            either(keys)
        ));
    }
    match answer.action {
        Action::Invalid => Some(invalid(answer, keys)),
        Action::Transfer { to } if !agents(to) => Some(format!(
            "there is no agent \"{to}\" to transfer to: name one of the agents you were given"
        )),
        Action::CallMembers(calls) => calls.iter().find(|call| !agents(&call.member)).map(|call| {
            format!(
                "there is no member \"{}\" to call: name only the members you were given",
                call.member
            )
        }),
        _ => None,
    }
}

/// An answer that is no turn: text that is not one JSON object, or an
/// object that sets none of the keys, several, or one with the wrong kind
/// of value.
fn invalid(answer: &Answer<'_>, keys: &[&str]) -> String {
    let Value::String(text) = answer.value else {
        return object_words(answer.value, keys);
    };
    if !answer.was_text || matches!(answer.reading, Reading::Exact) {
        return object_words(answer.value, keys);
    }
    if crate::provider::lenient::looks_like_json(text) {
        format!(
            "the answer is not one valid JSON object: answer with one JSON object that sets exactly one of {}",
            either(keys)
        )
    } else {
        format!(
            "a reply comes only through the contract: answer with one JSON object that sets exactly one of {}",
            either(keys)
        )
    }
}

/// What an object that is no turn did, and what it may do.
fn object_words(value: &Value, keys: &[&str]) -> String {
    let Value::Object(map) = value else {
        return format!(
            "the answer is not one JSON object: answer with one that sets exactly one of {}",
            either(keys)
        );
    };
    let set: Vec<&str> = super::action::ACTION_KEYS
        .into_iter()
        .filter(|key| map.get(*key).is_some_and(|v| !v.is_null()))
        .collect();
    match set.as_slice() {
        [] => {
            let others: Vec<&str> = map
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, _)| k.as_str())
                .collect();
            let did = match others.as_slice() {
                [] => "sets nothing".to_string(),
                others => format!("sets only {}", both(others)),
            };
            format!(
                "the answer {did}; exactly one of {} must be set",
                either(keys)
            )
        }
        [one] => match wrong_value(one, map) {
            Some(words) => words,
            None => format!(
                "the answer sets {one}, but not as a turn: set exactly one of {}",
                either(keys)
            ),
        },
        several => format!(
            "the answer sets {}; exactly one may be set ({}), the others left out or null",
            both(several),
            either(keys)
        ),
    }
}

/// What the one action key `key` set in `map` must hold, when its value
/// (or that of what it carries) is of the wrong kind.
fn wrong_value(key: &str, map: &serde_json::Map<String, Value>) -> Option<String> {
    let value = &map[key];
    match key {
        REPLY if !value.is_string() => Some(format!(
            "{REPLY} must be text; the answer has {}",
            found(value)
        )),
        TRANSFER_TO if !value.is_string() => Some(format!(
            "{TRANSFER_TO} must name one agent; the answer has {}",
            found(value)
        )),
        CALL if !value.is_string() => Some(format!(
            "{CALL} must name one tool; the answer has {}",
            found(value)
        )),
        CALL => map.get(ARGS).filter(|args| !args.is_object()).map(|args| {
            format!(
                "{}; the answer has {}",
                args_rule("the \"args\" of a tool call", "{\"order_id\": \"A-1042\"}"),
                found(args)
            )
        }),
        CALL_MEMBERS => Some(format!(
            "{CALL_MEMBERS} must list at least one {{\"{MEMBER}\": …, \"{TASK}\": …}}, each with the member's name and the task as text; the answer has {}",
            found(value)
        )),
        _ => None,
    }
}

/// `a`, `a or b`, `a, b or c`.
fn either(keys: &[&str]) -> String {
    listed(keys, "or")
}

/// `a`, `a and b`, `a, b and c`.
fn both(keys: &[&str]) -> String {
    listed(keys, "and")
}

fn listed(keys: &[&str], last: &str) -> String {
    match keys {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., tail] => format!("{} {last} {tail}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests;
