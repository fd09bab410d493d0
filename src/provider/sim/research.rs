//! What the sim writes for a research run whose scenario scripts no `plan`
//! or no `synthesis`: the five canonical steps searching for the request's
//! question, and a short answer from the first three notes that cites
//! them. Pure functions of the request payload.

use crate::pycompat::{py_str, py_strip};
use serde_json::{Value, json};

/// How the sim's own answer opens and closes around the notes' claims.
pub(crate) const ANSWER_OPENING: &str = "Summary from the notes: ";
pub(crate) const ANSWER_CLOSING: &str = " Figures and estimates may change as the sources update.";

/// A scripted list of steps, as the planner's output.
pub(super) fn plan_of_steps(steps: &Value) -> Value {
    json!({"steps": steps})
}

/// Search for the question of the payload's request, then dedupe, read,
/// verify and answer.
pub(super) fn default_plan(payload: &Value) -> Value {
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

/// The first three notes' claims between an opening and a closing, citing
/// those notes; no notes, no answer.
pub(super) fn synthesis_from_notes(payload: &Value) -> Value {
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
