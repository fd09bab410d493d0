//! Table tests of the graph's rules: the machine driven by a script of
//! answers, each node finishing in the order it started, and the lint on
//! one broken graph per finding.

mod classes;
mod decided;
mod joins;
mod readings;
mod tools;

use super::lint::lint;
use super::machine::{Ended, Halt, Machine, NodeState};
use super::shape::{Shape, compile};
use super::spec::GraphSpec;
use crate::scenario::JsonPath;
use serde_json::{Value, json};

fn spec(graph: Value) -> GraphSpec {
    serde_json::from_value(graph).expect("the graph reads")
}

fn shape(graph: Value) -> Shape {
    let spec = spec(graph);
    let shape = compile(&spec, &JsonPath::root().key("graph")).expect("the graph compiles");
    let found = lint(&shape, &JsonPath::root().key("graph"));
    assert!(
        found.is_empty(),
        "{:?}",
        found.iter().map(|p| &p.message).collect::<Vec<_>>()
    );
    shape
}

/// The lint's findings on `graph`, compiled or not, as `path: message`.
fn findings(graph: Value) -> Vec<String> {
    let spec = spec(graph);
    let at = JsonPath::root().key("graph");
    let problems = match compile(&spec, &at) {
        Ok(shape) => lint(&shape, &at),
        Err(problems) => problems,
    };
    problems
        .iter()
        .map(|p| format!("{}: {}", p.path, p.message))
        .collect()
}

/// A run of `shape`: each started node ends with what `answer` says for
/// (node id, visit); nodes end in the order they started. The trace has
/// `id#visit` per activation and `-id` per skip; the halt ends it.
fn run(
    shape: &Shape,
    mut answer: impl FnMut(&str, u32, &Value) -> Ended,
) -> (Vec<String>, Halt, Value) {
    let unmatched = super::spec::Unmatched::Stop;
    let mut machine = Machine::new(shape, unmatched, json!({"goal": "test"}));
    let mut trace = Vec::new();
    let mut running = std::collections::VecDeque::new();
    loop {
        let (started, halt) = machine.start_ready();
        for a in started {
            trace.push(format!("{}#{}", shape.nodes[a.node].id, a.visit));
            running.push_back(a);
        }
        if let Some(halt) = halt {
            return (trace, halt, machine.state);
        }
        let Some(a) = running.pop_front() else {
            return (trace, machine.outcome(), machine.state);
        };
        let id = shape.nodes[a.node].id.clone();
        match machine.finish(a.node, answer(&id, a.visit, &a.input)) {
            Ok(step) => trace.extend(
                step.skipped
                    .iter()
                    .map(|&n| format!("-{}", shape.nodes[n].id)),
            ),
            Err(halt) => return (trace, halt, machine.state),
        }
        if machine.idle() {
            return (trace, machine.outcome(), machine.state);
        }
    }
}

fn ok(output: Value) -> Ended {
    Ended::Ok {
        output,
        answer: None,
    }
}

/// The issue's draft–review loop, with the verdicts given per review.
fn review_loop() -> Value {
    json!({
    "entry": "plan", "max_steps": 60,
    "state": {"steps": {"merge": "replace"}, "findings": {"merge": "append"}, "verdict": {"merge": "replace"}},
    "nodes": [
        {"id": "plan", "agent": "planner", "output": {"steps": "list"}, "write": {"steps": "/steps"}},
        {"id": "research", "map": "state.steps", "agent": "researcher", "max_parallel": 4, "collect": "findings"},
        {"id": "draft", "agent": "writer", "max_visits": 3},
        {"id": "review", "agent": "critic", "output": {"verdict": ["approve", "revise", "reject"]}, "write": {"verdict": "/verdict"}},
        {"id": "ask", "human": "Publish anyway?", "options": ["publish", "drop"]},
        {"id": "publish", "tool": "publish_api"},
        {"id": "done", "end": true}
    ],
    "edges": [
        {"from": "plan", "to": "research"}, {"from": "research", "to": "draft"}, {"from": "draft", "to": "review"},
        {"from": "review", "to": "publish", "when": {"field": "/verdict", "eq": "approve"}},
        {"from": "review", "to": "draft", "when": {"all": [{"field": "/verdict", "eq": "revise"}, {"visits": "draft", "lt": 3}]}},
        {"from": "review", "to": "ask", "default": true},
        {"from": "ask", "to": "publish", "when": {"answer": "publish"}}, {"from": "ask", "to": "done", "default": true},
        {"from": "publish", "to": "done"}
    ]})
}

