//! A tool node against a real HTTP tool that never answers, on the paused
//! clock. The engine runs a scenario with real tools on the real clock, so
//! this sets the run up on the virtual one as the gateway's own tests do:
//! the gateway's timeout cuts the call at 2 s of run time, and the node
//! fails the run with `node_failed`.

use crate::bus::{Bus, Delivery, EventKind, Hub};
use crate::clock::RunClock;
use crate::control::{Flags, channel};
use crate::gateway::Gateway;
use crate::patterns::RunContext;
use crate::patterns::events::PatternEvent;
use crate::patterns::graph::events::GraphEvent;
use crate::provider::{Provider, RealTools, SimProvider, SimWorkers, Workers};
use crate::rng::RunRng;
use crate::scenario::Scenario;
use serde_json::json;
use std::sync::Arc;

/// A loopback server that takes connections and never says a word.
fn silent_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/publish", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    url
}

fn publishing(url: &str) -> Scenario {
    let document = json!({
        "name": "graph_tools", "pattern": "graph", "goal": "g", "context": {},
        "agents": {"planner": {"description": "plans"}},
        "tools": {"publish_api": {"description": "publishes", "http": {"url": url}}},
        "resilience": {"timeouts_ms": {"publish_api": 2000}},
        "graph": {
            "entry": "plan",
            "nodes": [
                {"id": "plan", "agent": "planner", "output": {"title": "string"}},
                {"id": "publish", "tool": "publish_api"},
                {"id": "done", "end": true}
            ],
            "edges": [{"from": "plan", "to": "publish"}, {"from": "publish", "to": "done"}]
        },
        "provider": {"kind": "sim", "latency_ms": 100, "turns": {"plan": {"title": "Q3"}}}
    });
    crate::scenario::parse(&document.to_string(), "test.json").expect("the scenario loads")
}

#[tokio::test(start_paused = true)]
async fn a_hanging_http_tool_node_times_out_through_the_gateway() {
    let scenario = Arc::new(publishing(&silent_server()));
    let hub = Hub::new(4096);
    let mut events = hub.subscribe();
    let bus = Bus::new(1, RunClock::start(), hub, None);
    let rng = RunRng::seeded(0);
    let provider = Provider::Sim(Box::new(SimProvider::new(
        scenario.provider.clone(),
        rng.clone(),
    )));
    let real = RealTools::for_scenario(&scenario, &|_| None).expect("real tools set up");
    let sim = SimWorkers::tools(scenario.tools.clone(), rng.clone());
    let workers = Arc::new(Workers::new(sim, real));
    let flags = Flags::new(Arc::clone(&scenario), &[]).unwrap();
    let (_controller, gate) = channel(flags, bus.clone(), false);
    let gateway = Gateway::new(
        bus.clone(),
        Arc::new(provider),
        workers,
        gate.cancel_token(),
    )
    .with_resilience(scenario.resilience.clone(), gate.switches(), rng);
    let ctx = RunContext {
        scenario,
        goal: "g".into(),
        bus,
        gate,
        gateway: Arc::new(gateway),
        seed: 0,
    };
    let outcome = crate::patterns::graph::run::run(ctx).await;
    assert_eq!(outcome.stop_reason.to_string(), "node_failed:publish");

    let mut started = None;
    let mut finished = None;
    while let Some(Delivery::Event(e)) = events.try_next() {
        match &e.kind {
            EventKind::Pattern(PatternEvent::Graph(GraphEvent::NodeStarted { node, .. }))
                if node == "publish" =>
            {
                started = Some(e.t_ms);
            }
            EventKind::Pattern(PatternEvent::Graph(GraphEvent::NodeFinished {
                node,
                error,
                ..
            })) if node == "publish" => finished = Some((e.t_ms, error.clone())),
            _ => {}
        }
    }
    let (ended, error) = finished.expect("the publish node finished");
    assert_eq!(
        ended - started.expect("it started"),
        2000,
        "cut at its timeout"
    );
    let error = error.expect("it failed");
    assert!(error.contains("timeout"), "{error}");
}
