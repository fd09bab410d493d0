use super::*;
use serde_json::{Value, json};

fn event(seq: u64, kind: Value) -> Arc<Event> {
    let mut value = kind;
    value["run"] = json!(1);
    value["seq"] = json!(seq);
    value["t_ms"] = json!(seq);
    Arc::new(serde_json::from_value(value).expect("a graph event"))
}

fn planned() -> Value {
    json!({"type": "graph_planned", "max_steps": 20,
      "nodes": [
        {"id": "draft", "kind": "agent", "label": "writer"},
        {"id": "review", "kind": "agent", "label": "critic"},
        {"id": "publish", "kind": "tool", "label": "publish_api"},
        {"id": "done", "kind": "end", "label": ""}],
      "edges": [
        {"from": "draft", "to": "review", "default": false, "back": false},
        {"from": "review", "to": "publish", "when": "verdict==\"approve\"", "default": false, "back": false},
        {"from": "review", "to": "draft", "when": "verdict==\"revise\"", "default": false, "back": true},
        {"from": "publish", "to": "done", "default": false, "back": false}]})
}

fn ran(step: u32, node: &str, visit: u32) -> [Value; 2] {
    [
        json!({"type": "node_started", "node": node, "visit": visit, "step": step, "input": "{}"}),
        json!({"type": "node_finished", "node": node, "visit": visit, "step": step,
               "status": "ok", "output": "{}", "tokens": 10, "cost_usd": 0.0}),
    ]
}

fn took(from: &str, to: &str, verdict: &str) -> Value {
    json!({"type": "edge_evaluated", "from": from, "to": to, "taken": true,
           "checks": [{"said": format!("verdict==\"{verdict}\""), "held": true}]})
}

fn run(kinds: Vec<Value>) -> Vec<Arc<Event>> {
    std::iter::once(planned())
        .chain(kinds)
        .enumerate()
        .map(|(seq, kind)| event(seq as u64 + 1, kind))
        .collect()
}

/// The parent revised once, then approved; the fork approved at once.
fn parent_and_fork() -> (Vec<Arc<Event>>, Vec<Arc<Event>>) {
    let mut parent = Vec::new();
    parent.extend(ran(1, "draft", 1));
    parent.extend(ran(2, "review", 1));
    parent.push(took("review", "draft", "revise"));
    parent.extend(ran(3, "draft", 2));
    parent.extend(ran(4, "review", 2));
    parent.push(took("review", "publish", "approve"));
    parent.extend(ran(5, "publish", 1));
    let mut fork = Vec::new();
    fork.extend(ran(1, "draft", 1));
    fork.extend(ran(2, "review", 1));
    fork.push(took("review", "publish", "approve"));
    fork.extend(ran(3, "publish", 1));
    (run(parent), run(fork))
}

#[test]
fn the_two_paths_part_at_the_router_and_differ_in_visits_and_steps() {
    let (parent, fork) = parent_and_fork();
    let aligned = align(&parent, &fork);
    let routes: Vec<_> = aligned
        .routes
        .iter()
        .map(|r| (r.key.as_str(), r.a.clone().unwrap(), r.b.clone().unwrap()))
        .collect();
    assert_eq!(
        routes,
        [(
            "review",
            vec!["draft".to_string(), "publish".into()],
            vec!["publish".to_string()]
        )]
    );
    let visits: Vec<_> = aligned
        .nodes
        .iter()
        .map(|r| {
            (
                r.key.as_str(),
                r.a.as_ref().unwrap().visits,
                r.b.as_ref().unwrap().visits,
            )
        })
        .collect();
    assert_eq!(
        visits,
        [
            ("draft", 2, 1),
            ("review", 2, 1),
            ("publish", 1, 1),
            ("done", 0, 0)
        ]
    );
    let what: Vec<String> = aligned.differences().into_iter().map(|d| d.what).collect();
    assert_eq!(
        what,
        [
            "routes.review",
            "path.3",
            "path.4",
            "path.5",
            "nodes.draft",
            "nodes.review"
        ]
    );
    assert_eq!(
        aligned.path[4].only_in,
        Some(Which::A),
        "step 5: the parent's alone"
    );
}

#[test]
fn a_fork_that_never_reached_a_node_shows_it_not_reached_in_the_node_table() {
    let (parent, _) = parent_and_fork();
    // A fork that stopped after its first review, with no route.
    let mut fork = Vec::new();
    fork.extend(ran(1, "draft", 1));
    fork.extend(ran(2, "review", 1));
    let aligned = align(&parent, &run(fork));
    let publish = aligned.nodes.iter().find(|r| r.key == "publish").unwrap();
    assert_eq!(publish.b.as_ref().unwrap().reached, Reached::Unreached);
    let sections = aligned.sections();
    let titles: Vec<&str> = sections.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Routes (each router's choices in order)",
            "Nodes (both paths over the graph)",
            "Path (activations in order)"
        ]
    );
    let routes = &sections[0].rows;
    assert_eq!(routes.len(), 1);
    assert_eq!(
        routes[0].only_in,
        Some(Which::A),
        "the fork's review chose nothing"
    );
    let nodes = &sections[1];
    let publish = nodes.rows.iter().find(|r| r.label == "publish").unwrap();
    assert!(publish.differs());
    assert_eq!(publish.b[0].text, "not reached");
    assert_eq!(
        serde_json::to_value(aligned.to_json()).unwrap()["graph"]["nodes"][2]["key"],
        "publish"
    );
}
