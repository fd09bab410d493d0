//! The decided readings of docs/graph.md that need a whole run: real runs
//! on the sim and the paused clock, each holding one answer the page
//! gives where its rules allowed more than one reading.

use crate::common;

use common::graph::{graph_events, run};
use conclave::bus::{Event, EventKind};
use conclave::patterns::events::GraphEvent;
use serde_json::{Value, json};

fn graph(graph: Value, turns: Value) -> Value {
    json!({
        "name": "graph_decided", "pattern": "graph", "goal": "g", "context": {},
        "agents": {"a": {"description": "any node"}},
        "graph": graph,
        "provider": {"kind": "sim", "latency_ms": 100, "turns": turns}
    })
}

/// The graph events of a run as `started:NODE` and `finished:NODE`.
fn starts_and_ends(events: &[Event]) -> Vec<String> {
    graph_events(events)
        .into_iter()
        .filter_map(|e| match e {
            GraphEvent::NodeStarted { node, .. } => Some(format!("started:{node}")),
            GraphEvent::NodeFinished { node, .. } => Some(format!("finished:{node}")),
            _ => None,
        })
        .collect()
}

/// `a` and `b` end at the same instant: both ends are settled before
/// what they made ready starts.
#[tokio::test(start_paused = true)]
async fn activations_ending_at_one_instant_are_all_settled_before_the_next_start() {
    let document = graph(
        json!({
            "entry": "s",
            "nodes": [{"id": "s", "agent": "a"}, {"id": "a", "agent": "a"}, {"id": "b", "agent": "a"},
                      {"id": "x", "agent": "a"}, {"id": "y", "agent": "a"},
                      {"id": "j", "wait": "all", "inputs": ["x", "y"]}, {"id": "done", "end": true}],
            "edges": [{"from": "s", "to": "a"}, {"from": "s", "to": "b"}, {"from": "a", "to": "x"},
                      {"from": "b", "to": "y"}, {"from": "x", "to": "j"}, {"from": "y", "to": "j"},
                      {"from": "j", "to": "done"}]
        }),
        json!({}),
    );
    let (result, events) = run(&document).await;
    assert_eq!(result["stop_reason"], "completed", "{result:#}");
    let seen = starts_and_ends(&events);
    assert_eq!(
        seen[..8],
        [
            "started:s",
            "finished:s",
            "started:a",
            "started:b",
            "finished:a",
            "finished:b",
            "started:x",
            "started:y"
        ]
    );
}

/// `fast` reaches the end at 0.2 s while `slow` still runs: `slow` and
/// what follows it finish, and the run completes when nothing runs.
#[tokio::test(start_paused = true)]
async fn an_end_reached_while_a_branch_runs_lets_the_branch_finish() {
    let document = graph(
        json!({
            "entry": "s",
            "nodes": [{"id": "s", "agent": "a"}, {"id": "fast", "agent": "a"}, {"id": "slow", "agent": "a"},
                      {"id": "tail", "agent": "a"}, {"id": "done", "end": true}, {"id": "late", "end": true}],
            "edges": [{"from": "s", "to": "fast"}, {"from": "s", "to": "slow"}, {"from": "fast", "to": "done"},
                      {"from": "slow", "to": "tail"}, {"from": "tail", "to": "late"}]
        }),
        json!({"slow": {"text": "slow", "latency_ms": 1000}}),
    );
    let (result, _) = run(&document).await;
    assert_eq!(result["stop_reason"], "completed", "{result:#}");
    assert_eq!(
        result["path"],
        json!(["s", "fast", "slow", "done", "tail", "late"])
    );
    assert_eq!(result["outputs"]["tail"], json!({"text": "tail: text"}));
}

/// `c` runs round its loop again after the join `j` fired; the second
/// pass's `c` arrives at `j`, whose other input never comes again; the
/// loop leaves for the end. An end was reached, but a join waits: the run
/// is `stalled`, never `completed`.
#[tokio::test(start_paused = true)]
async fn an_end_reached_while_a_join_waits_is_stalled() {
    let document = graph(
        json!({
            "entry": "s",
            "nodes": [{"id": "s", "agent": "a"}, {"id": "a", "agent": "a"}, {"id": "c", "agent": "a", "max_visits": 3},
                      {"id": "j", "wait": "all", "inputs": ["a", "c"]},
                      {"id": "r", "agent": "a", "output": {"verdict": ["again", "go"]}},
                      {"id": "done", "end": true}, {"id": "after", "end": true}],
            "edges": [{"from": "s", "to": "a"}, {"from": "s", "to": "c"}, {"from": "a", "to": "j"},
                      {"from": "c", "to": "j"}, {"from": "c", "to": "r"},
                      {"from": "r", "to": "c", "when": {"field": "/verdict", "eq": "again"}},
                      {"from": "r", "to": "done", "default": true}, {"from": "j", "to": "after"}]
        }),
        json!({"r": [{"verdict": "again"}, {"verdict": "go"}]}),
    );
    let (result, _) = run(&document).await;
    assert!(
        result["path"].as_array().unwrap().contains(&json!("done")),
        "{result:#}"
    );
    assert_eq!(result["status"], "stopped");
    assert_eq!(result["stop_reason"], "stalled:j<a");
    assert_eq!(
        result["details"]["waiting"],
        json!([{"join": "j", "waiting_on": ["a"]}])
    );
}