fn reviews(verdicts: &'static [&'static str]) -> impl Fn(&str, u32, &Value) -> Ended {
    move |id, visit, _| match id {
        "plan" => ok(json!({"steps": ["a", "b"]})),
        "research" => ok(json!(["found a", "found b"])),
        "review" => ok(json!({"verdict": verdicts[visit as usize - 1]})),
        "ask" => Ended::Ok {
            output: json!({"answer": "drop"}),
            answer: Some("drop".into()),
        },
        _ => ok(json!({"text": id})),
    }
}

#[test]
fn the_review_loop_goes_round_until_approved() {
    let shape = shape(review_loop());
    let (trace, halt, state) = run(&shape, reviews(&["revise", "approve"]));
    assert_eq!(halt, Halt::Completed);
    assert_eq!(
        trace,
        [
            "plan#1",
            "research#1",
            "draft#1",
            "review#1",
            "draft#2",
            "review#2",
            "-ask",
            "publish#1",
            "done#1"
        ]
    );
    assert_eq!(state["verdict"], "approve");
    assert_eq!(state["findings"], json!(["found a", "found b"]));
}

#[test]
fn the_visit_condition_sends_a_third_revise_to_the_person() {
    let shape = shape(review_loop());
    let (trace, halt, _) = run(&shape, reviews(&["revise", "revise", "revise"]));
    assert_eq!(halt, Halt::Completed);
    assert_eq!(
        &trace[trace.len() - 4..],
        ["review#3", "ask#1", "-publish", "done#1"],
        "{trace:?}"
    );
}

