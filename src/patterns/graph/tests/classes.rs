//! The classes an independent checker of docs/graph.md found, one case
//! each, on a virtual clock of the test's own: each activation ends after
//! the latency `answer` gives it, those ending at one instant in
//! declaration order.

use super::{ok, shape};
use crate::patterns::graph::machine::{Ended, Halt, Machine};
use crate::patterns::graph::shape::Shape;
use crate::patterns::graph::spec::Unmatched;
use serde_json::{Value, json};

/// The run of `shape` where `answer(id, visit)` gives each activation's
/// end and its latency in ms; the trace has `id#visit@ms` per start.
pub(super) fn timed(
    shape: &Shape,
    answer: impl Fn(&str, u32) -> (Ended, u64),
) -> (Vec<String>, Halt) {
    let mut machine = Machine::new(shape, Unmatched::Stop, json!({"goal": "test"}));
    let mut trace = Vec::new();
    // (ends at, node, its end)
    let mut running: Vec<(u64, usize, Ended)> = Vec::new();
    let mut now = 0;
    loop {
        let (started, halt) = machine.start_ready();
        for a in started {
            let id = &shape.nodes[a.node].id;
            trace.push(format!("{id}#{}@{now}", a.visit));
            let (ended, latency) = answer(id, a.visit);
            running.push((now + latency, a.node, ended));
        }
        if let Some(halt) = halt {
            return (trace, halt);
        }
        running.sort_by_key(|(at, node, _)| (*at, *node));
        if running.is_empty() {
            return (trace, machine.outcome());
        }
        let (at, node, ended) = running.remove(0);
        now = at;
        if let Err(halt) = machine.finish(node, ended) {
            return (trace, halt);
        }
        if machine.idle() {
            return (trace, machine.outcome());
        }
    }
}

/// A: `s` fans out to `x` and `y` with `max_steps` 2: `x` is the second
/// activation and starts; `y` would be the third, and the run stops.
#[test]
fn a_stop_while_ready_nodes_start_keeps_those_before_it() {
    let shape = shape(json!({
        "entry": "s", "max_steps": 2,
        "nodes": [{"id": "s", "agent": "a"}, {"id": "x", "agent": "a"}, {"id": "y", "agent": "a"},
                  {"id": "j", "wait": "all", "inputs": ["x", "y"]}, {"id": "done", "end": true}],
        "edges": [{"from": "s", "to": "x"}, {"from": "s", "to": "y"}, {"from": "x", "to": "j"},
                  {"from": "y", "to": "j"}, {"from": "j", "to": "done"}]
    }));
    let mut machine = Machine::new(&shape, Unmatched::Stop, Value::Null);
    let (started, halt) = machine.start_ready();
    assert_eq!((started.len(), halt), (1, None));
    machine.finish(0, ok(json!({"text": "s"}))).unwrap();
    let (started, halt) = machine.start_ready();
    let started: Vec<&str> = started
        .iter()
        .map(|a| shape.nodes[a.node].id.as_str())
        .collect();
    assert_eq!(started, ["x"]);
    assert_eq!(halt, Some(Halt::MaxSteps { limit: 2 }));
    assert_eq!(machine.visits, [1, 1, 0, 0, 0], "visits count what started");
}

/// `f` fans out to `quick` and `slow`, both into `first` (`wait`); `r`
/// routes `again` back to `f` twice, then `go` to the end.
fn loop_with_join(wait: Value) -> Value {
    json!({
        "entry": "f", "max_steps": 60,
        "nodes": [
            {"id": "f", "agent": "a", "max_visits": 3}, {"id": "quick", "agent": "a"}, {"id": "slow", "agent": "a"},
            {"id": "first", "wait": wait, "inputs": ["quick", "slow"]},
            {"id": "r", "agent": "a", "output": {"verdict": ["again", "go"]}},
            {"id": "done", "end": true}
        ],
        "edges": [
            {"from": "f", "to": "quick"}, {"from": "f", "to": "slow"},
            {"from": "quick", "to": "first"}, {"from": "slow", "to": "first"}, {"from": "first", "to": "r"},
            {"from": "r", "to": "f", "when": {"field": "/verdict", "eq": "again"}},
            {"from": "r", "to": "done", "default": true}
        ]
    })
}

