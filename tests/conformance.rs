//! Field-for-field conformance with the references. Each case in
//! `tests/conformance/*.jsonl` is a generated scenario with the result its
//! reference returned for the same scripted outputs (see the generator
//! script beside it); Conclave must return the same document.
//! `CONCLAVE_COLLABORATION_CASES=/abs/path.jsonl` (or `..._ORCHESTRATOR_...`)
//! checks another generated set (e.g. a few thousand cases) instead of the
//! committed one.
//! The swarm has no reference code: its cases carry the result DESIGN.md's
//! swarm rules give, from an independent model in `swarm_cases.py`
//! (`CONCLAVE_SWARM_CASES` checks another generated set).
//! `CONCLAVE_RESEARCH_CASES` does the same for research.
//! Conclave's own `usage` (tokens and dollars) is left out of every
//! comparison: the references have no such field.

use crate::common;

use conclave::engine::LaunchOptions;
use serde_json::Value;

const COLLABORATION_FIELDS: [&str; 10] = [
    "status",
    "stop_reason",
    "phase",
    "final_decision",
    "rounds_used",
    "trace",
    "history",
    "raw_contribution",
    "answer",
    "team_summary",
];

const ORCHESTRATOR_FIELDS: [&str; 10] = [
    "status",
    "stop_reason",
    "phase",
    "plan",
    "aggregate",
    "trace",
    "failed_critical",
    "answer",
    "history",
    "raw_plan",
];

/// The swarm's fields that DESIGN.md's rules decide.
const SWARM_FIELDS: [&str; 7] = [
    "status",
    "stop_reason",
    "final_agent",
    "answer",
    "chain",
    "handoffs",
    "llm_calls",
];

/// Research results are compared without `run_id` (a UUID in the
/// reference, derived from the seed here) and without each trace entry's
/// `elapsed_ms` (wall time in the reference).
const RESEARCH_FIELDS: [&str; 13] = [
    "status",
    "stop_reason",
    "phase",
    "outcome",
    "answer",
    "citations",
    "citation_details",
    "aggregate",
    "trace",
    "history",
    "details",
    "denied_sources",
    "verification",
];

/// Keys every Conclave result adds to its reference's fields, left out of
/// every comparison: what the run's model calls used and cost.
const CONCLAVE_ONLY: [&str; 1] = ["usage"];

/// The cases of `file`, beside this test unless the path is absolute.
fn cases(file: &str) -> Vec<Value> {
    let path = if file.starts_with('/') {
        file.to_string()
    } else {
        format!("{}/tests/conformance/{file}", env!("CARGO_MANIFEST_DIR"))
    };
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn collaboration_results_equal_the_reference() {
    let file = std::env::var("CONCLAVE_COLLABORATION_CASES")
        .unwrap_or_else(|_| "collaboration.jsonl".to_string());
    let cases = cases(&file);
    assert!(cases.len() >= 200);
    let mismatches = compare(&cases, &COLLABORATION_FIELDS, true, |_| {}).await;
    assert!(
        mismatches.is_empty(),
        "{} mismatches over {} cases:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
}

#[tokio::test(start_paused = true)]
async fn orchestrator_results_equal_the_reference() {
    let file = std::env::var("CONCLAVE_ORCHESTRATOR_CASES")
        .unwrap_or_else(|_| "orchestrator.jsonl".to_string());
    let cases = cases(&file);
    assert!(cases.len() >= 200);
    let mismatches = compare(&cases, &ORCHESTRATOR_FIELDS, true, |_| {}).await;
    assert!(
        mismatches.is_empty(),
        "{} mismatches over {} cases:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
}

#[tokio::test(start_paused = true)]
async fn swarm_results_follow_the_design_rules() {
    let file = std::env::var("CONCLAVE_SWARM_CASES").unwrap_or_else(|_| "swarm.jsonl".to_string());
    let cases = cases(&file);
    assert!(cases.len() >= 200);
    // The result carries more (trace, history) than the rules decide.
    let mismatches = compare(&cases, &SWARM_FIELDS, false, |_| {}).await;
    assert!(
        mismatches.is_empty(),
        "{} mismatches over {} cases:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
}

#[tokio::test(start_paused = true)]
async fn research_results_equal_the_reference() {
    let file =
        std::env::var("CONCLAVE_RESEARCH_CASES").unwrap_or_else(|_| "research.jsonl".to_string());
    let cases = cases(&file);
    assert!(cases.len() >= 200);
    let mismatches = compare(&cases, &RESEARCH_FIELDS, true, |result| {
        if let Some(map) = result.as_object_mut() {
            map.remove("run_id");
        }
        for entry in result["trace"].as_array_mut().into_iter().flatten() {
            entry.as_object_mut().map(|e| e.remove("elapsed_ms"));
        }
    })
    .await;
    assert!(
        mismatches.is_empty(),
        "{} mismatches over {} cases:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
}

/// Run every case and list each field that differs from the reference's,
/// and, with `exact`, every field the reference does not return; `prepare`
/// first drops what is not compared from both documents.
async fn compare(
    cases: &[Value],
    fields: &[&str],
    exact: bool,
    prepare: fn(&mut Value),
) -> Vec<String> {
    let mut mismatches = Vec::new();
    for case in cases {
        let scenario = common::scenario(&case["scenario"]);
        let flags = case["flags"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, on)| (name.clone(), on.as_bool().unwrap()))
            .collect();
        let (outcome, _) = common::run(
            scenario.clone(),
            LaunchOptions {
                flags,
                ..LaunchOptions::default()
            },
        )
        .await;
        let mut expected = case["expected"].clone();
        let mut ours = Value::clone(&outcome.result);
        for key in CONCLAVE_ONLY {
            ours.as_object_mut().map(|o| o.remove(key));
        }
        prepare(&mut expected);
        prepare(&mut ours);
        let (expected, ours) = (&expected, &ours);
        let absent = Value::String("<absent>".into());
        for field in fields {
            let (want, got) = (
                expected.get(*field).unwrap_or(&absent),
                ours.get(*field).unwrap_or(&absent),
            );
            if want != got {
                mismatches.push(format!(
                    "{}: {field}: expected {want}, got {got}",
                    scenario.name
                ));
            }
        }
        let extra: Vec<&String> = ours
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| expected.get(*k).is_none())
            .collect();
        if exact && !extra.is_empty() {
            mismatches.push(format!(
                "{}: fields the reference lacks: {extra:?}",
                scenario.name
            ));
        }
    }
    mismatches
}
