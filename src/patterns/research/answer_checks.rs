//! What is wrong with an endpoint's research answer before the workflow
//! takes it: the plan, a page's notes and the synthesis, checked by the
//! same rules the workflow applies, in words the model is asked again
//! with. The workflow still decides how a wrong answer stops the run.

use super::contract::{read_synthesis, validate_synthesis};
use super::plan::{plan_json, validate_plan};
use super::stops::{NotesError, ResearchStop};
use crate::patterns::answer_words;
use crate::provider::ModelOutput;
use crate::pycompat::parse_model_text;
use serde_json::{Value, json};

/// The plan's problem: 004's plan rules.
pub(crate) fn plan(output: &ModelOutput, max_steps: usize) -> Result<(), String> {
    let raw = plan_json(output.clone());
    validate_plan(&raw, max_steps)
        .map(|_| ())
        .map_err(|refusal| answer_words::problem(&refusal.reason, &raw, &["steps"]))
}

/// A page's notes' problem: `{"notes": [{"claim", "quote"}, ...]}` with
/// text in both. Whether a quote is on the page is the workflow's check.
pub(crate) fn notes(output: &ModelOutput) -> Result<(), String> {
    let raw = as_json(output);
    let Some(items) = raw.get("notes").and_then(Value::as_array) else {
        return Err(answer_words::problem(
            &ResearchStop::InvalidNotes(NotesError::Empty),
            &raw,
            &["notes"],
        ));
    };
    let written = |item: &Value, key: &str| item.get(key).is_some_and(Value::is_string);
    match items
        .iter()
        .position(|item| !written(item, "claim") || !written(item, "quote"))
    {
        Some(at) => Err(format!(
            "notes[{at}] needs \"claim\" and \"quote\" as text, the quote copied from the page"
        )),
        None => Ok(()),
    }
}

/// The synthesis's problem: 004's answer rules against the notes `ids`.
pub(crate) fn synthesis(
    output: &ModelOutput,
    ids: &[String],
    max_answer_chars: usize,
) -> Result<(), String> {
    let (answer, citations) = read_synthesis(output.clone());
    validate_synthesis(&answer, &citations, ids, max_answer_chars).map_err(|error| {
        answer_words::problem(
            &ResearchStop::InvalidAnswer(error),
            &as_json(output),
            &["answer", "citations"],
        )
    })
}

/// The answer as JSON, text that is none as 004 reads it.
fn as_json(output: &ModelOutput) -> Value {
    match output.clone().returned_json() {
        Ok(value) => value,
        Err(text) => {
            parse_model_text(&text).unwrap_or_else(|| json!({"invalid": true, "raw": text}))
        }
    }
}
