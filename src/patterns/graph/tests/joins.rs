//! Which joins a node's end reports: every join an input or a "skipped"
//! reached, however far down the skip went, each once, in declaration
//! order, with its barrier as it then stands.

use super::{ok, shape};
use crate::patterns::graph::machine::{Ended, Machine, NodeState};
use crate::patterns::graph::shape::Shape;
use crate::patterns::graph::spec::Unmatched;
use serde_json::{Value, json};

/// Runs `shape`, each started node ending in start order with what
/// `answer` gives it; per end, `node: join state, join state` for every
/// join the step reported.
fn reported(shape: &Shape, answer: impl Fn(&str) -> Ended) -> Vec<String> {
    let mut machine = Machine::new(shape, Unmatched::Stop, json!({"goal": "test"}));
    let mut running = std::collections::VecDeque::new();
    let mut lines = Vec::new();
    loop {
        let (started, halt) = machine.start_ready();
        assert_eq!(halt, None, "no stop");
        running.extend(started);
        let Some(a) = running.pop_front() else {
            return lines;
        };
        let id = shape.nodes[a.node].id.clone();
        let step = machine.finish(a.node, answer(&id)).expect("no stop");
        let joins: Vec<String> = step
            .joins
            .iter()
            .map(|&j| {
                let state = match machine.barrier(j) {
                    _ if machine.states[j] == NodeState::Ready => "fired".to_string(),
                    Some((arrived, waiting)) => {
                        format!("[{}] waits on [{}]", arrived.join(","), waiting.join(","))
                    }
                    None if machine.states[j] == NodeState::Skipped => "skipped".into(),
                    None => "resolved".into(),
                };
                format!("{} {state}", shape.nodes[j].id)
            })
            .collect();
        lines.push(format!("{id}: {}", joins.join("; ")));
    }
}

fn picks(side: &'static str) -> impl Fn(&str) -> Ended {
    move |id| match id {
        "pick" => ok(json!({"side": side})),
        other => ok(json!(other)),
    }
}

/// A router whose right branch runs through `mid` into a join: a skip of
/// `right` reaches the join two nodes down.
fn deep() -> Value {
    json!({
    "entry": "pick",
    "nodes": [
        {"id": "pick", "agent": "a", "output": {"side": ["left", "right"]}},
        {"id": "left", "agent": "a"}, {"id": "right", "agent": "a"},
        {"id": "mid", "agent": "a"},
        {"id": "merge", "wait": "all", "inputs": ["left", "mid"]},
        {"id": "done", "end": true}
    ],
    "edges": [
        {"from": "pick", "to": "left", "when": {"field": "/side", "eq": "left"}},
        {"from": "pick", "to": "right", "when": {"field": "/side", "eq": "right"}},
        {"from": "right", "to": "mid"}, {"from": "left", "to": "merge"},
        {"from": "mid", "to": "merge"}, {"from": "merge", "to": "done"}
    ]})
}

/// The skip reaches `late` before `early` (its edges are written so), but
/// `early` is declared first; both wait on `left`, and `done` joins them.
fn two_deep() -> Value {
    json!({
    "entry": "pick",
    "nodes": [
        {"id": "pick", "agent": "a", "output": {"side": ["left", "right"]}},
        {"id": "early", "wait": "all", "inputs": ["left", "r2"]},
        {"id": "left", "agent": "a"}, {"id": "right", "agent": "a"},
        {"id": "r2", "agent": "a"},
        {"id": "late", "wait": "all", "inputs": ["left", "r2"]},
        {"id": "done", "wait": "all", "inputs": ["early", "late"]},
        {"id": "end", "end": true}
    ],
    "edges": [
        {"from": "pick", "to": "left", "when": {"field": "/side", "eq": "left"}},
        {"from": "pick", "to": "right", "when": {"field": "/side", "eq": "right"}},
        {"from": "right", "to": "r2"},
        {"from": "r2", "to": "late"}, {"from": "r2", "to": "early"},
        {"from": "left", "to": "late"}, {"from": "left", "to": "early"},
        {"from": "early", "to": "done"}, {"from": "late", "to": "done"},
        {"from": "done", "to": "end"}
    ]})
}

/// Every branch skipped: the join of them is skipped and its skip reaches
/// a join of `any` that the router also feeds.
fn all_skipped() -> Value {
    json!({
    "entry": "pick",
    "nodes": [
        {"id": "pick", "agent": "a", "output": {"side": ["left", "right", "neither"]}},
        {"id": "left", "agent": "a"}, {"id": "right", "agent": "a"},
        {"id": "merge", "wait": "all", "inputs": ["left", "right"]},
        {"id": "either", "wait": "any", "inputs": ["pick", "merge"]},
        {"id": "end", "end": true}
    ],
    "edges": [
        {"from": "pick", "to": "left", "when": {"field": "/side", "eq": "left"}},
        {"from": "pick", "to": "right", "when": {"field": "/side", "eq": "right"}},
        {"from": "pick", "to": "either", "default": true},
        {"from": "left", "to": "merge"}, {"from": "right", "to": "merge"},
        {"from": "merge", "to": "either"}, {"from": "either", "to": "end"}
    ]})
}

#[test]
fn every_join_a_skip_reaches_is_reported_in_declaration_order() {
    let table: [(&str, Value, &str, &[&str]); 4] = [
        (
            "a skip two nodes down",
            deep(),
            "left",
            &[
                "pick: merge [] waits on [left]",
                "left: merge fired",
                "merge: ",
                "done: ",
            ],
        ),
        (
            "the taken branch first, then the skip",
            deep(),
            "right",
            &[
                "pick: merge [] waits on [mid]",
                "right: ",
                "mid: merge fired",
                "merge: ",
                "done: ",
            ],
        ),
        (
            "two joins, reached in the other order",
            two_deep(),
            "left",
            &[
                "pick: early [] waits on [left]; late [] waits on [left]",
                "left: early fired; late fired",
                "early: done [early] waits on [late]",
                "late: done fired",
                "done: ",
                "end: ",
            ],
        ),
        (
            "a skipped join's skip reaching another",
            all_skipped(),
            "neither",
            &["pick: merge skipped; either fired", "either: ", "end: "],
        ),
    ];
    for (name, graph, side, expected) in table {
        let shape = shape(graph);
        let first = reported(&shape, picks(side));
        assert_eq!(first, expected, "{name}");
        assert_eq!(
            reported(&shape, picks(side)),
            first,
            "{name}: deterministic"
        );
    }
}
