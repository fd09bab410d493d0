//! The research run's calls as the sim answers them: the plan (scripted
//! in `provider.plan`), the notes of a page and the synthesis (scripted in
//! `provider.synthesis`). What the sim writes when the scenario scripts no
//! `plan` or no `synthesis`: the five canonical steps searching for the
//! request's question, and a short answer from the first three notes that
//! cites them; and the notes of a page read for real: its first sentences,
//! each its own claim and quote. Pure functions of the request payload.

use crate::provider::sim::{Script, SimScript};
use crate::provider::{ModelOutput, ProviderError, Purpose};
use crate::pycompat::{py_str, py_strip};
use crate::scenario::ProviderSpec;
use serde_json::{Value, json};

/// The call for the research plan: the steps of the bounded workflow.
pub(crate) fn plan() -> Purpose {
    Purpose::new("research_plan", "plan", "plan", &PlanScript)
}

/// The call for the notes of one page the run read for real.
pub(crate) fn notes() -> Purpose {
    Purpose::new("notes", "notes", "read_extract", &NotesScript)
}

/// The call for the answer, written from the verified notes.
pub(crate) fn synthesis() -> Purpose {
    Purpose::new("synthesis", "synthesis", "synthesize", &SynthesisScript)
}

/// `provider.plan`: the plan, or the list of its steps given whole (a
/// research plan is asked for once).
#[derive(Debug)]
struct PlanScript;

impl SimScript for PlanScript {
    fn script<'a>(&self, spec: &'a ProviderSpec, _: &Purpose) -> Script<'a> {
        match &spec.plan {
            Some(plan) if plan.is_array() => Script::Whole(plan_of_steps(&plan.to_value())),
            Some(plan) => Script::Text(plan),
            None => Script::None,
        }
    }

    fn unscripted(&self, _: &Purpose, payload: &Value) -> Result<ModelOutput, ProviderError> {
        Ok(ModelOutput::Json(default_plan(payload)))
    }
}

/// The sim quotes the page it is given: notes are never scripted.
#[derive(Debug)]
struct NotesScript;

impl SimScript for NotesScript {
    fn script<'a>(&self, _: &'a ProviderSpec, _: &Purpose) -> Script<'a> {
        Script::None
    }

    fn unscripted(&self, _: &Purpose, payload: &Value) -> Result<ModelOutput, ProviderError> {
        Ok(ModelOutput::Json(notes_from_page(payload)))
    }
}

/// `provider.synthesis`.
#[derive(Debug)]
struct SynthesisScript;

impl SimScript for SynthesisScript {
    fn script<'a>(&self, spec: &'a ProviderSpec, _: &Purpose) -> Script<'a> {
        spec.synthesis
            .as_ref()
            .map_or(Script::None, Script::Outputs)
    }

    fn unscripted(&self, _: &Purpose, payload: &Value) -> Result<ModelOutput, ProviderError> {
        Ok(ModelOutput::Json(synthesis_from_notes(payload)))
    }
}

/// How the sim's own answer opens and closes around the notes' claims.
pub(crate) const ANSWER_OPENING: &str = "Summary from the notes: ";
pub(crate) const ANSWER_CLOSING: &str = " Figures and estimates may change as the sources update.";

/// A scripted list of steps, as the planner's output.
fn plan_of_steps(steps: &Value) -> Value {
    json!({"steps": steps})
}

/// Search for the question of the payload's request, then dedupe, read,
/// verify and answer.
fn default_plan(payload: &Value) -> Value {
    let question = payload
        .pointer("/request/request/question")
        .cloned()
        .unwrap_or(Value::Null);
    json!({"steps": [
        {"id": "r1", "action": "search_sources", "args": {"query": question}},
        {"id": "r2", "action": "dedupe_urls", "args": {}},
        {"id": "r3", "action": "read_extract_notes", "args": {}},
        {"id": "r4", "action": "verify_notes", "args": {}},
        {"id": "r5", "action": "synthesize_answer", "args": {}},
    ]})
}

/// The most notes the sim takes from one page.
const NOTES_PER_PAGE: usize = 2;

/// A sentence shorter than this cannot be a note's quote (004's verifier
/// wants 20 characters).
const MIN_QUOTE_CHARS: usize = 20;

