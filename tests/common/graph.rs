//! A graph run on the sim for the graph tests: its result document and
//! events, and the graph's own events among them.

use conclave::bus::{Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::{GraphEvent, PatternEvent};
use serde_json::Value;

/// The run of the scenario `document` on the paused clock: its result
/// document and every event it published.
pub async fn run(document: &Value) -> (Value, Vec<Event>) {
    let (outcome, events) = super::run(super::scenario(document), LaunchOptions::default()).await;
    (outcome.result.value().clone(), events)
}

/// The graph's events of a run, in order.
pub fn graph_events(events: &[Event]) -> Vec<&GraphEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Graph(g)) => Some(g),
            _ => None,
        })
        .collect()
}
