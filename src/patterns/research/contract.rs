//! The research gateway's contracts, after 004's: a tool's output
//! (`_unwrap_tool_data`), the notes (`validate_notes`) and the answer
//! (`validate_synthesis`), each checked in 004's order so that the first
//! failing rule names the stop reason. Pure functions over untrusted JSON.

use super::stops::{AnswerError, NotesError, ResearchStop};
use crate::provider::ModelOutput;
use crate::pycompat::{parse_model_text, py_str, py_strip};
use crate::stop::StopReason;
use serde_json::{Map, Value, json};

/// A note's quote must hold at least this many characters once stripped.
pub(super) const MIN_QUOTE_CHARS: usize = 20;

/// The keys of a model's notes from a page (`{"notes": [{"claim",
/// "quote"}]}`) and of its synthesis (`{"answer", "citations"}`).
pub(super) const NOTES: &str = "notes";
pub(super) const CLAIM: &str = "claim";
pub(super) const QUOTE: &str = "quote";
pub(super) const ANSWER: &str = "answer";
pub(super) const CITATIONS: &str = "citations";

/// The `data` of a tool's output `{"status": "ok", "data": {...}}`;
/// anything else stops the run with `tool_invalid_output:<tool>`.
pub(crate) fn tool_data(raw: &Value, tool: &str) -> Result<Map<String, Value>, StopReason> {
    match (raw.get("status"), raw.get("data")) {
        (Some(Value::String(status)), Some(Value::Object(data))) if status == "ok" => {
            Ok(data.clone())
        }
        _ => Err(ResearchStop::ToolInvalidOutput {
            tool: tool.to_string(),
        }
        .into()),
    }
}

/// Check the extracted notes: at least one, at most `max_notes`, each an
/// object with a non-blank text id, url and claim and a quote of at least
/// 20 characters.
pub(crate) fn validate_notes(notes: &[Value], max_notes: usize) -> Result<(), NotesError> {
    if notes.is_empty() {
        return Err(NotesError::Empty);
    }
    if notes.len() > max_notes {
        return Err(NotesError::TooMany);
    }
    for note in notes {
        let Value::Object(note) = note else {
            return Err(NotesError::Item);
        };
        let text = |key: &str| note.get(key).and_then(Value::as_str).map(py_strip);
        let filled = |key: &str| text(key).is_some_and(|s| !s.is_empty());
        if !filled("id") {
            return Err(NotesError::Id);
        }
        if !filled("url") {
            return Err(NotesError::Url);
        }
        if !filled(CLAIM) {
            return Err(NotesError::Claim);
        }
        if text(QUOTE).is_none_or(|q| q.chars().count() < MIN_QUOTE_CHARS) {
            return Err(NotesError::Quote);
        }
    }
    Ok(())
}

/// The synthesis as 004 reads it: `str(answer)` stripped (empty when
/// absent), and each citation as stripped text, blanks dropped. Text is
/// parsed as JSON (empty as `{}`, non-JSON as `{"invalid": true, "raw":
/// text}`); an output that is not an object has neither. Like Python,
/// citations given as text are read character by character and as an
/// object by key; any other non-list gives none.
#[cfg(test)]
pub(crate) fn read_synthesis(output: ModelOutput) -> (String, Vec<String>) {
    synthesis_of(&synthesis_json(output))
}

/// The synthesis answer as JSON, as [`read_synthesis`] parses it.
pub(crate) fn synthesis_json(output: ModelOutput) -> Value {
    #[cfg(test)]
    crate::patterns::parses::note("synthesis");
    match output.returned_json() {
        Ok(value) => value,
        Err(text) if text.is_empty() => json!({}),
        Err(text) => answer_json(ModelOutput::Text(text)),
    }
}

/// The answer and citations of a synthesis parsed by [`synthesis_json`].
pub(crate) fn synthesis_of(value: &Value) -> (String, Vec<String>) {
    let answer = value
        .get(ANSWER)
        .map(|a| py_strip(&py_str(a)).to_string())
        .unwrap_or_default();
    let items: Vec<String> = match value.get(CITATIONS) {
        Some(Value::Array(items)) => items.iter().map(py_str).collect(),
        Some(Value::String(text)) => text.chars().map(String::from).collect(),
        Some(Value::Object(map)) => map.keys().cloned().collect(),
        _ => Vec::new(),
    };
    let citations = items
        .iter()
        .map(|c| py_strip(c))
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    (answer, citations)
}

/// An answer as JSON, text that is none as 004 reads it (`{"invalid":
/// true, "raw": text}`).
pub(crate) fn answer_json(output: ModelOutput) -> Value {
    match output.returned_json() {
        Ok(value) => value,
        Err(text) => {
            parse_model_text(&text).unwrap_or_else(|| json!({"invalid": true, "raw": text}))
        }
    }
}

/// The notes a model took from a page read for real (its answer as
/// [`answer_json`] reads it), with their provenance (the URL the pattern
/// read, the page's title and date). A note is kept only when its claim
/// and quote are texts and its quote is on the page (spaces aside), so
/// that no citation rests on words the page does not hold. A page may
/// yield none.
pub(crate) fn read_page_notes(value: &Value, page: &Value, url: &str) -> Vec<Value> {
    #[cfg(test)]
    crate::patterns::parses::note("notes");
    let squeeze = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let body = squeeze(page.get("body").and_then(Value::as_str).unwrap_or(""));
    let field = |key: &str| page.get(key).cloned().unwrap_or_else(|| "".into());
    let items = value.get(NOTES).and_then(Value::as_array);
    items
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let claim = py_strip(item.get(CLAIM)?.as_str()?);
            let quote = py_strip(item.get(QUOTE)?.as_str()?);
            let grounded = !quote.is_empty() && body.contains(&squeeze(quote));
            grounded.then(|| {
                json!({"claim": claim, "quote": quote, "url": url,
                       "title": field("title"), "published_at": field("published_at")})
            })
        })
        .collect()
}

