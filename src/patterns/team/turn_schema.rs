//! A team agent's turn as an endpoint is asked for it, built from the keys
//! `action` reads and from the agent's part: a swarm agent may reply, hand
//! control to another agent of its team or call a tool (`turn`); a
//! coordinator may reply, call a tool or call its members
//! (`coordinator_turn`); a coordinator's member may reply or call a tool
//! (`turn`). Built once per agent and team run. Exactly one action key is
//! not null: the schema says so, and `action` is what enforces it.

use super::action::{
    ACTION_KEYS, ARGS, CALL, CALL_MEMBERS, MEMBER, MESSAGE, REPLY, TASK, TRANSFER_TO,
};
use super::turn_calls;
pub(crate) use super::turn_shape::TurnShape;
use crate::provider::contract::{Contract, wire};
use serde_json::Value;

/// The contract of a turn shaped `shape`.
pub(crate) fn turn_contract(shape: &TurnShape) -> Contract {
    let mut properties = Vec::new();
    let mut kinds = Vec::new();
    for key in ACTION_KEYS {
        let fields = fields_of(key, shape);
        if !fields.is_empty() {
            kinds.push(format!("`{key}`"));
        }
        properties.extend(fields);
    }
    let description = format!(
        "One turn: exactly one of {} is not null, and says what you do; the others are null.",
        kinds.join(", ")
    );
    Contract {
        name: if shape.coordinator {
            "coordinator_turn"
        } else {
            "turn"
        },
        schema: wire::object(&description, properties),
        functions: turn_calls::functions(shape),
        answer_of_calls: turn_calls::reader(shape),
        normalise,
    }
}

/// The schema's properties for action `key`, with what it carries; none
/// when the agent cannot take that action.
fn fields_of(key: &str, shape: &TurnShape) -> Vec<(&'static str, Value)> {
    let nullable = wire::nullable;
    match key {
        REPLY => vec![(
            REPLY,
            nullable(wire::string(
                "Your answer to whoever asked (the user, or the coordinator that called you); it ends your turns.",
            )),
        )],
        TRANSFER_TO if !shape.targets.is_empty() => vec![
            (
                TRANSFER_TO,
                nullable(wire::one_of(
                    shape.targets.iter().map(String::as_str),
                    "The agent you hand control to.",
                )),
            ),
            (
                MESSAGE,
                nullable(wire::string("What you tell the agent you hand control to.")),
            ),
        ],
        CALL if !shape.tools.is_empty() => vec![
            (
                CALL,
                nullable(wire::one_of(
                    TurnShape::names(&shape.tools),
                    "The tool you call.",
                )),
            ),
            (
                ARGS,
                nullable(wire::object_as_string("the tool's arguments")),
            ),
        ],
        CALL_MEMBERS if shape.coordinator => {
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
            let calls = wire::array(call, "The members you ask, all at once, in order.");
            vec![(CALL_MEMBERS, nullable(calls))]
        }
        _ => Vec::new(),
    }
}

/// A strict answer's nulls dropped and its args read back as the object.
fn normalise(mut turn: Value) -> Value {
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