#[test]
fn no_route_names_the_node_and_the_values() {
    let mut graph = review_loop();
    // Without the default, "reject" matches nothing.
    graph["edges"][5] =
        json!({"from": "review", "to": "ask", "when": {"field": "/verdict", "eq": "escalate"}});
    graph["nodes"][3]["output"]["verdict"] = json!("string");
    let shape = shape(graph);
    let (_, halt, _) = run(&shape, reviews(&["reject"]));
    let Halt::NoRoute { node, values } = halt else {
        panic!("{halt:?}")
    };
    assert_eq!(node, "review");
    assert_eq!(values[0], r#"verdict="reject" =="approve""#);
}

#[test]
fn max_visits_names_the_node_and_its_cycle() {
    let mut graph = review_loop();
    // The loop's own guard taken away: the bound stops it.
    graph["edges"][4]["when"] = json!({"field": "/verdict", "eq": "revise"});
    let shape = shape(graph);
    let (_, halt, _) = run(&shape, reviews(&["revise", "revise", "revise"]));
    assert_eq!(
        halt,
        Halt::MaxVisits {
            node: "draft".into(),
            cycle: "draft → review → draft".into(),
            limit: 3
        }
    );
}

#[test]
fn max_steps_stops_the_run() {
    let mut graph = review_loop();
    graph["max_steps"] = json!(5);
    let shape = shape(graph);
    let (trace, halt, _) = run(&shape, reviews(&["revise", "approve"]));
    assert_eq!(halt, Halt::MaxSteps { limit: 5 });
    assert_eq!(trace.iter().filter(|t| !t.starts_with('-')).count(), 5);
}

/// A fan-out to two branches and a join of `wait`.
fn fan(wait: Value, third: bool) -> Value {
    let mut nodes = vec![
        json!({"id": "start", "agent": "a"}),
        json!({"id": "left", "agent": "a"}),
        json!({"id": "right", "agent": "a"}),
        json!({"id": "merge", "wait": wait, "inputs": ["left", "right"]}),
        json!({"id": "done", "end": true}),
    ];
    let mut edges = vec![
        json!({"from": "start", "to": "left"}),
        json!({"from": "start", "to": "right"}),
        json!({"from": "left", "to": "merge"}),
        json!({"from": "right", "to": "merge"}),
        json!({"from": "merge", "to": "done"}),
    ];
    if third {
        nodes.insert(3, json!({"id": "extra", "agent": "a"}));
        edges.push(json!({"from": "start", "to": "extra"}));
        edges.push(json!({"from": "extra", "to": "merge"}));
        nodes[4]["inputs"] = json!(["left", "right", "extra"]);
    }
    json!({"entry": "start", "nodes": nodes, "edges": edges})
}

#[test]
fn a_join_of_all_fires_once_with_each_input_in_declared_order() {
    let shape = shape(fan(json!("all"), false));
    let mut seen = None;
    let (trace, halt, _) = run(&shape, |id, _, input| {
        if id == "merge" {
            seen = Some(input.clone());
        }
        ok(json!(id))
    });
    assert_eq!(halt, Halt::Completed);
    assert_eq!(trace, ["start#1", "left#1", "right#1", "merge#1", "done#1"]);
    // Object keys print sorted; the order is checked through the machine's map.
    assert_eq!(seen, Some(json!({"left": "left", "right": "right"})));
}

#[test]
fn a_join_of_any_fires_at_the_first_arrival_only() {
    let shape = shape(fan(json!("any"), false));
    let (trace, halt, _) = run(&shape, |id, _, _| ok(json!(id)));
    assert_eq!(halt, Halt::Completed);
    assert_eq!(trace, ["start#1", "left#1", "right#1", "merge#1", "done#1"]);
    assert_eq!(trace.iter().filter(|t| t.starts_with("merge")).count(), 1);
}

#[test]
fn a_quorum_fires_at_its_nth_arrival() {
    let shape = shape(fan(json!({"quorum": 2}), true));
    let (trace, halt, _) = run(&shape, |id, _, _| ok(json!(id)));
    assert_eq!(halt, Halt::Completed);
    assert_eq!(
        trace,
        [
            "start#1", "left#1", "right#1", "extra#1", "merge#1", "done#1"
        ]
    );
}

#[test]
fn a_quorum_that_can_no_longer_be_met_fails_the_join() {
    let shape = shape(routed_join(json!({"quorum": 2})));
    let (_, halt, _) = run(&shape, |id, _, _| {
        if id == "pick" {
            ok(json!({"side": "left"}))
        } else {
            ok(json!(id))
        }
    });
    assert_eq!(
        halt,
        Halt::NodeFailed {
            node: "merge".into(),
            error: "its quorum of 2 was not met: 1 of 2 inputs arrived, the rest were skipped"
                .into()
        }
    );
}

#[test]
fn a_node_failure_stops_the_run_naming_it() {
    let shape = shape(fan(json!("all"), false));
    let (_, halt, _) = run(&shape, |id, _, _| {
        if id == "right" {
            Ended::Failed {
                error: "the endpoint said 500".into(),
            }
        } else {
            ok(json!(id))
        }
    });
    assert_eq!(
        halt,
        Halt::NodeFailed {
            node: "right".into(),
            error: "the endpoint said 500".into()
        }
    );
}

/// A router before a join: one branch is skipped and the join resolves.
fn routed_join(wait: Value) -> Value {
    json!({
    "entry": "pick",
    "nodes": [
        {"id": "pick", "agent": "a", "output": {"side": ["left", "right"]}},
        {"id": "left", "agent": "a"}, {"id": "right", "agent": "a"},
        {"id": "merge", "wait": wait, "inputs": ["left", "right"]},
        {"id": "done", "end": true}
    ],
    "edges": [
        {"from": "pick", "to": "left", "when": {"field": "/side", "eq": "left"}},
        {"from": "pick", "to": "right", "when": {"field": "/side", "eq": "right"}},
        {"from": "left", "to": "merge"}, {"from": "right", "to": "merge"},
        {"from": "merge", "to": "done"}
    ]})
}

#[test]
fn a_false_edge_sends_skipped_and_the_join_resolves() {
    let shape = shape(routed_join(json!("all")));
    let (trace, halt, _) = run(&shape, |id, _, _| {
        if id == "pick" {
            ok(json!({"side": "left"}))
        } else {
            ok(json!(id))
        }
    });
    assert_eq!(halt, Halt::Completed);
    assert_eq!(trace, ["pick#1", "-right", "left#1", "merge#1", "done#1"]);
}

#[test]
fn a_join_whose_inputs_are_all_skipped_is_skipped() {
    let mut graph = routed_join(json!("all"));
    graph["nodes"][0]["output"]["side"] = json!(["left", "right", "neither"]);
    graph["edges"]
        .as_array_mut()
        .unwrap()
        .insert(2, json!({"from": "pick", "to": "done", "default": true}));
    // `done` now has two incoming edges: from the router and from the join.
    graph["nodes"][4] = json!({"id": "done", "wait": "any", "inputs": ["pick", "merge"]});
    graph["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "end", "end": true}));
    graph["edges"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": "done", "to": "end"}));
    let shape = shape(graph);
    let (trace, halt, _) = run(&shape, |id, _, _| {
        if id == "pick" {
            ok(json!({"side": "neither"}))
        } else {
            ok(json!(id))
        }
    });
    assert_eq!(halt, Halt::Completed);
    assert_eq!(
        trace,
        ["pick#1", "-left", "-right", "-merge", "done#1", "end#1"]
    );
}

/// A retry loop that goes back into one branch of a join: the join's
/// second pass gets that branch again, never the other.
fn retry_into_one_branch() -> Value {
    json!({
    "entry": "start",
    "nodes": [
        {"id": "start", "agent": "a"},
        {"id": "fetch", "agent": "a", "max_visits": 3},
        {"id": "price", "agent": "a"},
        {"id": "merge", "wait": "all", "inputs": ["fetch", "price"]},
        {"id": "check", "agent": "a", "output": {"ok": "bool"}},
        {"id": "done", "end": true}
    ],
    "edges": [
        {"from": "start", "to": "fetch"}, {"from": "start", "to": "price"},
        {"from": "fetch", "to": "merge"}, {"from": "price", "to": "merge"},
        {"from": "merge", "to": "check"},
        {"from": "check", "to": "done", "when": {"field": "/ok", "eq": true}},
        {"from": "check", "to": "fetch", "default": true}
    ]})
}

#[test]
fn a_join_waiting_on_a_branch_that_never_comes_is_stalled_not_completed() {
    let shape = shape(retry_into_one_branch());
    let (trace, halt, _) = run(&shape, |id, _, _| {
        if id == "check" {
            ok(json!({"ok": false}))
        } else {
            ok(json!(id))
        }
    });
    assert_eq!(
        halt,
        Halt::Stalled {
            waiting: vec![("merge".into(), vec!["price".into()])]
        }
    );
    assert_eq!(
        trace,
        [
            "start#1", "fetch#1", "price#1", "merge#1", "check#1", "fetch#2"
        ]
    );
}

#[test]
fn a_router_that_loops_sends_no_skip_until_it_leaves() {
    // While `check` loops, `done` hears nothing; when it leaves, it runs.
    let shape = shape(retry_into_one_branch());
    let mut checks = 0;
    let (_, halt, _) = run(&shape, |id, _, _| {
        if id == "check" {
            checks += 1;
            ok(json!({"ok": true}))
        } else {
            ok(json!(id))
        }
    });
    assert_eq!((halt, checks), (Halt::Completed, 1));
}

#[test]
fn two_runs_give_the_same_trace() {
    let shape = shape(review_loop());
    let first = run(&shape, reviews(&["revise", "revise", "approve"]));
    let second = run(&shape, reviews(&["revise", "revise", "approve"]));
    assert_eq!(first, second);
}

#[test]
fn a_loop_rearms_its_join_each_pass() {
    let graph = json!({
    "entry": "start",
    "nodes": [
        {"id": "start", "agent": "a", "max_visits": 3},
        {"id": "left", "agent": "a"}, {"id": "right", "agent": "a"},
        {"id": "merge", "wait": "all", "inputs": ["left", "right"]},
        {"id": "judge", "agent": "a", "output": {"again": "bool"}},
        {"id": "done", "end": true}
    ],
    "edges": [
        {"from": "start", "to": "left"}, {"from": "start", "to": "right"},
        {"from": "left", "to": "merge"}, {"from": "right", "to": "merge"},
        {"from": "merge", "to": "judge"},
        {"from": "judge", "to": "start", "when": {"field": "/again", "eq": true}},
        {"from": "judge", "to": "done", "default": true}
    ]});
    let shape = shape(graph);
    let (trace, halt, _) = run(&shape, |id, visit, _| match id {
        "judge" => ok(json!({"again": visit < 2})),
        _ => ok(json!(id)),
    });
    assert_eq!(halt, Halt::Completed);
    assert_eq!(trace.iter().filter(|t| t.starts_with("merge#")).count(), 2);
    assert!(trace.contains(&"merge#2".to_string()), "{trace:?}");
}

#[test]
fn states_follow_the_run() {
    let shape = shape(routed_join(json!("all")));
    let mut machine = Machine::new(&shape, super::spec::Unmatched::Stop, Value::Null);
    let (started, halt) = machine.start_ready();
    assert_eq!(halt, None);
    assert_eq!(machine.states[0], NodeState::Running);
    machine
        .finish(started[0].node, ok(json!({"side": "right"})))
        .unwrap();
    assert_eq!(machine.states[0], NodeState::Done);
    assert_eq!(machine.states[1], NodeState::Skipped);
    assert_eq!(machine.states[2], NodeState::Ready);
    assert_eq!(machine.states[3], NodeState::Waiting);
}

// The lint: one graph per finding.

#[test]
fn the_lint_names_a_routed_value_no_edge_takes() {
    let mut graph = review_loop();
    graph["edges"][5] =
        json!({"from": "review", "to": "ask", "when": {"field": "/verdict", "eq": "revise"}});
    let found = findings(graph);
    assert_eq!(
        found,
        [
            r#"graph.nodes[3]: node "review" routes on /verdict, and its value "reject" is taken by no edge and caught by no default"#
        ]
    );
}

#[test]
fn the_lint_names_an_unconditional_cycle() {
    let graph = json!({
        "entry": "a",
        "nodes": [{"id": "a", "agent": "x", "max_visits": 3}, {"id": "b", "agent": "x"}],
        "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]});
    let found = findings(graph);
    assert_eq!(
        found,
        [
            "graph.edges[1]: the cycle a → b → a has no condition on any edge: it would run until a limit stops it"
        ]
    );
}

#[test]
fn the_lint_names_a_cycle_without_a_bound() {
    let mut graph = review_loop();
    graph["nodes"][2]
        .as_object_mut()
        .unwrap()
        .remove("max_visits");
    let found = findings(graph);
    assert_eq!(
        found,
        [
            "graph.edges[4]: the cycle draft → review → draft has no bound: give one of its nodes `max_visits`"
        ]
    );
}

#[test]
fn the_lint_names_a_join_input_that_cannot_be_reached() {
    let mut graph = fan(json!("all"), false);
    graph["nodes"][3]["inputs"] = json!(["left", "right", "done"]);
    let found = findings(graph);
    assert_eq!(
        found,
        [
            r#"graph.nodes[3].inputs[2]: join "merge" waits on "done", which has no edge into the join: the join could never fire"#
        ]
    );
}

#[test]
fn the_lint_names_a_node_the_entry_does_not_reach() {
    let mut graph = fan(json!("all"), false);
    graph["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "orphan", "agent": "a"}));
    graph["edges"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": "orphan", "to": "done"}));
    let found = findings(graph);
    assert_eq!(
        found[0],
        r#"graph.nodes[5]: node "orphan" cannot be reached from the entry "start": no edges lead to it"#
    );
}

#[test]
fn the_lint_names_parallel_writers_without_append() {
    let mut graph = fan(json!("all"), false);
    graph["state"] = json!({"notes": {"merge": "replace"}});
    graph["nodes"][1]["write"] = json!({"notes": "/text"});
    graph["nodes"][2]["write"] = json!({"notes": "/text"});
    let found = findings(graph.clone());
    assert_eq!(
        found,
        [
            r#"graph.nodes[2]: nodes "left" and "right" may run at once and both write the state key "notes": declare it `"merge": "append"`"#
        ]
    );
    graph["state"]["notes"]["merge"] = json!("append");
    assert!(findings(graph).is_empty());
}

#[test]
fn exclusive_writers_need_no_append() {
    let mut graph = routed_join(json!("all"));
    graph["state"] = json!({"notes": {"merge": "replace"}});
    graph["nodes"][1]["write"] = json!({"notes": "/text"});
    graph["nodes"][2]["write"] = json!({"notes": "/text"});
    assert!(findings(graph).is_empty());
}

#[test]
fn a_non_join_with_two_incoming_parallel_edges_is_a_load_error() {
    let mut graph = fan(json!("all"), false);
    graph["nodes"][3] = json!({"id": "merge", "agent": "a"});
    let found = findings(graph);
    assert_eq!(
        found,
        [
            r#"graph.nodes[3]: node "merge" is not a join, and its edges from "left" and "right" can both arrive in one pass: make it a join with a wait rule, or route to it from one router"#
        ]
    );
}

#[test]
fn exclusive_routes_into_one_node_are_no_error() {
    // The issue's graph: `publish` is reached from the review and from the
    // person, never both in one pass.
    assert!(findings(review_loop()).is_empty());
}

#[test]
fn a_node_of_no_kind_or_two_kinds_is_named() {
    let mut graph = fan(json!("all"), false);
    graph["nodes"][1] = json!({"id": "left"});
    graph["nodes"][2] = json!({"id": "right", "agent": "a", "tool": "t"});
    let found = findings(graph);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("graph.nodes[1]: node \"left\": expected one kind key"),
        "{found:?}"
    );
    assert!(found[1].contains("found agent and tool"), "{found:?}");
}
