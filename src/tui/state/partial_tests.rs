//! A call's text as far as it is written: its fields, its prose, its
//! reasoning.

use super::*;

fn written(text: &str) -> PartialText {
    let mut partial = PartialText::default();
    // As deltas bring it: a few characters at a time.
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(3) {
        partial.push(&piece.iter().collect::<String>());
    }
    partial
}

#[test]
fn a_field_reads_as_far_as_it_is_written() {
    let partial = written(
        "{\"agent\": \"risk_analyst\", \"stance\": \"caution\", \"confidence\": 0.7, \"summary\": \"Fraud is up \\u00e9\\n3% and the \\\"new\\\" flow is unte",
    );
    assert_eq!(
        partial.shown(&["summary"]).as_deref(),
        Some("Fraud is up é 3% and the \"new\" flow is unte")
    );
    assert_eq!(partial.shown(&["stance"]).as_deref(), Some("caution"));
    assert_eq!(partial.shown(&["answer"]), None);
    // Not yet at the summary.
    assert_eq!(written("{\"agent\": \"risk_an").shown(&["summary"]), None);
    assert_eq!(written("{\"summary").shown(&["summary"]), None);
    assert_eq!(
        written("{\"summary\": \"").shown(&["summary"]).as_deref(),
        Some("")
    );
}

#[test]
fn only_top_level_fields_count_and_prose_is_itself() {
    let partial = written(
        "{\"args\": {\"reply\": \"nested\"}, \"notes\": [\"reply\", \"x\"], \"reply\": \"Refund issued",
    );
    assert_eq!(
        partial.shown(&["reply", "message"]).as_deref(),
        Some("Refund issued")
    );
    let partial = written("{\"transfer_to\": \"billing\", \"message\": \"Over to you\"}");
    assert_eq!(
        partial.shown(&["reply", "message"]).as_deref(),
        Some("Over to you")
    );
    let prose = written("  The launch can go ahead\u{1b}[2J once fraud\nis checked");
    assert_eq!(
        prose.shown(&["summary"]).as_deref(),
        Some("The launch can go ahead once fraud is checked")
    );
}

#[test]
fn reasoning_is_shown_until_the_answer_begins_and_its_end_is_kept() {
    let mut partial = PartialText::default();
    assert!(partial.is_empty());
    partial.push_reasoning("Weighing fraud\nagainst \u{1b}[31mdemand");
    assert!(!partial.is_empty(), "a pane shows a call that reasons");
    assert_eq!(
        partial.reasoning_shown().as_deref(),
        Some("Weighing fraud against demand")
    );
    assert_eq!(partial.chars(), 0, "reasoning is not the answer");
    for _ in 0..10_000 {
        partial.push_reasoning("é then ");
    }
    partial.push_reasoning("the end");
    assert!(partial.reasoning.len() <= 2 * REASONING_TAIL);
    assert!(partial.reasoning_shown().unwrap().ends_with("then the end"));
    partial.push("{\"summary\": \"Go");
    assert_eq!(partial.reasoning_shown(), None, "the answer has begun");
    assert_eq!(partial.shown(&["summary"]).as_deref(), Some("Go"));
}

#[test]
fn the_text_kept_is_bounded() {
    let mut partial = PartialText::default();
    partial.push("{\"summary\": \"");
    for _ in 0..10_000 {
        partial.push("é ok ");
    }
    assert!(partial.kept.len() <= PARTIAL_CAP);
    assert_eq!(partial.chars(), 13 + 10_000 * 5);
    let shown = partial.shown(&["summary"]).unwrap();
    assert!(shown.ends_with('…'), "{}", &shown[shown.len() - 20..]);
}
