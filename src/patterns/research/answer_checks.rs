//! How the workflow reads a research answer, once, in the gateway's
//! check: the plan, a page's notes and the synthesis, read by the rules
//! the workflow applies, with what is wrong with an answer in words the
//! model is asked again with (an endpoint's; the sim's is never asked
//! again). The workflow still decides how a wrong answer stops the run.

use super::contract::{
    answer_json, read_page_notes, synthesis_json, synthesis_of, validate_synthesis,
};
use super::plan::{PlanRefusal, PlanStep, plan_json, validate_plan};
use super::stops::{AnswerError, NotesError, ResearchStop, StepError};
use crate::patterns::answer_words;
use crate::provider::ModelOutput;
use serde_json::{Value, json};

/// The plan read by 004's plan rules: its steps, or the refusal with the
/// plan as read.
pub(crate) fn plan(
    output: ModelOutput,
    max_steps: usize,
) -> Result<Vec<PlanStep>, Box<(PlanRefusal, Value)>> {
    let raw = plan_json(output);
    validate_plan(&raw, max_steps).map_err(|refusal| Box::new((refusal, raw)))
}

/// What is wrong with a plan, for the model.
pub(crate) fn plan_problem((refusal, raw): &(PlanRefusal, Value)) -> String {
    match &refusal.reason {
        reason @ ResearchStop::InvalidStep(StepError::Args) => answer_words::args_problem(
            reason,
            raw,
            ("steps", "step"),
            "{\"query\": \"payments outage\"}",
        ),
        reason @ ResearchStop::InvalidStep(StepError::Id) => {
            answer_words::id_problem(reason, raw, ("steps", "step"), "r1")
        }
        reason => answer_words::problem(reason, raw, &["steps"]),
    }
}

/// A page's notes read: those kept from the page (`read_page_notes`), or,
/// where the answer is not `{"notes": [{"claim", "quote"}, ...]}` with
/// text in both, what is wrong with it and the notes kept all the same.
/// Whether a quote is on the page is the workflow's check.
pub(crate) fn notes(
    output: ModelOutput,
    page: &Value,
    url: &str,
) -> Result<Vec<Value>, (String, Vec<Value>)> {
    let raw = answer_json(output);
    let kept = read_page_notes(&raw, page, url);
    let Some(items) = raw.get("notes").and_then(Value::as_array) else {
        let problem = answer_words::problem(
            &ResearchStop::InvalidNotes(NotesError::Empty),
            &raw,
            &["notes"],
        );
        return Err((problem, kept));
    };
    let written = |item: &Value, key: &str| item.get(key).is_some_and(Value::is_string);
    match items
        .iter()
        .position(|item| !written(item, "claim") || !written(item, "quote"))
    {
        Some(at) => Err((
            format!(
                "notes[{at}] needs \"claim\" and \"quote\" as text, the quote copied from the page"
            ),
            kept,
        )),
        None => Ok(kept),
    }
}

/// The synthesis read by 004's answer rules against the notes `ids`: its
/// answer and citations, or the rejection with the answer as JSON for the
/// words the model is told (empty text is text that is not JSON there).
pub(crate) fn synthesis(
    output: ModelOutput,
    ids: &[String],
    max_answer_chars: usize,
) -> Result<(String, Vec<String>), (AnswerError, Value)> {
    let empty = matches!(&output, ModelOutput::Text(text) if text.is_empty());
    let raw = synthesis_json(output);
    let (answer, citations) = synthesis_of(&raw);
    match validate_synthesis(&answer, &citations, ids, max_answer_chars) {
        Ok(()) => Ok((answer, citations)),
        Err(error) => {
            let raw = if empty {
                json!({"invalid": true, "raw": ""})
            } else {
                raw
            };
            Err((error, raw))
        }
    }
}

/// What is wrong with a synthesis, for the model.
pub(crate) fn synthesis_problem((error, raw): &(AnswerError, Value)) -> String {
    answer_words::problem(
        &ResearchStop::InvalidAnswer(error.clone()),
        raw,
        &["answer", "citations"],
    )
}