fn quick_and_slow(slow: u64) -> impl Fn(&str, u32) -> (Ended, u64) {
    move |id, visit| match id {
        "quick" => (ok(json!({"text": "q"})), 100),
        "slow" => (ok(json!({"text": "s"})), slow),
        "r" if visit < 3 => (ok(json!({"verdict": "again"})), 100),
        "r" => (ok(json!({"verdict": "go"})), 100),
        _ => (ok(json!({"text": id})), 100),
    }
}

/// B1 and B2: an `any` join in a loop fires once per pass, on that pass's
/// first arrival (the quick one, each time), and the late `slow` of an
/// earlier pass closes that pass without firing; `slow`, made ready again
/// while it still runs, starts when its last activation ends.
#[test]
fn an_any_join_in_a_loop_counts_per_pass() {
    let shape = shape(loop_with_join(json!("any")));
    let (trace, halt) = timed(&shape, quick_and_slow(1000));
    assert_eq!(halt, Halt::Completed, "{trace:?}");
    let firsts: Vec<&String> = trace.iter().filter(|t| t.starts_with("first#")).collect();
    assert_eq!(firsts, ["first#1@200", "first#2@600", "first#3@1000"]);
    let slows: Vec<&String> = trace.iter().filter(|t| t.starts_with("slow#")).collect();
    assert_eq!(slows, ["slow#1@100", "slow#2@1100", "slow#3@2100"]);
}

/// B1 with a quorum of one out of two: the same per pass.
#[test]
fn a_quorum_join_in_a_loop_counts_per_pass() {
    let shape = shape(loop_with_join(json!({"quorum": 1})));
    let (trace, halt) = timed(&shape, quick_and_slow(1000));
    assert_eq!(halt, Halt::Completed, "{trace:?}");
    assert_eq!(trace.iter().filter(|t| t.starts_with("first#")).count(), 3);
}

/// C: a bounded node on one arm of a fan-out inside a loop names the loop
/// round it, not itself.
#[test]
fn max_visits_names_the_loop_through_a_fan_out() {
    let shape = shape(json!({
        "entry": "s", "max_steps": 60,
        "nodes": [
            {"id": "s", "agent": "a"}, {"id": "x", "agent": "a"}, {"id": "y", "agent": "a", "max_visits": 2},
            {"id": "j", "wait": "all", "inputs": ["x", "y"]},
            {"id": "r", "agent": "a", "output": {"verdict": ["again", "go"]}},
            {"id": "done", "end": true}
        ],
        "edges": [
            {"from": "s", "to": "x"}, {"from": "s", "to": "y"}, {"from": "x", "to": "j"}, {"from": "y", "to": "j"},
            {"from": "j", "to": "r"},
            {"from": "r", "to": "s", "when": {"field": "/verdict", "eq": "again"}},
            {"from": "r", "to": "done", "default": true}
        ]
    }));
    let (_, halt) = timed(&shape, |id, _| match id {
        "r" => (ok(json!({"verdict": "again"})), 100),
        _ => (ok(json!({"text": id})), 100),
    });
    assert_eq!(
        halt,
        Halt::MaxVisits {
            node: "y".into(),
            cycle: "s → y → j → r → s".into(),
            limit: 2
        }
    );
}