/// The page's first sentences (text ending in `.`, `!` or `?`, of at
/// least 20 characters; headings and fragments are passed over), at most
/// two and at most the payload's `max_notes`, each quoted as its own
/// claim.
fn notes_from_page(payload: &Value) -> Value {
    let body = payload
        .pointer("/page/body")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let max = payload
        .get("max_notes")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(NOTES_PER_PAGE)
        .min(NOTES_PER_PAGE);
    let notes: Vec<Value> = sentences(body)
        .filter(|s| s.chars().count() >= MIN_QUOTE_CHARS)
        .take(max)
        .map(|s| json!({"claim": s, "quote": s}))
        .collect();
    json!({"notes": notes})
}

/// The sentences of `text`, line by line: each ends at `.`, `!` or `?`
/// followed by a space or the end of its line.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.lines().flat_map(|line| {
        let mut found = Vec::new();
        let mut start = 0;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (i, (at, c)) in chars.iter().enumerate() {
            let ends = matches!(c, '.' | '!' | '?')
                && chars
                    .get(i + 1)
                    .is_none_or(|(_, next)| next.is_whitespace());
            if ends {
                let end = at + c.len_utf8();
                found.push(line[start..end].trim());
                start = end;
            }
        }
        found
    })
}

/// The first three notes' claims between an opening and a closing, citing
/// those notes; no notes, no answer.
fn synthesis_from_notes(payload: &Value) -> Value {
    let notes = payload["notes"].as_array().map_or(&[][..], Vec::as_slice);
    if notes.is_empty() {
        return json!({"answer": "", "citations": []});
    }
    let chosen = &notes[..notes.len().min(3)];
    let text = |note: &Value, key: &str| note.get(key).map(py_str).unwrap_or_default();
    let citations: Vec<String> = chosen.iter().map(|n| text(n, "id")).collect();
    let claims: Vec<String> = chosen
        .iter()
        .map(|n| py_strip(&text(n, "claim")).to_string())
        .collect();
    json!({
        "answer": format!("{ANSWER_OPENING}{}{ANSWER_CLOSING}", claims.join(" ")),
        "citations": citations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_plan_searches_for_the_question() {
        let plan =
            default_plan(&json!({"goal": "g", "request": {"request": {"question": "Why?"}}}));
        assert_eq!(plan["steps"][0]["args"]["query"], "Why?");
        let actions: Vec<&str> = plan["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["action"].as_str().unwrap())
            .collect();
        assert_eq!(
            actions,
            [
                "search_sources",
                "dedupe_urls",
                "read_extract_notes",
                "verify_notes",
                "synthesize_answer"
            ]
        );
    }

    #[test]
    fn the_notes_of_a_page_are_its_first_sentences() {
        let page = |body: &str, max: u64| {
            notes_from_page(&json!({"page": {"body": body}, "max_notes": max}))
        };
        let body = "Card declines after the update
Declines rose to 4.1% on 4 March. Short one. Retries succeed within minutes!
A third sentence that is long enough.";
        assert_eq!(
            page(body, 6),
            json!({"notes": [
                {"claim": "Declines rose to 4.1% on 4 March.", "quote": "Declines rose to 4.1% on 4 March."},
                {"claim": "Retries succeed within minutes!", "quote": "Retries succeed within minutes!"}
            ]}),
            "the heading has no full stop, the short sentence is passed over"
        );
        assert_eq!(page(body, 1)["notes"].as_array().unwrap().len(), 1);
        assert_eq!(
            page("Version 2.1 is out now, said the team.", 6)["notes"][0]["quote"],
            "Version 2.1 is out now, said the team."
        );
        assert_eq!(page("", 6), json!({"notes": []}));
    }

    #[test]
    fn the_answer_takes_the_first_three_claims() {
        let note = |id: &str, claim: &str| json!({"id": id, "claim": claim});
        let payload = json!({"notes": [note("n1", " A. "), note("n2", "B."), note("n3", "C."), note("n4", "D.")]});
        assert_eq!(
            synthesis_from_notes(&payload),
            json!({"answer": format!("{ANSWER_OPENING}A. B. C.{ANSWER_CLOSING}"),
                   "citations": ["n1", "n2", "n3"]})
        );
        assert_eq!(
            synthesis_from_notes(&json!({"notes": []})),
            json!({"answer": "", "citations": []})
        );
    }
}
