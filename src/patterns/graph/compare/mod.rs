//! Two graph runs laid over each other: the path each took, step by step
//! (which node each activation ran and how it ended), every node of the
//! graph with its visits and where it got to in each run, and each
//! router's choices in order. A fork whose review said "approve" where its
//! parent's said "revise" shows the edge each took from `review`, and the
//! nodes one path reached and the other never did.

mod tables;

use crate::bus::figures::Figures;
use crate::bus::{Event, EventKind, RunSummary};
use crate::compare::sections::Cell;
use crate::compare::union;
use crate::compare::{Aligned, Alignment, CompareRules, Difference, Which};
use crate::patterns::events::PatternEvent;
use crate::patterns::graph::events::{ActivationStatus, GraphEvent};
use indexmap::IndexMap;
use serde::Serialize;
use std::sync::Arc;

/// Where a node got to in one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Reached {
    /// The run never came to it.
    Unreached,
    /// Started, and the run ended before it did.
    Running,
    Done,
    Failed,
    InvalidOutput,
    Skipped,
}

impl Reached {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Reached::Unreached => "not reached",
            Reached::Running => "running",
            Reached::Done => "done",
            Reached::Failed => "failed",
            Reached::InvalidOutput => "invalid output",
            Reached::Skipped => "skipped",
        }
    }

    fn of(status: ActivationStatus) -> Reached {
        match status {
            ActivationStatus::Ok => Reached::Done,
            ActivationStatus::Failed => Reached::Failed,
            ActivationStatus::InvalidOutput => Reached::InvalidOutput,
        }
    }
}

/// A node in one run: its visits and where its last one got to.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct NodeFacts {
    pub(crate) visits: u32,
    pub(crate) reached: Reached,
}

/// One activation: the node it ran and how it ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct StepFacts {
    pub(crate) node: String,
    pub(crate) visit: u32,
    pub(crate) reached: Reached,
}

/// One run's graph, as its events tell it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Walked {
    /// Every node, planned ones first in their order.
    nodes: IndexMap<String, NodeFacts>,
    /// Activations by their step number.
    steps: IndexMap<u32, StepFacts>,
    /// Each router's choices in order: its source, then the targets.
    routes: IndexMap<String, Vec<String>>,
    /// The nodes whose out-edges carry conditions or a default.
    routers: Vec<String>,
}

fn walked(events: &[Arc<Event>]) -> Walked {
    let mut run = Walked::default();
    for event in events {
        let EventKind::Pattern(PatternEvent::Graph(event)) = &event.kind else {
            continue;
        };
        run.read(event);
    }
    run
}

impl Walked {
    fn node(&mut self, id: &str) -> &mut NodeFacts {
        self.nodes.entry(id.to_string()).or_insert(NodeFacts {
            visits: 0,
            reached: Reached::Unreached,
        })
    }

    fn read(&mut self, event: &GraphEvent) {
        match event {
            GraphEvent::GraphPlanned { nodes, edges, .. } => {
                for node in nodes {
                    self.node(&node.id);
                }
                self.routers = edges
                    .iter()
                    .filter(|edge| edge.when.is_some() || edge.default)
                    .map(|edge| edge.from.clone())
                    .collect();
            }
            GraphEvent::NodeStarted {
                node, visit, step, ..
            } => {
                let facts = self.node(node);
                facts.visits = facts.visits.max(*visit);
                facts.reached = Reached::Running;
                self.steps.insert(
                    *step,
                    StepFacts {
                        node: node.clone(),
                        visit: *visit,
                        reached: Reached::Running,
                    },
                );
            }
            GraphEvent::NodeFinished {
                node, step, status, ..
            } => {
                self.node(node).reached = Reached::of(*status);
                if let Some(facts) = self.steps.get_mut(step) {
                    facts.reached = Reached::of(*status);
                }
            }
            GraphEvent::NodeSkipped { node } => {
                let facts = self.node(node);
                if facts.visits == 0 {
                    facts.reached = Reached::Skipped;
                }
            }
            GraphEvent::EdgeEvaluated {
                from,
                to,
                taken: true,
                ..
            } if self.routers.contains(from) => {
                self.routes
                    .entry(from.clone())
                    .or_default()
                    .push(to.clone());
            }
            _ => {}
        }
    }
}