/// D: a plain merge node, one input skipped and the other behind a join
/// that waits, is no waiting join: only the join is listed. (The graph
/// has an input no node reaches, which the lint refuses; the machine is
/// held to its rule all the same.)
#[test]
fn stalled_lists_only_joins() {
    let spec = super::spec(json!({
        "entry": "s",
        "nodes": [
            {"id": "s", "agent": "a"},
            {"id": "x", "agent": "a", "output": {"go": "bool"}},
            {"id": "s2", "agent": "a"}, {"id": "never", "agent": "a"},
            {"id": "j", "wait": "all", "inputs": ["s2", "never"]},
            {"id": "m", "agent": "a"}, {"id": "other", "agent": "a"},
            {"id": "done", "end": true}
        ],
        "edges": [
            {"from": "s", "to": "x"}, {"from": "s", "to": "s2"},
            {"from": "x", "to": "m", "when": {"field": "/go", "eq": true}},
            {"from": "x", "to": "other", "default": true},
            {"from": "s2", "to": "j"}, {"from": "never", "to": "j"},
            {"from": "j", "to": "m"}, {"from": "m", "to": "done"}
        ]
    }));
    let shape = crate::patterns::graph::shape::compile(
        &spec,
        &crate::scenario::JsonPath::root().key("graph"),
    )
    .expect("the graph compiles");
    let (trace, halt) = timed(&shape, |id, _| match id {
        "x" => (ok(json!({"go": false})), 100),
        _ => (ok(json!({"text": id})), 100),
    });
    assert!(trace.iter().any(|t| t.starts_with("s2#")), "{trace:?}");
    assert_eq!(
        halt,
        Halt::Stalled {
            waiting: vec![("j".into(), vec!["never".into()])]
        }
    );
}

/// `reads` picks the keys an agent is shown; the advice names the agent
/// nodes without it once a key can grow; `reads` off an agent node, or
/// naming no key of the state, is refused.
#[test]
fn reads_picks_the_state_shown_and_is_advised_and_checked() {
    let graph = |reads: Value| {
        let mut g = json!({
            "entry": "w",
            "state": {"notes": {"merge": "append"}, "verdict": {"merge": "replace"}},
            "nodes": [{"id": "w", "agent": "a", "write": {"notes": "/text"}}, {"id": "done", "end": true}],
            "edges": [{"from": "w", "to": "done"}]
        });
        if !reads.is_null() {
            g["nodes"][0]["reads"] = reads;
        }
        g
    };
    let at = crate::scenario::JsonPath::root().key("graph");
    let with = shape(graph(json!(["verdict"])));
    let mut machine = Machine::new(&with, Unmatched::Stop, Value::Null);
    assert_eq!(machine.view(0), json!({"verdict": null}));
    machine.state["notes"] = json!(["a"]);
    assert_eq!(machine.view(0), json!({"verdict": null}));
    assert_eq!(crate::patterns::graph::lint::advice(&with, &at), None);
    let none = shape(graph(json!([])));
    assert_eq!(
        Machine::new(&none, Unmatched::Stop, Value::Null).view(0),
        json!({})
    );
    let without = shape(graph(Value::Null));
    assert_eq!(
        Machine::new(&without, Unmatched::Stop, Value::Null).view(0),
        json!({"notes": [], "verdict": null})
    );
    let advice = crate::patterns::graph::lint::advice(&without, &at).unwrap();
    assert!(advice.contains("the state keys notes can grow"), "{advice}");
    assert!(advice.contains("graph.nodes[0] (\"w\")"), "{advice}");
    assert_eq!(
        super::findings(graph(json!(["nope"]))),
        [
            r#"graph.nodes[0].reads: node "w" reads the state key "nope", which graph.state does not declare"#
        ]
    );
}

/// Two decided readings: `max_steps` wins over `max_visits` on one
/// activation, and a key never written keeps its empty value.
#[test]
fn max_steps_wins_and_unwritten_keys_stay_empty() {
    let shape = shape(json!({
        "entry": "d", "max_steps": 2,
        "state": {"notes": {"merge": "append"}, "verdict": {"merge": "replace"}},
        "nodes": [{"id": "d", "agent": "a", "max_visits": 1},
                  {"id": "r", "agent": "a", "output": {"verdict": ["again", "go"]}},
                  {"id": "done", "end": true}],
        "edges": [{"from": "d", "to": "r"},
                  {"from": "r", "to": "d", "when": {"field": "/verdict", "eq": "again"}},
                  {"from": "r", "to": "done", "default": true}]
    }));
    let mut machine = Machine::new(&shape, Unmatched::Stop, Value::Null);
    assert_eq!(machine.state, json!({"notes": [], "verdict": null}));
    let _ = machine.start_ready();
    machine.finish(0, ok(json!({"text": "d"}))).unwrap();
    let _ = machine.start_ready();
    machine.finish(1, ok(json!({"verdict": "again"}))).unwrap();
    assert_eq!(machine.start_ready().1, Some(Halt::MaxSteps { limit: 2 }));
}
