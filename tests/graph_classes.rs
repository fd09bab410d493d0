//! The classes an independent checker of docs/graph.md found, through
//! real runs on the sim and the paused clock: a stop raised while ready
//! nodes start keeps path, visits and `node_started` in step, and a node
//! made ready again while it still runs neither hangs the run nor loses
//! an activation.

use crate::common;

use common::graph::{graph_events, run};
use conclave::patterns::events::GraphEvent;
use serde_json::{Value, json};

fn graph(graph: Value, turns: Value) -> Value {
    json!({
        "name": "graph_classes", "pattern": "graph", "goal": "g", "context": {},
        "agents": {"a": {"description": "any node"}},
        "graph": graph,
        "provider": {"kind": "sim", "latency_ms": 100, "turns": turns}
    })
}

/// Class A: `s` fans out to `x` and `y` with `max_steps` 2.
#[tokio::test(start_paused = true)]
async fn a_stop_while_ready_nodes_start_keeps_path_visits_and_events_in_step() {
    let document = graph(
        json!({
            "entry": "s", "max_steps": 2,
            "nodes": [{"id": "s", "agent": "a"}, {"id": "x", "agent": "a"}, {"id": "y", "agent": "a"},
                      {"id": "j", "wait": "all", "inputs": ["x", "y"]}, {"id": "done", "end": true}],
            "edges": [{"from": "s", "to": "x"}, {"from": "s", "to": "y"}, {"from": "x", "to": "j"},
                      {"from": "y", "to": "j"}, {"from": "j", "to": "done"}]
        }),
        json!({}),
    );
    let (result, events) = run(&document).await;
    assert_eq!(result["stop_reason"], "max_steps");
    assert_eq!(result["path"], json!(["s", "x"]));
    assert_eq!(result["visits"]["x"], 1);
    assert_eq!(result["visits"]["y"], 0);
    let started: Vec<&str> = graph_events(&events)
        .into_iter()
        .filter_map(|e| match e {
            GraphEvent::NodeStarted { node, .. } => Some(node.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["s", "x"]);
}

/// Classes B1 and B2: `f` fans out to `quick` (100 ms) and `slow` (1000
/// ms) into an `any` join; `r` loops back twice. Each pass fires the join
/// on its own quick arrival, `slow` runs its three activations one after
/// the other, and the run completes on the clock, not at its time budget.
#[tokio::test(start_paused = true)]
async fn a_node_started_again_while_it_runs_waits_its_turn_and_the_run_completes() {
    let document = graph(
        json!({
            "entry": "f", "max_steps": 60,
            "nodes": [
                {"id": "f", "agent": "a", "max_visits": 3}, {"id": "quick", "agent": "a"}, {"id": "slow", "agent": "a"},
                {"id": "first", "wait": "any", "inputs": ["quick", "slow"]},
                {"id": "r", "agent": "a", "output": {"verdict": ["again", "go"]}},
                {"id": "done", "end": true}
            ],
            "edges": [
                {"from": "f", "to": "quick"}, {"from": "f", "to": "slow"},
                {"from": "quick", "to": "first"}, {"from": "slow", "to": "first"}, {"from": "first", "to": "r"},
                {"from": "r", "to": "f", "when": {"field": "/verdict", "eq": "again"}},
                {"from": "r", "to": "done", "default": true}
            ]
        }),
        json!({
            "quick": {"text": "q", "latency_ms": 100},
            "slow": {"text": "s", "latency_ms": 1000},
            "r": [{"verdict": "again"}, {"verdict": "again"}, {"verdict": "go"}]
        }),
    );
    let started = tokio::time::Instant::now();
    let (result, _) = run(&document).await;
    assert_eq!(result["stop_reason"], "completed", "{result:#}");
    assert_eq!(result["visits"]["first"], 3);
    assert_eq!(result["visits"]["slow"], 3);
    // Three slow activations one after the other, from 0.2 s: well
    // inside the default time budget.
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

/// The "out of time" sentence says when the time ran out.
#[tokio::test(start_paused = true)]
async fn out_of_time_says_when() {
    let mut document = graph(
        json!({
            "entry": "s",
            "nodes": [{"id": "s", "agent": "a"}, {"id": "done", "end": true}],
            "edges": [{"from": "s", "to": "done"}]
        }),
        json!({"s": {"text": "slow", "latency_ms": 5000}}),
    );
    document["budget"] = json!({"max_seconds": 2});
    let (result, _) = run(&document).await;
    assert_eq!(result["stop_reason"], "max_seconds");
    assert_eq!(
        result["stop"],
        "out of time: the run's time limit was reached at 2.0s"
    );
}

/// `reads`: an agent node is shown those keys of the state only (`[]`
/// none), and its `node_started` says what it was shown; a node without
/// `reads` is shown the whole state, as before, and its event says
/// nothing of it.
#[tokio::test(start_paused = true)]
async fn reads_shows_an_agent_node_only_the_keys_it_names() {
    let document = graph(
        json!({
            "entry": "plan",
            "state": {"steps": {"merge": "replace"}, "findings": {"merge": "append"}},
            "nodes": [
                {"id": "plan", "agent": "a", "output": {"steps": "list"}, "write": {"steps": "/steps"}},
                {"id": "research", "map": "state.steps", "agent": "a", "collect": "findings"},
                {"id": "some", "agent": "a", "reads": ["findings"]},
                {"id": "none", "agent": "a", "reads": []},
                {"id": "all", "agent": "a"},
                {"id": "done", "end": true}
            ],
            "edges": [{"from": "plan", "to": "research"}, {"from": "research", "to": "some"},
                      {"from": "some", "to": "none"}, {"from": "none", "to": "all"}, {"from": "all", "to": "done"}]
        }),
        json!({"plan": {"steps": ["x", "y"]}, "research": {"text": "found"}}),
    );
    let (result, events) = run(&document).await;
    assert_eq!(result["stop_reason"], "completed", "{result:#}");
    let read = |id: &str| {
        graph_events(&events).into_iter().find_map(|e| match e {
            GraphEvent::NodeStarted { node, read, .. } if node == id => Some(read.clone()),
            _ => None,
        })
    };
    let shown: Value = serde_json::from_str(&read("some").unwrap().unwrap()).unwrap();
    assert_eq!(
        shown,
        json!({"findings": [{"text": "found"}, {"text": "found"}]})
    );
    assert_eq!(read("none"), Some(Some("{}".to_string())));
    assert_eq!(read("all"), Some(None));
}