/// Check the answer: not empty, at most `max_answer_chars` characters, at
/// least one citation, and every citation the id of a note.
pub(crate) fn validate_synthesis(
    answer: &str,
    citations: &[String],
    note_ids: &[String],
    max_answer_chars: usize,
) -> Result<(), AnswerError> {
    if answer.is_empty() {
        return Err(AnswerError::Empty);
    }
    if answer.chars().count() > max_answer_chars {
        return Err(AnswerError::TooLong);
    }
    if citations.is_empty() {
        return Err(AnswerError::Citations);
    }
    if citations.iter().any(|c| !note_ids.contains(c)) {
        return Err(AnswerError::CitationUnknown);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note() -> Value {
        json!({"id": "n1", "url": "https://a.example/x", "claim": "A claim.",
               "quote": "A quote of twenty chars"})
    }

    fn with(key: &str, value: Value) -> Vec<Value> {
        let mut n = note();
        n[key] = value;
        vec![n]
    }

    #[test]
    fn tool_outputs_must_be_ok_with_data() {
        let ok = json!({"status": "ok", "data": {"results": []}});
        assert_eq!(
            tool_data(&ok, "search_sources").unwrap()["results"],
            json!([])
        );
        for bad in [
            json!({"status": "error", "error": "not_found"}),
            json!({"status": "OK", "data": {}}),
            json!({"status": "ok", "data": []}),
            json!({"status": "ok"}),
            json!([1]),
        ] {
            assert_eq!(
                tool_data(&bad, "read_source"),
                Err(StopReason::from(ResearchStop::ToolInvalidOutput {
                    tool: "read_source".into()
                })),
                "{bad}"
            );
        }
    }

    #[test]
    fn every_notes_rejection_in_the_reference_order() {
        use NotesError::*;
        let table = [
            (vec![], 6, Empty),
            (vec![note(), note()], 1, TooMany),
            (vec![json!("note")], 6, Item),
            (with("id", json!(" ")), 6, Id),
            (with("url", json!(null)), 6, Url),
            (with("claim", json!(7)), 6, Claim),
            (with("claim", json!("\u{a0}")), 6, Claim),
            (with("quote", json!("  nineteen chars ok  ")), 6, Quote),
            (with("quote", json!(["A quote of twenty chars"])), 6, Quote),
        ];
        for (notes, max, want) in table {
            assert_eq!(validate_notes(&notes, max), Err(want.clone()), "{notes:?}");
        }
        assert_eq!(validate_notes(&[note()], 1), Ok(()));
    }

    #[test]
    fn the_synthesis_is_read_like_python() {
        let read = |v: Value| read_synthesis(ModelOutput::Json(v));
        assert_eq!(
            read(json!({"answer": "  Yes.  ", "citations": [" n1 ", "", 2, null]})),
            ("Yes.".into(), vec!["n1".into(), "2".into(), "None".into()])
        );
        assert_eq!(
            read(json!({"answer": null, "citations": "n1"})),
            ("None".into(), vec!["n".into(), "1".into()])
        );
        assert_eq!(read(json!([1])), (String::new(), vec![]));
        assert_eq!(
            read_synthesis(ModelOutput::Text("not json".into())),
            (String::new(), vec![])
        );
        assert_eq!(
            read_synthesis(ModelOutput::Text(
                r#"{"answer": "A", "citations": ["n1"]}"#.into()
            )),
            ("A".into(), vec!["n1".into()])
        );
    }

    #[test]
    fn a_models_notes_are_kept_only_when_the_page_holds_their_quote() {
        let page = json!({"title": "Declines", "published_at": "2026-03-05",
                          "body": "Card declines\nDeclines rose to 4.1%\n  after the update."});
        let output = ModelOutput::Text(
            r#"{"notes": [
                {"claim": " Declines rose. ", "quote": "Declines rose to 4.1% after the update."},
                {"claim": "Made up.", "quote": "Declines fell to zero overnight."},
                {"claim": "No quote."},
                {"claim": 3, "quote": "Card declines"},
                "not a note"
            ]}"#
            .into(),
        );
        assert_eq!(
            read_page_notes(&answer_json(output), &page, "https://a.example/x"),
            vec![
                json!({"claim": "Declines rose.", "quote": "Declines rose to 4.1% after the update.",
                        "url": "https://a.example/x", "title": "Declines",
                        "published_at": "2026-03-05"})
            ]
        );
        for nothing in [
            ModelOutput::Text("no json".into()),
            ModelOutput::Json(json!({"notes": "x"})),
        ] {
            assert!(read_page_notes(&answer_json(nothing), &page, "u").is_empty());
        }
    }

    #[test]
    fn every_answer_rejection_in_the_reference_order() {
        let ids = vec!["n1".to_string(), "n2".to_string()];
        let check = |answer: &str, citations: &[&str], max| {
            let citations: Vec<String> = citations.iter().map(|c| c.to_string()).collect();
            validate_synthesis(answer, &citations, &ids, max)
        };
        assert_eq!(check("", &["n9"], 120), Err(AnswerError::Empty));
        assert_eq!(check("ééé", &[], 2), Err(AnswerError::TooLong));
        assert_eq!(check("ééé", &["n1"], 3), Ok(()), "counted in characters");
        assert_eq!(check("A", &[], 120), Err(AnswerError::Citations));
        assert_eq!(
            check("A", &["n1", "n3"], 120),
            Err(AnswerError::CitationUnknown)
        );
        assert_eq!(check("A", &["n2", "n2"], 120), Ok(()), "repeats are fine");
    }
}
