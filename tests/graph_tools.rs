//! A graph's tool nodes against real tools: a program the scenario
//! declares, which runs only once the user allows it, and a loopback HTTP
//! tool that answers or fails (the node fails and the run stops
//! `node_failed`). A tool that hangs is cut by the gateway's timeout on
//! the paused clock in `src/patterns/graph/tests/tools.rs`, where the run
//! is set up on the virtual clock.

use crate::common;

use common::loopback::{Loopback, Reply};
use common::real::toolbox;
use conclave::bus::{Event, EventKind};
use conclave::engine::{self, LaunchError, LaunchOptions};
use conclave::patterns::events::{GraphEvent, PatternEvent};
use serde_json::{Value, json};

/// plan (an agent on the sim) → publish (the tool `tool`) → done.
fn publishing(tool: Value) -> Value {
    json!({
        "name": "graph_tools", "pattern": "graph", "goal": "g", "context": {},
        "agents": {"planner": {"description": "plans"}},
        "tools": {"publish_api": tool},
        "graph": {
            "entry": "plan",
            "nodes": [
                {"id": "plan", "agent": "planner", "output": {"title": "string"}},
                {"id": "publish", "tool": "publish_api"},
                {"id": "done", "end": true}
            ],
            "edges": [{"from": "plan", "to": "publish"}, {"from": "publish", "to": "done"}]
        },
        "provider": {"kind": "sim", "latency_ms": 100,
                     "turns": {"plan": {"title": "Q3 report"}}}
    })
}

/// The publish node's end: its status, its error, and the milliseconds
/// it took on the run's clock.
fn publish_end(events: &[Event]) -> (String, Option<String>, u64) {
    let started = events.iter().find_map(|e| match &e.kind {
        EventKind::Pattern(PatternEvent::Graph(GraphEvent::NodeStarted { node, .. }))
            if node == "publish" =>
        {
            Some(e.t_ms)
        }
        _ => None,
    });
    let (status, error, t) = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Graph(GraphEvent::NodeFinished {
                node,
                status,
                error,
                ..
            })) if node == "publish" => Some((
                serde_json::to_value(status)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string(),
                error.clone(),
                e.t_ms,
            )),
            _ => None,
        })
        .expect("the publish node finished");
    (
        status,
        error,
        t - started.expect("the publish node started"),
    )
}

#[tokio::test]
async fn a_command_tool_node_runs_the_program_only_once_the_user_allows_it() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let document = publishing(json!({
        "description": "publishes",
        "command": {"argv": toolbox(&["echo", "--touch", marker.to_str().unwrap()])}
    }));
    let scenario = common::scenario(&document);
    let hub = conclave::bus::Hub::new(1 << 10);
    let refused = engine::launch(scenario.clone(), &hub, LaunchOptions::default());
    match refused {
        Err(LaunchError::ExecNotAllowed(errors)) => {
            let said = errors.to_string();
            assert!(said.contains("tools.publish_api.command"), "{said}");
        }
        other => panic!("a program nobody allowed must not run: {:?}", other.err()),
    }
    assert!(!marker.exists(), "nothing ran before the user allowed it");

    let allowed = LaunchOptions {
        allow_exec: true,
        ..LaunchOptions::default()
    };
    let (outcome, events) = common::run(scenario, allowed).await;
    let r = outcome.result.value().clone();
    assert_eq!(r["stop_reason"], "completed", "{r:#}");
    assert!(marker.exists(), "the program ran");
    // The program was given the node's input, the plan's answer, and what
    // it printed is the node's output.
    assert_eq!(
        r["outputs"]["publish"],
        json!({"status": "done", "tool": "publish_api",
               "result": {"received": {"title": "Q3 report"}}})
    );
    assert_eq!(publish_end(&events).0, "ok");
}

#[tokio::test]
async fn an_http_tool_node_posts_its_input_and_a_failing_one_stops_the_run_node_failed() {
    let server = Loopback::serve(|request, _| {
        let sent: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        if sent["title"] == "Q3 report" {
            Reply::json(200, &json!({"published": true}))
        } else {
            Reply::text(500, "unexpected")
        }
    });
    let tool = |path: &str| {
        publishing(json!({"description": "publishes",
                          "http": {"url": format!("{}/{path}", server.base_url)}}))
    };
    let (outcome, _) = common::run(common::scenario(&tool("ok")), LaunchOptions::default()).await;
    let r = outcome.result.value().clone();
    assert_eq!(r["stop_reason"], "completed", "{r:#}");
    assert_eq!(
        r["outputs"]["publish"]["result"],
        json!({"published": true})
    );
    assert!(server.requests()[0].head.contains("/ok"));

    let mut failing = tool("fails");
    failing["provider"]["turns"]["plan"] = json!({"title": "something else"});
    let (outcome, events) = common::run(common::scenario(&failing), LaunchOptions::default()).await;
    let r = outcome.result.value().clone();
    assert_eq!(r["stop_reason"], "node_failed:publish", "{r:#}");
    assert_eq!(r["details"]["failed"]["node"], "publish");
    let (status, error, _) = publish_end(&events);
    assert_eq!(status, "failed");
    assert_eq!(error.as_deref(), Some("worker_error:publish_api"));
    assert_eq!(server.requests().len(), 2, "one call each, no retry");
    assert!(!r["path"].as_array().unwrap().contains(&json!("done")));
    assert_eq!(
        r["outputs"].get("publish"),
        None,
        "a failed node has no output"
    );
}

/// A failed activation leaves the node's earlier output: `publish` posts
/// the first title, and fails on the second, which routes on its status
/// to the end; `outputs.publish` is still the first post's.
#[tokio::test]
async fn a_failed_activation_leaves_the_nodes_earlier_output() {
    let server = Loopback::serve(|request, _| {
        let sent: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        if sent["title"] == "Q3 report" {
            Reply::json(200, &json!({"published": true}))
        } else {
            Reply::text(500, "unexpected")
        }
    });
    let mut document = publishing(json!({"description": "publishes",
                                         "http": {"url": format!("{}/post", server.base_url)}}));
    document["graph"]["nodes"][0]["max_visits"] = json!(2);
    document["graph"]["edges"] = json!([
        {"from": "plan", "to": "publish"},
        {"from": "publish", "to": "plan", "when": {"all": [{"status": "ok"}, {"visits": "plan", "lt": 2}]}},
        {"from": "publish", "to": "done", "default": true}
    ]);
    document["provider"]["turns"]["plan"] = json!([{"title": "Q3 report"}, {"title": "Q4"}]);
    let (outcome, events) =
        common::run(common::scenario(&document), LaunchOptions::default()).await;
    let r = outcome.result.value().clone();
    assert_eq!(r["stop_reason"], "completed", "{r:#}");
    assert_eq!(r["visits"]["publish"], 2);
    let failed = events.iter().any(|e| {
        matches!(&e.kind, EventKind::Pattern(PatternEvent::Graph(GraphEvent::NodeFinished {
            node, error: Some(_), ..
        })) if node == "publish")
    });
    assert!(failed, "the second post failed");
    assert_eq!(
        r["outputs"]["publish"]["result"],
        json!({"published": true})
    );
}
