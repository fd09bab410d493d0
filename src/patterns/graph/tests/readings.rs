//! The three readings docs/graph.md left open until an independent
//! implementation asked: a "skipped" that reaches a node while an earlier
//! pass's activation of it runs, a quorum that can no longer be met
//! before every input is in, and the cycle `max_visits` names for a node
//! no loop passes.

use super::classes::timed;
use super::{ok, run, shape};
use crate::patterns::graph::machine::{Ended, Halt, Machine, NodeState};
use crate::patterns::graph::spec::Unmatched;
use serde_json::{Value, json};

/// `r` routes to `slow` (through `go`, which also ticks the loop round
/// to `r` again) or to `quick`; both lead into `m`, a plain node, then
/// `done`. `r` picks `slow` in its first pass and `quick` in its second.
fn overtaking() -> Value {
    json!({
        "entry": "r",
        "nodes": [
            {"id": "r", "agent": "a", "max_visits": 3, "output": {"pick": ["slow", "quick"]}},
            {"id": "go", "agent": "a"}, {"id": "tick", "agent": "a"},
            {"id": "slow", "agent": "a"}, {"id": "quick", "agent": "a"},
            {"id": "m", "agent": "a"}, {"id": "done", "end": true}, {"id": "fin", "end": true}
        ],
        "edges": [
            {"from": "r", "to": "go", "when": {"field": "/pick", "eq": "slow"}},
            {"from": "r", "to": "quick", "default": true},
            {"from": "go", "to": "slow"}, {"from": "go", "to": "tick"},
            {"from": "tick", "to": "r", "when": {"visits": "r", "lt": 2}},
            {"from": "tick", "to": "fin", "default": true},
            {"from": "slow", "to": "m"}, {"from": "quick", "to": "m"},
            {"from": "m", "to": "done"}
        ]
    })
}

fn picks(id: &str, visit: u32) -> (Ended, u64) {
    match (id, visit) {
        ("r", 1) => (ok(json!({"pick": "slow"})), 10),
        ("r", _) => (ok(json!({"pick": "quick"})), 10),
        ("slow", _) => (ok(json!({"text": "slow's work"})), 1000),
        (other, _) => (ok(json!({"text": other})), 10),
    }
}

/// Pass 2's "skipped" of `slow` waits behind `slow`'s first activation:
/// `m` runs once per decision of the router, with `quick`'s output (pass
/// 2, first in) and with `slow`'s (pass 1, when it ends); `slow` is
/// skipped only once its activation has ended.
#[test]
fn a_skip_never_overtakes_the_activation_still_running() {
    let shape = shape(overtaking());
    let (trace, halt) = timed(&shape, picks);
    assert_eq!(halt, Halt::Completed);
    let merges: Vec<&String> = trace.iter().filter(|t| t.starts_with("m#")).collect();
    assert_eq!(merges, ["m#1@50", "m#2@1020"], "{trace:?}");

    // Step by step: the skip is held while `slow` runs, and sent on
    // after its output.
    let id = |name: &str| shape.nodes.iter().position(|n| n.id == name).unwrap();
    let mut machine = Machine::new(&shape, Unmatched::Stop, Value::Null);
    machine.start_ready(); // r
    machine
        .finish(id("r"), ok(json!({"pick": "slow"})))
        .unwrap();
    machine.start_ready(); // go
    machine.finish(id("go"), ok(json!({}))).unwrap();
    machine.start_ready(); // slow and tick
    machine.finish(id("tick"), ok(json!({}))).unwrap();
    machine.start_ready(); // r again
    let step = machine
        .finish(id("r"), ok(json!({"pick": "quick"})))
        .unwrap();
    assert!(!step.skipped.contains(&id("slow")), "{:?}", step.skipped);
    assert_eq!(machine.states[id("slow")], NodeState::Running);
    let step = machine
        .finish(id("slow"), ok(json!({"text": "s"})))
        .unwrap();
    assert!(step.skipped.contains(&id("slow")));
}

/// `s` fans out to `r` and to `c`, which takes a second; `r` routes to
/// `a`, `b` or `other`; the quorum join `q` needs 2 of `a`, `b`, `c`.
#[test]
fn a_quorum_out_of_reach_stops_once_every_input_is_in() {
    let shape = shape(json!({
        "entry": "s",
        "nodes": [
            {"id": "s", "agent": "x"},
            {"id": "r", "agent": "x", "output": {"side": ["a", "b", "neither"]}},
            {"id": "a", "agent": "x"}, {"id": "b", "agent": "x"}, {"id": "c", "agent": "x"},
            {"id": "other", "agent": "x"},
            {"id": "q", "wait": {"quorum": 2}, "inputs": ["a", "b", "c"]},
            {"id": "done", "end": true}, {"id": "fin", "end": true}
        ],
        "edges": [
            {"from": "s", "to": "r"}, {"from": "s", "to": "c"},
            {"from": "r", "to": "a", "when": {"field": "/side", "eq": "a"}},
            {"from": "r", "to": "b", "when": {"field": "/side", "eq": "b"}},
            {"from": "r", "to": "other", "default": true},
            {"from": "a", "to": "q"}, {"from": "b", "to": "q"}, {"from": "c", "to": "q"},
            {"from": "q", "to": "done"}, {"from": "other", "to": "fin"}
        ]
    }));
    let (trace, halt) = timed(&shape, |id, _| match id {
        "r" => (ok(json!({"side": "neither"})), 10),
        "c" => (ok(json!({"text": "c's work"})), 1000),
        other => (ok(json!({"text": other})), 10),
    });
    // Out of reach at 20 ms (`a` and `b` skipped); the stop comes when
    // `c` is in, counted among the arrivals.
    assert!(trace.contains(&"other#1@20".to_string()), "{trace:?}");
    assert_eq!(
        halt,
        Halt::NodeFailed {
            node: "q".into(),
            error: "its quorum of 2 was not met: 1 of 3 inputs arrived, the rest were skipped"
                .into()
        }
    );
}

/// `h` fans out to `t` and `a7`; `t` loops back to `h`. `a7` is on a
/// branch leaving the loop, which no loop passes and the loop reaches on
/// each pass: its `max_visits` names that loop.
#[test]
fn max_visits_off_the_loop_names_the_loop_that_reaches_it() {
    let shape = shape(json!({
        "entry": "h",
        "nodes": [
            {"id": "h", "agent": "x", "max_visits": 9}, {"id": "t", "agent": "x"},
            {"id": "a7", "agent": "x", "max_visits": 2},
            {"id": "done", "end": true}, {"id": "fin", "end": true}
        ],
        "edges": [
            {"from": "h", "to": "t"}, {"from": "h", "to": "a7"},
            {"from": "t", "to": "h", "when": {"visits": "h", "lt": 5}},
            {"from": "t", "to": "done", "default": true},
            {"from": "a7", "to": "fin"}
        ]
    }));
    let (_, halt, _) = run(&shape, |id, _, _| ok(json!({"text": id})));
    assert_eq!(
        halt,
        Halt::MaxVisits {
            node: "a7".into(),
            cycle: "h → t → h".into(),
            limit: 2
        }
    );
}