/// A node's `write` lands before its edges are evaluated: an edge on the
/// state sees the node's own write.
#[tokio::test(start_paused = true)]
async fn a_nodes_write_lands_before_its_edges_are_evaluated() {
    let document = graph(
        json!({
            "entry": "r",
            "state": {"verdict": {"merge": "replace"}},
            "nodes": [{"id": "r", "agent": "a", "output": {"verdict": ["go", "stay"]}, "write": {"verdict": "/verdict"}},
                      {"id": "yes", "end": true}, {"id": "no", "end": true}],
            "edges": [{"from": "r", "to": "yes", "when": {"state": "/verdict", "eq": "go"}},
                      {"from": "r", "to": "no", "default": true}]
        }),
        json!({"r": {"verdict": "go"}}),
    );
    let (result, events) = run(&document).await;
    assert_eq!(result["path"], json!(["r", "yes"]), "{result:#}");
    let checks = graph_events(&events).into_iter().find_map(|e| match e {
        GraphEvent::EdgeEvaluated { to, checks, .. } if to == "yes" => Some(checks.clone()),
        _ => None,
    });
    let said: Vec<(String, bool)> = checks
        .unwrap()
        .into_iter()
        .map(|c| (c.said, c.held))
        .collect();
    assert_eq!(said, [(r#"state.verdict="go" =="go""#.to_string(), true)]);
}

/// The sim answers a node with no script from its `output`: a number or
/// an integer `1`, a bool `true`, an object `{}`, a list of values its
/// first, text `NODE: FIELD`, a list two items.
#[tokio::test(start_paused = true)]
async fn the_sim_answers_an_unscripted_node_from_its_fields() {
    let document = graph(
        json!({
            "entry": "n",
            "nodes": [{"id": "n", "agent": "a", "output": {
                          "count": "integer", "score": "number", "ok": "bool", "meta": "object",
                          "kind": ["x", "y"], "text": "string", "items": "list"}},
                      {"id": "done", "end": true}],
            "edges": [{"from": "n", "to": "done"}]
        }),
        json!({}),
    );
    let (result, _) = run(&document).await;
    assert_eq!(
        result["outputs"]["n"],
        json!({"count": 1, "score": 1, "ok": true, "meta": {}, "kind": "x",
               "text": "n: text", "items": ["n 1", "n 2"]})
    );
}

/// `outputs`: an end node's is its input, a human node's the answer
/// (nobody watching, its last option).
#[tokio::test(start_paused = true)]
async fn an_end_nodes_output_is_its_input_and_a_human_nodes_the_answer() {
    let document = graph(
        json!({
            "entry": "w",
            "nodes": [{"id": "w", "agent": "a", "output": {"title": "string"}},
                      {"id": "ask", "human": "Publish?", "options": ["publish", "drop"]},
                      {"id": "done", "end": true}],
            "edges": [{"from": "w", "to": "ask"}, {"from": "ask", "to": "done"}]
        }),
        json!({"w": {"title": "Q3"}}),
    );
    let (result, _) = run(&document).await;
    assert_eq!(result["stop_reason"], "completed", "{result:#}");
    assert_eq!(result["outputs"]["ask"], json!({"answer": "drop"}));
    assert_eq!(result["outputs"]["done"], json!({"answer": "drop"}));
    let mut direct = document.clone();
    direct["graph"]["nodes"][1] = json!({"id": "ask", "agent": "a", "output": {"title": "string"}});
    let (result, _) = run(&direct).await;
    assert_eq!(result["outputs"]["done"], json!({"title": "ask: title"}));
}

/// The sim never repairs: a scripted answer outside the node's values
/// stops the run at once, after one call (an endpoint asks again once:
/// `graph_checks::a_verdict_outside_the_nodes_values_stops_with_invalid_output`).
#[tokio::test(start_paused = true)]
async fn the_sim_never_repairs_an_answer_that_does_not_fit() {
    let document = graph(
        json!({
            "entry": "review",
            "nodes": [{"id": "review", "agent": "a", "output": {"verdict": ["approve", "revise"]}},
                      {"id": "done", "end": true}],
            "edges": [{"from": "review", "to": "done"}]
        }),
        json!({"review": {"verdict": "maybe"}}),
    );
    let (result, events) = run(&document).await;
    assert_eq!(result["stop_reason"], "invalid_output:review", "{result:#}");
    let calls = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::CallStarted { tool, .. } if tool == "model"))
        .count();
    assert_eq!(calls, 1, "{result:#}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::CallRepair { .. }))
    );
}
