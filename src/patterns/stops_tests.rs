//! Every pattern's stop reasons against the floors' rules: each reads back
//! as itself from its wire string, keeps the kind its head names, and has
//! a sentence of its own pattern. And every reason the shipped fixtures
//! and scenarios name still reads, writes back byte for byte and is worded
//! by the pattern that owns it.

use super::runner;
use crate::scenario::PatternKind;
use crate::stop::{PatternReason, StopFacts, StopKind, StopReason};
use serde_json::Value;
use std::collections::{BTreeSet, HashSet};
use std::fmt::Debug;
use std::path::Path;

/// Every pattern, once: a new kind does not compile until it is listed.
pub(crate) fn every_pattern() -> Vec<PatternKind> {
    let kinds = vec![
        PatternKind::Collaboration,
        PatternKind::Orchestrator,
        PatternKind::Swarm,
        PatternKind::Coordinator,
        PatternKind::Research,
        PatternKind::Graph,
    ];
    for kind in &kinds {
        match kind {
            PatternKind::Collaboration
            | PatternKind::Orchestrator
            | PatternKind::Swarm
            | PatternKind::Coordinator
            | PatternKind::Research
            | PatternKind::Graph => {}
        }
    }
    kinds
}

pub(crate) fn facts() -> StopFacts {
    StopFacts {
        rounds: Some(3),
        budget: Some((12, 12)),
        elapsed_ms: 40_000,
        tokens: Some((1250, 1000)),
        dollars: Some((0.0123, 0.01)),
    }
}

/// Check one pattern's `reasons` (one of each kind, with each
/// sub-reason) against the floors' rules and its `explain`.
pub(crate) fn check_reasons<R>(
    reasons: Vec<R>,
    explain: fn(&StopReason, &StopFacts) -> Option<String>,
) where
    R: PatternReason + Clone + PartialEq + Debug,
    StopReason: From<R>,
{
    let mut said = HashSet::new();
    for reason in reasons {
        let wire = reason.to_string();
        let shared = StopReason::from(reason.clone());
        assert_eq!(shared.to_string(), wire);
        let read: StopReason = wire.parse().unwrap();
        assert_eq!(read, shared, "{wire} reads back as the pattern made it");
        assert_eq!(read.pattern::<R>(), Some(reason.clone()), "{wire}");
        assert_eq!(
            StopKind::of_wire(&wire),
            reason.kind(),
            "{wire}'s head names its kind"
        );
        assert_eq!(
            read.is_answer_failure(),
            reason.kind() == StopKind::Contract
        );
        assert_eq!(read.is_timeout(), reason.kind() == StopKind::Timeout);
        let words = explain(&read, &facts()).expect("the pattern words its own reasons");
        assert_eq!(words, reason.explain(&facts()));
        assert!(!words.is_empty(), "{wire}");
        let head = wire.split(':').next().unwrap_or_default();
        assert!(
            !words.contains(head),
            "{wire}: {words:?} says more than its name"
        );
        assert!(said.insert(words.clone()), "{wire}: {words:?} said twice");
    }
}

/// The pattern whose registry entry words `reason`, and its sentence.
fn worded_by(reason: &StopReason) -> Vec<(PatternKind, String)> {
    every_pattern()
        .into_iter()
        .filter_map(|kind| (runner(kind).explain_stop)(reason, &facts()).map(|w| (kind, w)))
        .collect()
}

/// Every `stop_reason` in the JSON and JSONL files under `dir`.
fn stop_reasons_under(dir: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            stop_reasons_under(&path, found);
            continue;
        }
        let text = match path.extension().and_then(|e| e.to_str()) {
            Some("json" | "jsonl") => std::fs::read_to_string(&path).unwrap(),
            _ => continue,
        };
        let values: Vec<Value> = match serde_json::from_str(&text) {
            Ok(value) => vec![value],
            Err(_) => text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
        };
        values.iter().for_each(|v| collect(v, found));
    }
}

fn collect(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::Object(fields) => {
            for (key, value) in fields {
                match (key.as_str(), value) {
                    ("stop_reason", Value::String(reason)) => {
                        found.insert(reason.clone());
                    }
                    _ => collect(value, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, found)),
        _ => {}
    }
}

/// Reasons the integration tests name in their code rather than in a file.
const NAMED_IN_TESTS: &[&str] = &[
    "escalated_to_human",
    "invalid_turn",
    "member_timeout:research_team",
    "member_timeout:launch/research_team",
    "unknown_member:ghost",
    "node_timeout:launch/support_swarm/billing",
];

#[test]
fn every_reason_the_fixtures_name_reads_back_and_is_worded_by_its_pattern() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = BTreeSet::new();
    stop_reasons_under(&root.join("tests"), &mut found);
    stop_reasons_under(&root.join("scenarios"), &mut found);
    found.extend(NAMED_IN_TESTS.iter().map(|s| s.to_string()));
    let mut own = 0;
    for wire in &found {
        let json = serde_json::to_string(wire).unwrap();
        let reason: StopReason = serde_json::from_str(&json).unwrap();
        assert_eq!(
            serde_json::to_string(&reason).unwrap(),
            json,
            "{wire} writes back"
        );
        assert_eq!(&reason.to_string(), wire);
        let worded = worded_by(&reason);
        if matches!(reason, StopReason::Pattern(_)) {
            own += 1;
            assert!(!worded.is_empty(), "{wire}: no pattern words it");
            for (kind, words) in &worded {
                assert!(!words.is_empty(), "{kind}: {wire}");
                assert!(!words.contains("does not know"), "{kind}: {wire}: {words}");
            }
        } else {
            let shared = reason.explain(&facts());
            assert!(
                !shared.is_empty() && !shared.contains("does not know"),
                "{wire}"
            );
        }
    }
    assert!(
        own >= 40,
        "the fixtures name {own} patterns' reasons: {found:?}"
    );
}

#[test]
fn a_reason_no_pattern_knows_reads_writes_back_and_says_so() {
    let line = r#"{"run":1,"seq":9,"t_ms":1200,"type":"run_finished","status":"stopped","stop_reason":"max_debate_turns:judge","result":{}}"#;
    let event: crate::bus::Event = serde_json::from_str(line).unwrap();
    let crate::bus::EventKind::RunFinished { stop_reason, .. } = &event.kind else {
        panic!("a finish: {event:?}");
    };
    assert!(matches!(stop_reason, StopReason::Pattern(_)));
    assert_eq!(stop_reason.to_string(), "max_debate_turns:judge");
    assert!(worded_by(stop_reason).is_empty());
    for kind in every_pattern() {
        assert_eq!(
            super::explain(kind, stop_reason, &facts()),
            "stopped for a reason this version does not know (max_debate_turns:judge)"
        );
    }
    let written = serde_json::to_value(&event).unwrap();
    assert_eq!(written["stop_reason"], "max_debate_turns:judge");
}

#[test]
fn the_round_table_words_its_escalation_and_the_others_share_one_sentence() {
    let escalated = StopReason::EscalatedToHuman;
    assert_eq!(
        super::explain(
            PatternKind::Collaboration,
            &escalated,
            &StopFacts::default()
        ),
        "a blocking stance held the table; the run asks a person (answer with --decide)"
    );
    assert_eq!(
        super::explain(PatternKind::Research, &escalated, &StopFacts::default()),
        "the run asked a person and nobody answered (answer with --decide)"
    );
    assert_eq!(
        super::explain(
            PatternKind::Collaboration,
            &StopReason::MaxMessages,
            &facts()
        ),
        "the message budget ran out (12 of 12 used)"
    );
}
