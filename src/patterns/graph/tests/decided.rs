//! The decided readings of docs/graph.md that the machine and the lint
//! hold alone: a merge node that is not a join is skipped once every
//! input of its pass was skipped, the stop reasons' formats, and the load
//! checks the page's list does not name.

use super::{findings, ok, run, shape};
use crate::patterns::graph::machine::Halt;
use serde_json::{Value, json};

/// `pick` routes to `a`, to `b` or (by default) to `other`; `a` and `b`
/// both lead into `m`, a plain agent node, and on to `done`.
fn exclusive_merge() -> Value {
    json!({
        "entry": "pick",
        "nodes": [
            {"id": "pick", "agent": "x", "output": {"side": ["a", "b", "neither"]}},
            {"id": "a", "agent": "x"}, {"id": "b", "agent": "x"},
            {"id": "m", "agent": "x"},
            {"id": "other", "agent": "x"},
            {"id": "done", "end": true}, {"id": "fin", "end": true}
        ],
        "edges": [
            {"from": "pick", "to": "a", "when": {"field": "/side", "eq": "a"}},
            {"from": "pick", "to": "b", "when": {"field": "/side", "eq": "b"}},
            {"from": "pick", "to": "other", "default": true},
            {"from": "a", "to": "m"}, {"from": "b", "to": "m"},
            {"from": "m", "to": "done"}, {"from": "other", "to": "fin"}
        ]
    })
}

/// A merge node that is not a join fires at its one input that came
/// (the other was skipped), and is skipped itself, with what lies below
/// it, when every input of its pass was skipped.
#[test]
fn a_merge_node_fires_at_its_input_and_is_skipped_when_all_are() {
    let shape = shape(exclusive_merge());
    let side = |side: &'static str| {
        move |id: &str, _: u32, _: &Value| match id {
            "pick" => ok(json!({"side": side})),
            other => ok(json!({"text": other})),
        }
    };
    let (trace, halt, _) = run(&shape, side("b"));
    assert_eq!(halt, Halt::Completed);
    assert_eq!(
        trace,
        ["pick#1", "-a", "-other", "-fin", "b#1", "m#1", "done#1"]
    );
    let (trace, halt, _) = run(&shape, side("neither"));
    assert_eq!(halt, Halt::Completed);
    assert_eq!(
        trace,
        ["pick#1", "-a", "-b", "-m", "-done", "other#1", "fin#1"]
    );
}

/// The stop reasons' words: `no_route`'s checks joined by `; ` (a list in
/// `details`), `stalled`'s joins each `JOIN<IN,IN`, joined by `;`, and the
/// cycle of `max_visits` with `>` between its nodes.
#[test]
fn the_stop_reasons_are_written_as_the_page_says() {
    use crate::patterns::graph::run::stop_of;
    let (reason, details) = stop_of(Halt::NoRoute {
        node: "review".into(),
        values: vec![r#"verdict="x" =="approve""#.into(), "score=5 >7".into()],
    });
    assert_eq!(
        reason.to_string(),
        r#"no_route:review:verdict="x" =="approve"; score=5 >7"#
    );
    assert_eq!(
        details.unwrap()["no_route"]["values"],
        json!([r#"verdict="x" =="approve""#, "score=5 >7"])
    );
    let (reason, details) = stop_of(Halt::Stalled {
        waiting: vec![
            ("merge".into(), vec!["fetch".into(), "price".into()]),
            ("gather".into(), vec!["risks".into()]),
        ],
    });
    assert_eq!(reason.to_string(), "stalled:merge<fetch,price;gather<risks");
    assert_eq!(
        details.unwrap()["waiting"],
        json!([{"join": "merge", "waiting_on": ["fetch", "price"]},
               {"join": "gather", "waiting_on": ["risks"]}])
    );
    let (reason, details) = stop_of(Halt::MaxVisits {
        node: "y".into(),
        cycle: "s → y → j → r → s".into(),
        limit: 2,
    });
    assert_eq!(reason.to_string(), "max_visits:y:s>y>j>r>s");
    assert_eq!(details.unwrap()["cycle"]["cycle"], "s → y → j → r → s");
}

/// A two-node graph `s → done` with `change` applied.
fn small(change: impl FnOnce(&mut Value)) -> Value {
    let mut graph = json!({
        "entry": "s",
        "state": {"notes": {"merge": "append"}},
        "nodes": [{"id": "s", "agent": "x"}, {"id": "done", "end": true}],
        "edges": [{"from": "s", "to": "done"}]
    });
    change(&mut graph);
    graph
}

/// The load checks the page's list leaves out, each naming its place.
#[test]
fn the_load_checks_the_list_leaves_out_name_their_place() {
    type Change = fn(&mut Value);
    let cases: Vec<(Change, &str)> = vec![
        (
            |g| {
                g["nodes"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"id": "dead", "agent": "x"}));
                g["edges"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"from": "s", "to": "dead"}));
            },
            r#"graph.nodes[2]: node "dead" has no edge out of it: add one, or make it an end node"#,
        ),
        (
            |g| g["nodes"][0] = json!({"id": "s", "human": "Go on?", "options": []}),
            r#"graph.nodes[0].options: node "s" asks a person: expected at least one option"#,
        ),
        (
            |g| g["nodes"][0] = json!({"id": "s", "map": "steps", "agent": "x"}),
            r#"graph.nodes[0].map: node "s": expected `state.KEY` naming a key of graph.state, found "steps""#,
        ),
        (
            |g| {
                g["nodes"]
                    .as_array_mut()
                    .unwrap()
                    .insert(1, json!({"id": "j", "wait": "all", "inputs": []}));
                g["edges"] = json!([{"from": "s", "to": "j"}, {"from": "j", "to": "done"}]);
            },
            r#"graph.nodes[1].inputs: join "j": expected the nodes it waits on"#,
        ),
        (
            |g| g["nodes"][0]["write"] = json!({"verdict": "/text"}),
            r#"graph.nodes[0]: node "s" writes the state key "verdict", which graph.state does not declare"#,
        ),
        (
            |g| g["nodes"][0] = json!({"id": "s", "tool": "t", "reads": ["notes"]}),
            r#"graph.nodes[0].reads: node "s": `reads` is for agent nodes (a map reads its list, a tool, team or join no state)"#,
        ),
    ];
    for (change, said) in cases {
        let found = findings(small(change));
        assert!(found.iter().any(|f| f == said), "{said}\nnot in {found:#?}");
    }
    assert_eq!(findings(small(|_| {})), Vec::<String>::new());
}
