//! A graph run under control: held at its gates, stepped one activation
//! at a time, cancelled where it holds.

use crate::common;

use conclave::bus::{ClockMode, EventKind, Hub};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::{GraphEvent, PatternEvent};
use serde_json::json;
use std::time::Duration;

/// Paused at its first gate, a step lets one activation through and the
/// run holds at the next; a cancel there stops it.
#[tokio::test(start_paused = true)]
async fn a_step_lets_one_activation_through() {
    let hub = Hub::new(4096);
    let mut sub = hub.subscribe();
    let options = LaunchOptions {
        start_paused: true,
        clock: Some(ClockMode::Virtual),
        ..LaunchOptions::default()
    };
    let handle =
        conclave::engine::launch(common::shipped("graph_review_loop.json"), &hub, options).unwrap();
    tokio::time::sleep(Duration::from_secs(60)).await;
    handle.controller.step().unwrap();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let seen: Vec<String> = common::drain(&mut sub)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Paused { gate } => Some(format!("paused {gate}")),
            EventKind::Stepped { gate } => Some(format!("stepped {gate}")),
            EventKind::Pattern(PatternEvent::Graph(GraphEvent::NodeStarted { node, .. })) => {
                Some(format!("started {node}"))
            }
            EventKind::Pattern(PatternEvent::Graph(GraphEvent::NodeFinished { node, .. })) => {
                Some(format!("finished {node}"))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        seen,
        [
            "paused before step 1 (plan)",
            "stepped before step 1 (plan)",
            "started plan",
            "finished plan",
            "paused before step 2 (research)"
        ]
    );
    handle.controller.cancel();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["stop_reason"], "cancelled");
    assert_eq!(outcome.result["path"], json!(["plan"]));
}
