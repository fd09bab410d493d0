//! The graph pattern's rules through real runs on the sim, on the paused
//! clock: joins, skips, loops that re-arm their joins, first-match
//! routing, the stops that name what they are about, a map's item order
//! when its items end out of order, and the same events every run.

use crate::common;

use common::graph::{graph_events, run};

use conclave::bus::{Event, EventKind, RunStatus};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::GraphEvent;
use serde_json::{Value, json};

/// A graph scenario on the sim: every agent node answered by agent `a`,
/// scripted by node id in `turns` (each output may carry `latency_ms`).
fn graph(graph: Value, turns: Value) -> Value {
    json!({
        "name": "graph_test", "pattern": "graph", "goal": "g", "context": {},
        "agents": {"a": {"description": "any node"}},
        "tools": {"publish_api": {"description": "publishes", "data": {"*": {"ok": true}}}},
        "graph": graph,
        "provider": {"kind": "sim", "latency_ms": 100, "turns": turns}
    })
}

fn path(result: &Value) -> Vec<&str> {
    result["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect()
}

/// start fans out to a, b, c (ending after 300, 100 and 200 ms); a join
/// with `wait` takes them; then the end.
fn fan_in(wait: Value) -> Value {
    graph(
        json!({
            "entry": "start",
            "nodes": [
                {"id": "start", "agent": "a"},
                {"id": "a", "agent": "a"}, {"id": "b", "agent": "a"}, {"id": "c", "agent": "a"},
                {"id": "merge", "wait": wait, "inputs": ["a", "b", "c"]},
                {"id": "done", "end": true}
            ],
            "edges": [
                {"from": "start", "to": "a"}, {"from": "start", "to": "b"}, {"from": "start", "to": "c"},
                {"from": "a", "to": "merge"}, {"from": "b", "to": "merge"}, {"from": "c", "to": "merge"},
                {"from": "merge", "to": "done"}
            ]
        }),
        json!({
            "a": {"text": "A", "latency_ms": 300},
            "b": {"text": "B", "latency_ms": 100},
            "c": {"text": "C", "latency_ms": 200}
        }),
    )
}

/// Each join rule: when it fires (the path), what it fired with (in its
/// declared order), and the barrier it published on the way.
#[tokio::test(start_paused = true)]
async fn each_join_rule_fires_when_its_rule_says() {
    let cases = [
        (
            json!("all"),
            vec!["start", "a", "b", "c", "merge", "done"],
            vec!["a", "b", "c"],
        ),
        (
            json!("any"),
            vec!["start", "a", "b", "c", "merge", "done"],
            vec!["b"],
        ),
        (
            json!({"quorum": 2}),
            vec!["start", "a", "b", "c", "merge", "done"],
            vec!["b", "c"],
        ),
    ];
    for (wait, want_path, fired_with) in cases {
        let (result, events) = run(&fan_in(wait.clone())).await;
        assert_eq!(result["stop_reason"], "completed", "{wait}: {result}");
        assert_eq!(path(&result), want_path, "{wait}");
        let merged: Vec<&str> = result["outputs"]["merge"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            merged, fired_with,
            "{wait}: the join's output, in declared order"
        );
        let fired: Vec<&GraphEvent> = graph_events(&events)
            .into_iter()
            .filter(|e| matches!(e, GraphEvent::JoinFired { .. }))
            .collect();
        assert_eq!(fired.len(), 1, "{wait}: fires once in its pass");
    }
    let (_, events) = run(&fan_in(json!("all"))).await;
    let waiting: Vec<String> = graph_events(&events)
        .into_iter()
        .filter_map(|e| match e {
            GraphEvent::JoinWaiting {
                arrived,
                waiting_on,
                rule,
                ..
            } => Some(format!(
                "{rule} {}/{}",
                arrived.join(","),
                waiting_on.join(",")
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        waiting,
        ["all b/a,c", "all b,c/a"],
        "b, then c, then a arrived"
    );
}

/// A router's edge not taken sends "skipped" on: the branch below it is
/// skipped and the join resolves with what arrived.
#[tokio::test(start_paused = true)]
async fn a_route_not_taken_skips_its_branch_and_the_join_resolves() {
    let document = graph(
        json!({
            "entry": "route",
            "nodes": [
                {"id": "route", "agent": "a", "output": {"go": ["left", "right"]}},
                {"id": "left", "agent": "a"}, {"id": "right", "agent": "a"},
                {"id": "after_right", "agent": "a"},
                {"id": "merge", "wait": "all", "inputs": ["left", "after_right"]},
                {"id": "done", "end": true}
            ],
            "edges": [
                {"from": "route", "to": "left", "when": {"field": "/go", "eq": "left"}},
                {"from": "route", "to": "right", "default": true},
                {"from": "right", "to": "after_right"},
                {"from": "left", "to": "merge"}, {"from": "after_right", "to": "merge"},
                {"from": "merge", "to": "done"}
            ]
        }),
        json!({"route": {"go": "left"}}),
    );
    let (result, events) = run(&document).await;
    assert_eq!(result["stop_reason"], "completed", "{result}");
    assert_eq!(path(&result), ["route", "left", "merge", "done"]);
    let skipped: Vec<&str> = graph_events(&events)
        .into_iter()
        .filter_map(|e| match e {
            GraphEvent::NodeSkipped { node } => Some(node.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(skipped, ["right", "after_right"]);
    assert_eq!(
        result["outputs"]["merge"],
        json!({"left": {"text": "left: text"}})
    );
}

/// A loop through a join: the join fires once per pass and re-arms.
#[tokio::test(start_paused = true)]
async fn a_join_in_a_loop_rearms_each_pass() {
    let document = graph(
        json!({
            "entry": "start",
            "nodes": [
                {"id": "start", "agent": "a", "max_visits": 3},
                {"id": "x", "agent": "a"}, {"id": "y", "agent": "a"},
                {"id": "merge", "wait": "all", "inputs": ["x", "y"]},
                {"id": "check", "agent": "a", "output": {"again": "bool"}},
                {"id": "done", "end": true}
            ],
            "edges": [
                {"from": "start", "to": "x"}, {"from": "start", "to": "y"},
                {"from": "x", "to": "merge"}, {"from": "y", "to": "merge"},
                {"from": "merge", "to": "check"},
                {"from": "check", "to": "start", "when": {"field": "/again", "eq": true}},
                {"from": "check", "to": "done", "default": true}
            ]
        }),
        json!({"check": [{"again": true}, {"again": false}]}),
    );
    let (result, events) = run(&document).await;
    assert_eq!(result["stop_reason"], "completed", "{result}");
    assert_eq!(result["visits"]["merge"], 2);
    let fired = graph_events(&events)
        .into_iter()
        .filter(|e| matches!(e, GraphEvent::JoinFired { .. }))
        .count();
    assert_eq!(fired, 2, "once per pass");
}

/// The loop: routes are tried in order, the first match taken,
/// each check said with its real value; a bounded loop edge carries its
/// target's visits.
#[tokio::test(start_paused = true)]
async fn the_review_loop_routes_by_first_match_with_the_values_said() {
    let (outcome, events) = common::run(
        common::shipped("graph_review_loop.json"),
        LaunchOptions::default(),
    )
    .await;
    assert_eq!(outcome.status, RunStatus::Ok);
    let result = outcome.result.value();
    assert_eq!(
        path(result),
        [
            "plan", "research", "risks", "gather", "draft", "review", "draft", "review", "draft",
            "review", "publish", "done"
        ]
    );
    let edges: Vec<String> = graph_events(&events)
        .into_iter()
        .filter_map(|e| match e {
            GraphEvent::EdgeEvaluated {
                from,
                to,
                checks,
                taken,
                visits,
                max_visits,
            } if from == "review" => {
                let said: Vec<String> = checks
                    .iter()
                    .map(|c| format!("{} {}", c.said, if c.held { "✓" } else { "✗" }))
                    .collect();
                Some(format!(
                    "{from}→{to} [{}] {taken} {visits:?}/{max_visits:?}",
                    said.join(", ")
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        &edges[..3],
        [
            "review→publish [verdict=\"revise\" ==\"approve\" ✗] false None/None",
            "review→draft [verdict=\"revise\" ==\"revise\" ✓, visits(draft)=1 <3 ✓] true Some(1)/Some(3)",
            "review→ask [] false None/None",
        ]
    );
    assert_eq!(
        edges.last().unwrap(),
        "review→ask [] false None/None",
        "the default is not taken once approve matched"
    );
}

#[tokio::test(start_paused = true)]
async fn a_route_that_matches_nothing_stops_naming_the_node_and_values() {
    let document = graph(
        json!({
            "entry": "review",
            "nodes": [
                {"id": "review", "agent": "a", "output": {"score": "integer"}},
                {"id": "good", "end": true}, {"id": "bad", "end": true}
            ],
            "edges": [
                {"from": "review", "to": "good", "when": {"field": "/score", "gt": 7}},
                {"from": "review", "to": "bad", "when": {"field": "/score", "lt": 3}}
            ]
        }),
        json!({"review": {"score": 5}}),
    );
    let (result, _) = run(&document).await;
    assert_eq!(result["status"], "stopped");
    assert_eq!(
        result["stop_reason"],
        "no_route:review:score=5 >7; score=5 <3"
    );
    assert_eq!(
        result["details"]["no_route"],
        json!({"node": "review", "values": ["score=5 >7", "score=5 <3"]})
    );
}

#[tokio::test(start_paused = true)]
async fn a_loop_past_its_bound_stops_naming_the_cycle() {
    let document = graph(
        json!({
            "entry": "draft",
            "nodes": [
                {"id": "draft", "agent": "a", "max_visits": 2},
                {"id": "review", "agent": "a", "output": {"verdict": ["approve", "revise"]}},
                {"id": "done", "end": true}
            ],
            "edges": [
                {"from": "draft", "to": "review"},
                {"from": "review", "to": "draft", "when": {"field": "/verdict", "eq": "revise"}},
                {"from": "review", "to": "done", "default": true}
            ]
        }),
        json!({"review": {"verdict": "revise"}}),
    );
    let (result, _) = run(&document).await;
    assert_eq!(result["stop_reason"], "max_visits:draft:draft>review>draft");
    assert_eq!(
        result["stop"],
        "node draft ran as often as it may in the cycle draft → review → draft"
    );
    assert_eq!(path(&result), ["draft", "review", "draft", "review"]);
}

#[tokio::test(start_paused = true)]
async fn a_join_left_waiting_is_stalled_never_completed() {
    let (outcome, _) = common::run(
        common::shipped("graph_stalled_join.json"),
        LaunchOptions::default(),
    )
    .await;
    assert_eq!(outcome.status, RunStatus::Stopped);
    let result = outcome.result.value();
    assert_eq!(result["stop_reason"], "stalled:merge<price");
    assert_eq!(
        result["stop"],
        "the graph can go no further: merge waits on price"
    );
    assert_eq!(
        result["details"]["waiting"],
        json!([{"join": "merge", "waiting_on": ["price"]}])
    );
}

/// The research map's items end third, first, second; its results and
/// the state keep the items' order.
#[tokio::test(start_paused = true)]
async fn a_map_keeps_item_order_whatever_order_items_end_in() {
    let (outcome, events) = common::run(
        common::shipped("graph_review_loop.json"),
        LaunchOptions::default(),
    )
    .await;
    let result = outcome.result.value();
    let findings: Vec<&str> = result["outputs"]["research"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["finding"].as_str().unwrap()[..5])
        .collect();
    assert_eq!(findings, ["Fees ", "Rollo", "Suppo"]);
    assert_eq!(result["state"]["findings"], result["outputs"]["research"]);
    let progress: Vec<(u32, u32)> = graph_events(&events)
        .into_iter()
        .filter_map(|e| match e {
            GraphEvent::MapProgress { done, running, .. } => Some((*done, *running)),
            _ => None,
        })
        .collect();
    assert_eq!(progress, [(1, 2), (2, 1), (3, 0)]);
    let finished: Vec<u64> = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::CallFinished { .. }))
        .map(|e| e.t_ms)
        .collect();
    assert!(finished.windows(2).all(|w| w[0] <= w[1]));
}

/// Two runs publish the same events, in the same order, at the same run
/// times (the wall clock's start aside).
#[tokio::test(start_paused = true)]
async fn two_runs_publish_the_same_events() {
    let lines = |events: Vec<Event>| -> Vec<String> {
        events
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::RunStarted(_)))
            .map(|e| serde_json::to_string(e).unwrap())
            .collect()
    };
    for file in [
        "graph_review_loop.json",
        "graph_stalled_join.json",
        "graph_team_draft.json",
    ] {
        let (_, first) = common::run(common::shipped(file), LaunchOptions::default()).await;
        let (_, second) = common::run(common::shipped(file), LaunchOptions::default()).await;
        assert_eq!(lines(first), lines(second), "{file}");
    }
}
