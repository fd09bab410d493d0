//! Each pattern parses an endpoint's answer once: the gateway's check
//! reads it and hands the pattern what it read, so an answer the check
//! took is never parsed again after the call, and a repaired one is
//! parsed once as well. Each run is against an endpoint on loopback
//! whose first answer of the kind counted is wrong (asked again once) and
//! whose second is right; the parses are counted on the test's thread.

use super::parses;
use super::runner;
use super::test_endpoint::endpoint_run;
use crate::scenario::Scenario;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What each request is answered with: `wrong` for the first request
/// whose body holds `marker`, `right` for every later one, `other` for a
/// request without it; and how many requests held it.
fn answers(
    marker: &'static str,
    wrong: &'static str,
    right: String,
    other: &'static str,
) -> (
    Arc<AtomicUsize>,
    impl Fn(&str) -> String + Send + Sync + 'static,
) {
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let answer = move |body: &str| {
        if !body.contains(marker) {
            return other.to_string();
        }
        match counted.fetch_add(1, Ordering::SeqCst) {
            0 => wrong.to_string(),
            _ => right.clone(),
        }
    };
    (asked, answer)
}

fn scenario(document: Value) -> Scenario {
    crate::scenario::parse(&document.to_string(), "test.json").expect("the scenario loads")
}

/// A scenario of `scenarios/`, its workers answering at once.
fn shipped(name: &str) -> Value {
    let path = format!("{}/scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    let mut document: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the scenario")).unwrap();
    if let Some(Value::Object(workers)) = document.get_mut("workers") {
        for worker in workers.values_mut() {
            worker["latency_ms"] = json!(1);
        }
    }
    document
}

/// Runs `document` against the endpoint and checks that the answers
/// holding `marker` were asked twice and parsed as `what` once each.
async fn parsed_once_each(
    document: Value,
    what: &'static str,
    (asked, answer): (
        Arc<AtomicUsize>,
        impl Fn(&str) -> String + Send + Sync + 'static,
    ),
) {
    let scenario = scenario(document);
    let pattern = scenario.pattern;
    let before = parses::of(what);
    let (ctx, _server) = endpoint_run(scenario, answer).await;
    let outcome = (runner(pattern).run)(ctx).await;
    let asked = asked.load(Ordering::SeqCst);
    assert_eq!(asked, 2, "the wrong answer was asked again: {outcome:?}");
    assert_eq!(
        parses::of(what) - before,
        asked,
        "{what}: one parse an answer"
    );
}

#[tokio::test]
async fn the_orchestrator_parses_each_plan_once() {
    let document = shipped("morning_ops_report.json");
    let plan = document["provider"]["plan"].to_string();
    let answers = answers(
        "You plan the work of an operations orchestrator",
        "not a plan",
        plan,
        "The brief.",
    );
    parsed_once_each(document, "plan", answers).await;
}

#[tokio::test]
async fn the_round_table_parses_each_contribution_once() {
    let document = json!({
        "name": "t", "pattern": "collaboration", "goal": "g", "context": {},
        "team": {"roles": {"a": {}}, "sequence": ["a"]},
        "budget": {"max_rounds": 1},
        "provider": {"kind": "sim", "responses": {"a": "{}"}}
    });
    let contribution = json!({"agent": "a", "stance": "go", "confidence": 0.9,
                              "summary": "Ready.", "actions": []});
    let answers = answers(
        "launch-readiness round table",
        "{\"agent\": \"a\"}",
        contribution.to_string(),
        "The brief.",
    );
    parsed_once_each(document, "contribution", answers).await;
}

#[tokio::test]
async fn a_graph_node_parses_each_answer_once() {
    let document = json!({
        "name": "g", "pattern": "graph", "goal": "g", "context": {},
        "agents": {"planner": {"description": "plans"}},
        "graph": {
            "entry": "plan",
            "nodes": [
                {"id": "plan", "agent": "planner", "output": {"title": "string"}},
                {"id": "done", "end": true}
            ],
            "edges": [{"from": "plan", "to": "done"}]
        },
        "provider": {"kind": "sim"}
    });
    let answers = answers(
        "one node of a workflow graph",
        "{\"headline\": \"Q3\"}",
        json!({"title": "Q3"}).to_string(),
        "",
    );
    parsed_once_each(document, "node output", answers).await;
}

#[tokio::test]
async fn a_swarm_parses_each_turn_once() {
    let document = json!({
        "name": "s", "pattern": "swarm", "goal": "g", "context": {}, "entry": "a",
        "agents": {"a": {"description": "answers"}},
        "provider": {"kind": "sim", "turns": {"a": "hi"}}
    });
    let answers = answers(
        "one agent of a team that passes control",
        "{\"transfer_to\": \"nobody\"}",
        json!({"reply": "Done."}).to_string(),
        "",
    );
    parsed_once_each(document, "turn", answers).await;
}

#[tokio::test]
async fn the_research_workflow_parses_each_plan_once() {
    let document = shipped("payments_incident_research.json");
    let question = document["context"]["request"]["question"].clone();
    let plan = json!({"steps": [
        {"id": "r1", "action": "search_sources", "args": {"query": question}},
        {"id": "r2", "action": "dedupe_urls", "args": {}},
        {"id": "r3", "action": "read_extract_notes", "args": {}},
        {"id": "r4", "action": "verify_notes", "args": {}},
        {"id": "r5", "action": "synthesize_answer", "args": {}},
    ]});
    let answers = answers(
        "You plan a research workflow",
        "{\"steps\": []}",
        plan.to_string(),
        "{}",
    );
    parsed_once_each(document, "research plan", answers).await;
}
