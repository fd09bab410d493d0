//! The graph pattern's event lines, for the event log and its filter:
//! the graph, activations, edges, joins, skips and state writes.

use super::events::{ActivationStatus, GraphEvent};
use crate::bus::event::values::GateKind;
use crate::words::plural;

/// The event's line.
pub(crate) fn line(event: &GraphEvent) -> String {
    match event {
        GraphEvent::GraphPlanned {
            nodes,
            edges,
            max_steps,
        } => format!(
            "graph of {}, {} (at most {})",
            plural(nodes.len() as u64, "node"),
            plural(edges.len() as u64, "edge"),
            plural(u64::from(*max_steps), "step")
        ),
        GraphEvent::NodeStarted {
            node, visit, step, ..
        } => format!("step {step}: {node} (visit {visit})"),
        GraphEvent::HumanAsked {
            node,
            question,
            options,
            ..
        } => format!("{node} asks: {question} [{}]", options.join(", ")),
        GraphEvent::MapProgress {
            node,
            done,
            failed,
            running,
            of,
        } => format!("{node}: {done}/{of} done, {failed} failed, {running} running"),
        GraphEvent::NodeFinished {
            node,
            step,
            status,
            answer,
            error,
            ..
        } => match (status, answer, error) {
            (_, _, Some(error)) => format!("{node} {} (step {step}): {error}", status.as_str()),
            (ActivationStatus::Ok, Some(answer), None) => {
                format!("{node} answered {answer:?} (step {step})")
            }
            (status, _, None) => format!("{node} {} (step {step})", status.as_str()),
        },
        GraphEvent::EdgeEvaluated {
            from,
            to,
            checks,
            taken,
            visits,
            max_visits,
        } => {
            let mut text = format!("{from}→{to}");
            for check in checks {
                let mark = if check.held { '✓' } else { '✗' };
                text.push_str(&format!("  {} {mark}", check.said));
            }
            text.push_str(if *taken { "  taken" } else { "  not taken" });
            if let (true, Some(visits), Some(max)) = (*taken, visits, max_visits) {
                text.push_str(&format!(", {visits}/{max}"));
            }
            text
        }
        GraphEvent::NodeSkipped { node } => format!("{node} skipped"),
        GraphEvent::JoinWaiting {
            node,
            arrived,
            waiting_on,
            ..
        } => format!(
            "{node} {}/{}: waiting on {}",
            arrived.len(),
            arrived.len() + waiting_on.len(),
            waiting_on.join(", ")
        ),
        GraphEvent::JoinFired { node, arrived } => {
            format!("{node} fired: {}", arrived.join(", "))
        }
        GraphEvent::StateWritten {
            node,
            key,
            merge,
            value,
        } => format!("{node} → state.{key} ({merge}) {value}"),
    }
}

/// Whether the event opens one of the pattern's steps: an activation.
pub(crate) fn opens_step(event: &GraphEvent) -> bool {
    matches!(event, GraphEvent::NodeStarted { .. })
}

/// The gate the event opens a step at: `step 3` opens at the gate before
/// the third activation.
pub(crate) fn opened_gate(event: &GraphEvent) -> Option<(GateKind, u32)> {
    match event {
        GraphEvent::NodeStarted { step, .. } => Some((GateKind::Step, *step)),
        _ => None,
    }
}

/// Whether the event raises a question to a person (a human node).
pub(crate) fn asks_a_person(event: &GraphEvent) -> bool {
    matches!(event, GraphEvent::HumanAsked { .. })
}

/// Whether the event closes one of the pattern's steps.
pub(crate) fn closes_step(event: &GraphEvent) -> bool {
    matches!(event, GraphEvent::NodeFinished { .. })
}
