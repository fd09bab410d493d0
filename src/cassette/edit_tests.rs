use super::*;
use crate::bus::cassette::CallRecord;
use crate::cassette::tests::{event, finished, started};
use serde_json::json;

fn edit(given: &str) -> OutputEdit {
    given.parse().expect("an edit")
}

#[test]
fn an_edit_reads_its_node_pointer_and_value() {
    assert_eq!(
        edit("review:/verdict=approve"),
        OutputEdit {
            node: "review".into(),
            pointer: "/verdict".into(),
            value: json!("approve"),
        }
    );
    assert_eq!(edit("plan:/steps=[\"a\",\"b\"]").value, json!(["a", "b"]));
    assert_eq!(edit("score:/n=3").value, json!(3));
    assert_eq!(edit("whole:={\"x\":1}").pointer, "");
    // A value may hold '=' and ':' itself.
    assert_eq!(edit("n:/why=a=b:c").value, json!("a=b:c"));
}

#[test]
fn a_malformed_edit_says_what_was_expected() {
    for (given, expected) in [
        ("review", "expected NODE:/POINTER=VALUE"),
        ("review:/verdict", "expected =VALUE"),
        (":/verdict=x", "the node is empty"),
        ("review:verdict=x", "starts with '/'"),
    ] {
        let error = given.parse::<OutputEdit>().unwrap_err().to_string();
        assert!(error.contains(given), "{error}");
        assert!(error.contains(expected), "{given}: {error}");
    }
}

#[test]
fn set_adds_a_missing_key_and_replaces_an_item() {
    let mut output = json!({"verdict": "revise", "notes": ["a", "b"], "in": {}});
    set(&mut output, "/verdict", json!("approve")).unwrap();
    set(&mut output, "/notes/1", json!("c")).unwrap();
    set(&mut output, "/in/a~1b", json!(1)).unwrap();
    assert_eq!(
        output,
        json!({"verdict": "approve", "notes": ["a", "c"], "in": {"a/b": 1}})
    );
    assert!(set(&mut output, "/notes/9", json!(0)).is_err());
    assert!(set(&mut output, "/nowhere/x", json!(0)).is_err());
    set(&mut output, "", json!(7)).unwrap();
    assert_eq!(output, json!(7));
}

/// A cassette of `answers`, each a model call for `purpose` finishing at
/// the seq given.
fn cassette(answers: &[(u64, &str, Answer)]) -> Cassette {
    let mut events = vec![event(1, started())];
    for (seq, purpose, answer) in answers {
        let record = CallRecord {
            purpose: Some((*purpose).into()),
            prompt_sha256: None,
            span_ms: None,
            ended_us: None,
            args: None,
            answer: Some(answer.clone()),
        };
        events.push(event(*seq, finished(*seq, "model", record)));
    }
    Cassette::of_events(std::path::Path::new("parent.jsonl"), &events).expect("a cassette")
}

/// The answers recorded for `node`'s calls, in the order they ended.
fn answers_of(cassette: &Cassette, node: &str) -> Vec<Answer> {
    let edit = edit(&format!("{node}:=0"));
    let shelves = cassette.shelves.lock().unwrap();
    let mut calls: Vec<&Recorded> = shelves
        .iter()
        .filter(|((_, p), _)| p.as_deref().is_some_and(|p| edit.names(p)))
        .flat_map(|(_, shelf)| shelf.calls.iter())
        .collect();
    calls.sort_by_key(|recorded| recorded.seq);
    calls
        .into_iter()
        .filter_map(|recorded| recorded.record.answer.clone())
        .collect()
}

#[test]
fn the_last_answer_before_the_gate_is_the_one_edited() {
    let cassette = cassette(&[
        (
            2,
            "review",
            Answer::Json(RawJson::of(&json!({"verdict": "revise"}))),
        ),
        (
            4,
            "node:review",
            Answer::Text("Here you go:\n```json\n{\"verdict\": \"revise\"}\n```".into()),
        ),
        (
            9,
            "review",
            Answer::Json(RawJson::of(&json!({"verdict": "reject"}))),
        ),
    ]);
    cassette
        .edit_output(&edit("review:/verdict=approve"), 8)
        .unwrap();
    assert_eq!(
        answers_of(&cassette, "review"),
        vec![
            Answer::Json(RawJson::of(&json!({"verdict": "revise"}))),
            Answer::Json(RawJson::of(&json!({"verdict": "approve"}))),
            Answer::Json(RawJson::of(&json!({"verdict": "reject"}))),
        ]
    );
}

#[test]
fn an_edit_with_nothing_to_edit_is_refused_in_words() {
    let cassette = cassette(&[
        (3, "review", Answer::Text("I cannot decide.".into())),
        (5, "draft", Answer::Json(RawJson::of(&json!({"text": "x"})))),
    ]);
    let none = cassette
        .edit_output(&edit("publish:/ok=true"), 10)
        .unwrap_err()
        .to_string();
    assert!(none.contains("no answer of \"publish\""), "{none}");
    let late = cassette
        .edit_output(&edit("draft:/text=y"), 4)
        .unwrap_err()
        .to_string();
    assert!(late.contains("before the fork's gate"), "{late}");
    let prose = cassette
        .edit_output(&edit("review:/verdict=approve"), 10)
        .unwrap_err()
        .to_string();
    assert!(prose.contains("no one JSON object"), "{prose}");
}