/// One row of two runs: a node, a step or a router, with each run's facts
/// (`None`: the run has none).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Paired<T> {
    pub(crate) key: String,
    pub(crate) only_in: Option<Which>,
    pub(crate) a: Option<T>,
    pub(crate) b: Option<T>,
}

fn paired<'k, T: Clone>(
    keys: impl IntoIterator<Item = &'k String>,
    a: &IndexMap<String, T>,
    b: &IndexMap<String, T>,
) -> Vec<Paired<T>> {
    keys.into_iter()
        .map(|key| {
            let (a, b) = (a.get(key).cloned(), b.get(key).cloned());
            let only_in = match (&a, &b) {
                (Some(_), None) => Some(Which::A),
                (None, Some(_)) => Some(Which::B),
                _ => None,
            };
            Paired {
                key: key.clone(),
                only_in,
                a,
                b,
            }
        })
        .collect()
}

/// Two graph runs aligned: steps by number, nodes and routers by id.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct GraphAligned {
    pub(crate) path: Vec<Paired<StepFacts>>,
    pub(crate) nodes: Vec<Paired<NodeFacts>>,
    pub(crate) routes: Vec<Paired<Vec<String>>>,
}

fn align(a: &[Arc<Event>], b: &[Arc<Event>]) -> GraphAligned {
    let (a, b) = (walked(a), walked(b));
    let steps = |run: &Walked| -> IndexMap<String, StepFacts> {
        run.steps
            .iter()
            .map(|(step, facts)| (step.to_string(), facts.clone()))
            .collect()
    };
    let (steps_a, steps_b) = (steps(&a), steps(&b));
    let mut numbers: Vec<u32> = a.steps.keys().chain(b.steps.keys()).copied().collect();
    numbers.sort_unstable();
    numbers.dedup();
    let numbers: Vec<String> = numbers.iter().map(u32::to_string).collect();
    GraphAligned {
        path: paired(&numbers, &steps_a, &steps_b),
        nodes: paired(union(a.nodes.keys(), b.nodes.keys()), &a.nodes, &b.nodes),
        routes: paired(
            union(a.routes.keys(), b.routes.keys()),
            &a.routes,
            &b.routes,
        ),
    }
}

fn differ<T: PartialEq + Serialize>(rows: &[Paired<T>], what: &str, out: &mut Vec<Difference>) {
    for row in rows.iter().filter(|row| row.a != row.b) {
        out.push(Difference::new(
            format!("{what}.{}", row.key),
            &row.a,
            &row.b,
        ));
    }
}

impl Aligned for GraphAligned {
    fn differences(&self) -> Vec<Difference> {
        let mut out = Vec::new();
        differ(&self.routes, "routes", &mut out);
        differ(&self.path, "path", &mut out);
        differ(&self.nodes, "nodes", &mut out);
        out
    }

    fn sections(&self) -> Vec<crate::compare::sections::Section> {
        vec![
            tables::route_table(self),
            tables::node_table(self),
            tables::path_table(self),
        ]
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "graph": self })
    }
}

/// The rules by which two graph runs are compared.
pub(crate) struct Rules;

impl CompareRules for Rules {
    fn align(&self, a: &[Arc<Event>], b: &[Arc<Event>]) -> Alignment {
        Alignment::new(align(a, b))
    }

    fn stop_word(&self, reason: &crate::stop::StopReason) -> String {
        crate::patterns::stop_word(crate::scenario::PatternKind::Graph, reason)
    }

    fn figures(&self) -> &'static Figures {
        &super::figures::FIGURES
    }

    /// A workflow comes to no verdict: the run reads as answered or not.
    fn came_to(&self, _summary: &RunSummary) -> Option<Cell> {
        None
    }
}

#[cfg(test)]
mod tests;
