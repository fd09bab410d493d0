//! The graph run's part of a run's trace: each activation an
//! `invoke_agent <node>` span under the run's `invoke_workflow` span, with
//! the node's id, its step and its visit, holding the model and tool calls
//! the activation made (an agent's call is labelled `node:ID`, a map
//! item's `node:ID[i]`, a tool call's task is the node's id) and, for a
//! team node, its team's turns (the team's spans, nested under it).

use crate::patterns::graph::events::{ActivationStatus, GraphEvent};
use crate::patterns::team::spans::TeamSpans;
use crate::telemetry::{ROOT, SpanNo, TraceSpans};
use std::collections::HashMap;

/// The graph's own span attributes.
pub(crate) const NODE: &str = "conclave.node";
pub(crate) const STEP: &str = "conclave.step";
pub(crate) const VISIT: &str = "conclave.visit";
pub(crate) const NODE_STATUS: &str = "conclave.node_status";

/// The graph run's open activations, by node id.
#[derive(Debug, Default)]
pub(crate) struct GraphSpans {
    open: HashMap<String, SpanNo>,
}

impl GraphSpans {
    /// Fold in a graph's event; a team node's team is handed to `teams`,
    /// whose turns then go under the node's activation.
    pub(crate) fn apply(
        &mut self,
        trace: &mut TraceSpans<'_>,
        event: &GraphEvent,
        t: u64,
        teams: &mut TeamSpans,
    ) {
        match event {
            GraphEvent::NodeStarted {
                node,
                visit,
                step,
                team,
                ..
            } => {
                let no = trace.open_agent(ROOT, node, t);
                trace.set(no, NODE, node.as_str());
                trace.set(no, STEP, *step);
                trace.set(no, VISIT, *visit);
                if let Some(team) = team {
                    teams.hold(&team.path, no);
                }
                if let Some(previous) = self.open.insert(node.clone(), no) {
                    trace.end(previous, t);
                }
            }
            GraphEvent::NodeFinished { node, status, .. } => {
                if let Some(no) = self.open.remove(node) {
                    trace.set(no, NODE_STATUS, ActivationStatus::as_str(*status));
                    trace.end(no, t);
                }
            }
            _ => {}
        }
    }

    /// The activation a model call (`node:ID`, `node:ID[i]`) or a tool
    /// call (task `ID`) belongs to.
    pub(crate) fn call_parent(&self, label: &str) -> Option<SpanNo> {
        let id = label.strip_prefix("node:").unwrap_or(label);
        let id = id.split_once('[').map_or(id, |(id, _)| id);
        self.open.get(id).copied()
    }

    /// Span `no` has ended.
    pub(crate) fn forget(&mut self, no: SpanNo) {
        self.open.retain(|_, open| *open != no);
    }
}
