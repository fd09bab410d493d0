//! Escalation to a person at the round table: headless without an answer
//! the run stops with `escalated_to_human`; `--decide` answers in advance,
//! and the answer is an event and part of the result.

use crate::common;

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
fn decide_on_a_table_that_never_asks_is_refused_naming_the_file() {
    let output = conclave(&[
        "run",
        "scenarios/loyalty_program_deadlock.json",
        "--headless",
        "--decide",
        "go",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("scenarios/loyalty_program_deadlock.json: --decide answers a round table that asks a person"),
        "{stderr}"
    );
    assert!(
        stderr.contains("budget.escalate_after_blocking_rounds"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "nothing ran");
    let swept = conclave(&[
        "sweep",
        "scenarios/loyalty_program_deadlock.json",
        "--seeds",
        "1..2",
        "--headless",
        "--decide",
        "go",
    ]);
    assert_eq!(swept.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&swept.stderr).contains("never asks one"),
        "{}",
        String::from_utf8_lossy(&swept.stderr)
    );
}

#[test]
fn the_shipped_scenario_asks_and_a_headless_run_prints_the_question() {
    let output = conclave(&[
        "run",
        "scenarios/loyalty_program_asks_a_person.json",
        "--headless",
    ]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(result(&output)["stop_reason"], "escalated_to_human");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("round 2: the table asks a person (a blocking stance 2 rounds in a row)"),
        "{stderr}"
    );
    for (analyst, stance) in [
        ("demand_analyst", "go"),
        ("finance_analyst", "caution"),
        ("risk_analyst", "block"),
    ] {
        assert!(
            stderr
                .lines()
                .any(|l| l.contains(analyst) && l.contains(stance)),
            "{analyst} {stance}:\n{stderr}"
        );
    }
    assert!(
        stderr.contains("conflicts: blocking_vs_non_block"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--decide go|go_with_caution|no_go|continue"),
        "the options:\n{stderr}"
    );
}

#[test]
fn replay_headless_tells_the_escalation_and_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.jsonl");
    let record = record.to_str().unwrap();
    let output = conclave(&[
        "run",
        "scenarios/loyalty_program_asks_a_person.json",
        "--headless",
        "--decide",
        "go_with_caution",
        "--record",
        record,
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        !String::from_utf8_lossy(&output.stderr).contains("asks a person"),
        "an answered question is not printed as open"
    );
    let replayed = conclave(&["replay", record, "--headless"]);
    assert_eq!(replayed.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&replayed.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let asked = lines
        .iter()
        .position(|l| l.starts_with("round 2: the table asks a person"))
        .unwrap_or_else(|| panic!("the escalation:\n{stderr}"));
    assert!(
        lines[asked + 1..]
            .iter()
            .any(|l| l.contains("risk_analyst") && l.contains("block"))
    );
    let answered = lines
        .iter()
        .position(|l| *l == "a person chose go_with_caution")
        .unwrap_or_else(|| panic!("the answer:\n{stderr}"));
    assert!(answered > asked, "{stderr}");
    assert_eq!(result(&replayed)["final_decision"], "go_with_caution");
}

#[test]
fn a_sweep_decides_every_run_it_asks() {
    let output = conclave(&[
        "sweep",
        "scenarios/loyalty_program_asks_a_person.json",
        "--seeds",
        "1..4",
        "--headless",
        "--decide",
        "no_go",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let combination = &document["combinations"][0];
    assert_eq!(combination["outcomes"]["ok/success/no_go"], 4, "{document}");
    let undecided = conclave(&[
        "sweep",
        "scenarios/loyalty_program_asks_a_person.json",
        "--seeds",
        "1..2",
        "--headless",
    ]);
    let document: serde_json::Value = serde_json::from_slice(&undecided.stdout).unwrap();
    assert_eq!(
        document["combinations"][0]["stop_reasons"]["escalated_to_human"], 2,
        "{document}"
    );
}
