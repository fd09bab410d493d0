//! The research contracts as an endpoint is asked for them, built from the
//! keys and actions `plan` and `contract` check: the plan (its steps'
//! actions the workflow's five), a page's notes, and the synthesis (its
//! citations the ids of the run's notes). A step's args are free-form, so
//! the wire form asks for them as a string holding the object.

use super::contract::{ANSWER, CITATIONS, CLAIM, MIN_QUOTE_CHARS, NOTES, QUOTE};
use super::plan::{EXPECTED_ACTIONS, STEP_KEYS, STEPS};
use crate::provider::contract::{Contract, wire};
use serde_json::Value;
use std::sync::{Arc, LazyLock};

/// The plan contract: the same for every run.
pub(crate) static RESEARCH_PLAN: LazyLock<Arc<Contract>> =
    LazyLock::new(|| Arc::new(research_plan_contract()));

/// The contract of a page's notes: the same for every run.
pub(crate) static NOTES_CONTRACT: LazyLock<Arc<Contract>> =
    LazyLock::new(|| Arc::new(notes_contract()));

fn research_plan_contract() -> Contract {
    let step = wire::object(
        "One step of the workflow.",
        STEP_KEYS
            .iter()
            .map(|key| (*key, step_property(key)))
            .collect(),
    );
    let steps = wire::array(
        step,
        &format!(
            "The workflow's steps, one per action, in this order: {}.",
            EXPECTED_ACTIONS.join(", ")
        ),
    );
    let steps = wire::bounded(steps, EXPECTED_ACTIONS.len(), Some(EXPECTED_ACTIONS.len()));
    let schema = wire::object("Your research plan.", vec![(STEPS, steps)]);
    wire::single("research_plan", schema, normalise_plan)
}

fn step_property(key: &str) -> Value {
    match key {
        "id" => wire::string("The step's id, not blank (r1, r2, ...)."),
        "action" => wire::one_of(EXPECTED_ACTIONS, "What the step does."),
        "args" => wire::object_as_string("the step's arguments, e.g. {\"query\": \"...\"} or {}"),
        other => unreachable!("the step key {other} has no schema"),
    }
}

/// Each step's args written as a string holding an object, read back as
/// the object.
fn normalise_plan(mut plan: Value) -> Value {
    let steps = plan.get_mut(STEPS).and_then(Value::as_array_mut);
    for step in steps.into_iter().flatten() {
        if let Some(args) = step.get_mut("args") {
            wire::object_of_string(args);
        }
    }
    plan
}

fn notes_contract() -> Contract {
    let note = wire::object(
        "One note.",
        vec![
            (CLAIM, wire::string("What the page says, in your words.")),
            (
                QUOTE,
                wire::string(&format!(
                    "The page's own words that bear the claim, copied exactly; at least {MIN_QUOTE_CHARS} characters."
                )),
            ),
        ],
    );
    let notes = wire::array(note, "The page's notes; none when it has nothing relevant.");
    let schema = wire::object("Your notes from the page.", vec![(NOTES, notes)]);
    wire::single("notes", schema, |answer| answer)
}

/// The synthesis contract of a run whose notes are `note_ids`: asked for
/// once a run, when the notes are known.
pub(crate) fn synthesis_contract(note_ids: &[String]) -> Contract {
    let id = "The id of a note that bears the answer.";
    let citation = match note_ids {
        // A run without notes stops before it; an empty enum is not a
        // schema.
        [] => wire::string(id),
        ids => wire::one_of(ids.iter().map(String::as_str), id),
    };
    let schema = wire::object(
        "Your answer from the notes.",
        vec![
            (ANSWER, wire::string("The answer, not empty.")),
            (
                CITATIONS,
                wire::bounded(
                    wire::array(citation, "The notes the answer rests on: at least one."),
                    1,
                    None,
                ),
            ),
        ],
    );
    wire::single("synthesis", schema, |answer| answer)
}

#[cfg(test)]
mod tests;
