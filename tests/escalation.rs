//! Escalation to a person at the round table: headless without an answer
//! the run stops with `escalated_to_human`; `--decide` answers in advance,
//! and the answer is an event and part of the result.

mod common;

use common::cli::{conclave, result};
use std::path::Path;

fn escalating(dir: &Path) -> String {
    common::escalating_deadlock(dir, false)
}

#[test]
fn headless_without_an_answer_the_deadlock_stops_escalated_to_human() {
    let dir = tempfile::tempdir().unwrap();
    let file = escalating(dir.path());
    let output = conclave(&["run", &file, "--headless"]);
    assert_eq!(output.status.code(), Some(3));
    let r = result(&output);
    assert_eq!(r["stop_reason"], "escalated_to_human");
    assert_eq!(r["history"].as_array().unwrap().len(), 2, "after round 2");
    assert!(r.get("decided_by").is_none());
}

#[test]
fn decide_no_go_ends_no_go_decided_by_a_human_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let file = escalating(dir.path());
    let record = dir.path().join("run.jsonl");
    let record = record.to_str().unwrap();
    let output = conclave(&[
        "run",
        &file,
        "--headless",
        "--decide",
        "no_go",
        "--record",
        record,
    ]);
    assert_eq!(output.status.code(), Some(0));
    let r = result(&output);
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["final_decision"], "no_go");
    assert_eq!(r["decided_by"], "human");
    assert_eq!(r["rounds_used"], 2);
    let recording = std::fs::read_to_string(record).unwrap();
    assert!(recording.contains("\"escalated_to_human\""));
    assert!(recording.contains("\"human_decided\""));
    let replayed = conclave(&["replay", record, "--headless"]);
    assert_eq!(result(&replayed)["decided_by"], "human");
}

#[test]
fn decide_continue_plays_one_more_round_and_a_bad_answer_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = escalating(dir.path());
    let output = conclave(&["run", &file, "--headless", "--decide", "continue"]);
    let r = result(&output);
    assert_eq!(r["stop_reason"], "max_rounds_reached");
    assert_eq!(r["history"].as_array().unwrap().len(), 3);
    let output = conclave(&["run", &file, "--headless", "--decide", "maybe"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn without_the_budget_key_the_deadlock_is_unchanged() {
    let output = conclave(&[
        "run",
        "scenarios/loyalty_program_deadlock.json",
        "--headless",
        "--decide",
        "go",
    ]);
    let r = result(&output);
    assert_eq!(r["stop_reason"], "max_rounds_reached");
    assert!(r.get("decided_by").is_none());
}
