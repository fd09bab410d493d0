//! A team agent's turn as an endpoint is asked for it, built from the keys
//! `action` reads and from the agent's part: a swarm agent may reply, hand
//! control to another agent of its team or call a tool (`turn`); a
//! coordinator may reply, call a tool or call its members
//! (`coordinator_turn`); a coordinator's member may reply or call a tool
//! (`turn`). Built once per agent and team run.
//!
//! Exactly one action a turn, said by the schema itself: each action is a
//! closed object of its own keys, and the turn is one of them (`anyOf`).
//! The strict subset's root is an object, never an `anyOf`, so a strict
//! answer is wrapped, `{"turn": {...}}`; `normalise` unwraps it. A grammar
//! that follows the schema can then not set two actions at once, nor write
//! a tool's `args` that do not even look like an object.

use super::action::{ARGS, CALL, CALL_MEMBERS, MEMBER, MESSAGE, REPLY, TASK, TRANSFER_TO};
use super::turn_calls;
pub(crate) use super::turn_shape::TurnShape;
use crate::provider::contract::{Contract, wire};
use serde_json::{Value, json};

/// The one key of a strict answer: the turn, as one of its forms.
pub(crate) const TURN: &str = "turn";

/// The contract of a turn shaped `shape`.
pub(crate) fn turn_contract(shape: &TurnShape) -> Contract {
    let keys = shape.action_keys();
    let mut forms: Vec<Value> = keys.iter().map(|key| form_of(key, shape)).collect();
    let listed: Vec<String> = keys.iter().map(|key| format!("`{key}`")).collect();
    let description = format!(
        "What you do this turn: exactly one of {}, as one of these forms.",
        listed.join(", ")
    );
    let turn = match forms.len() {
        1 => forms.remove(0),
        _ => json!({"description": description, "anyOf": forms}),
    };
    let (functions, answer_of_calls) = turn_calls::functions_and_reader(shape);
    Contract {
        name: if shape.coordinator {
            "coordinator_turn"
        } else {
            "turn"
        },
        schema: wire::object("Your turn.", vec![(TURN, turn)]),
        functions,
        answer_of_calls,
        normalise,
    }
}

/// The closed object of action `key`, with what it carries.
fn form_of(key: &str, shape: &TurnShape) -> Value {
    match key {
        REPLY => wire::object(
            "You answer.",
            vec![(
                REPLY,
                wire::string(
                    "Your answer to whoever asked (the user, or the coordinator that called you); it ends your turns.",
                ),
            )],
        ),
        TRANSFER_TO => wire::object(
            "You hand control to another agent of your team.",
            vec![
                (
                    TRANSFER_TO,
                    wire::one_of(
                        shape.targets.iter().map(String::as_str),
                        "The agent you hand control to.",
                    ),
                ),
                (
                    MESSAGE,
                    wire::nullable(wire::string("What you tell the agent you hand control to.")),
                ),
            ],
        ),
        CALL => wire::object(
            "You call a tool.",
            vec![
                (
                    CALL,
                    wire::one_of(TurnShape::names(&shape.tools), "The tool you call."),
                ),
                (
                    ARGS,
                    wire::object_as_string("the tool's arguments, {} when it takes none"),
                ),
            ],
        ),
        CALL_MEMBERS => {
            let call = wire::object(
                "One member and what you ask of it.",
                vec![
                    (
                        MEMBER,
                        wire::one_of(TurnShape::names(&shape.members), "The member you ask."),
                    ),
                    (TASK, wire::string("What you ask the member to do.")),
                ],
            );
            let calls = wire::bounded(
                wire::array(
                    call,
                    "The members you ask, all at once, in order: at least one.",
                ),
                1,
                None,
            );
            wire::object("You ask your members.", vec![(CALL_MEMBERS, calls)])
        }
        other => unreachable!("the action key {other} has no form"),
    }
}

/// A strict answer unwrapped, its nulls dropped and its args read back as
/// the object. An answer in the contract's own form (a `json` or
/// `prompted` one, or one recorded before turns were wrapped) is left as
/// it is.
fn normalise(mut turn: Value) -> Value {
    if let Value::Object(map) = &mut turn
        && map.len() == 1
        && map.get(TURN).is_some_and(Value::is_object)
        && let Some(inner) = map.shift_remove(TURN)
    {
        turn = inner;
    }
    if let Value::Object(map) = &mut turn {
        wire::drop_nulls(
            map,
            &[REPLY, TRANSFER_TO, MESSAGE, CALL, ARGS, CALL_MEMBERS],
        );
        if let Some(args) = map.get_mut(ARGS) {
            wire::object_of_string(args);
        }
    }
    turn
}

#[cfg(test)]
mod calls_tests;
#[cfg(test)]
mod tests;
