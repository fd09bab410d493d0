//! A watched run's graph, where its spans let one be drawn: a LangGraph
//! run's top nodes, each activation (one entry of
//! `langgraph_checkpoint_ns`, `supervisor:<id>`) a visit of its node, and
//! the edges in the order the route took them; or the nodes OpenInference
//! names with `graph.node.id`, each edge from `graph.node.parent_id`.
//! Written as the graph pattern's own events and folded by its own fold,
//! so the watched pane draws it with the graph pattern's boxes
//! (`graph_pane`). Pure: a forest in, a fold out (`graph_of`); or, as
//! the run's fold keeps it, the visits with each span added as it comes
//! (`Visits`), the graph made from them when a span named a node since.

use crate::bus::EventKind;
use crate::patterns::events::{
    ActivationStatus, GraphEvent, GraphNodeKind, PatternEvent, PlannedEdge, PlannedNode,
};
use crate::span::Span;
use crate::tui::patterns::folding::Fold;
use crate::tui::patterns::graph::state::GraphFold;
#[cfg(test)]
use crate::watch::forest::Forest;
use crate::watch::read::read;
use crate::watch::vocab::Kind;
use std::collections::HashMap;

/// One visit of a node: the spans of one activation.
#[derive(Clone, Debug)]
struct Visit {
    node: String,
    /// Where the route came from, when the spans say (`graph.node.parent_id`).
    from: Option<String>,
    start_ns: u64,
    end_ns: u64,
    /// The node's own span has arrived (spans arrive ended).
    ended: bool,
    failed: bool,
    tokens: u64,
    /// It acts as an agent: a model call was made in it, or (a node
    /// OpenInference names, whose visit is its one span) its span reads
    /// as an agent's.
    agent: bool,
}

/// The graph of the run held in `forest`, `None` when its spans name
/// none, made from scratch: what the visits kept as the spans arrive
/// must equal (`graph_tests`).
#[cfg(test)]
pub(crate) fn graph_of(forest: &Forest) -> Option<GraphFold> {
    let mut visits = Visits::default();
    for span in forest.arrived() {
        visits.add(span);
    }
    visits.graph()
}

/// The visits the spans told so far, each span added once, in the order
/// the spans arrived (`add`): the graph is made from them in time that
/// grows with the visits, not with the spans.
#[derive(Clone, Debug, Default)]
pub(crate) struct Visits {
    /// Each visit, in order of its first span.
    visits: Vec<Visit>,
    /// Where each visit's key (its activation, or its span) is.
    index: HashMap<String, usize>,
}

impl Visits {
    /// The graph the visits draw, `None` while no span named a node.
    pub(crate) fn graph(&self) -> Option<GraphFold> {
        let mut visits: Vec<&Visit> = self.visits.iter().collect();
        if visits.is_empty() {
            return None;
        }
        visits.sort_by_key(|v| v.start_ns);
        Some(fold_of(&visits))
    }
}

/// The visits, in order of start, as the graph pattern's events folded.
fn fold_of(visits: &[&Visit]) -> GraphFold {
    // Where each visit came from: the node the spans name, else the one before.
    let froms: Vec<Option<&str>> = visits
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let before = i.checked_sub(1).map(|b| visits[b].node.as_str());
            v.from.as_deref().or(before).filter(|f| *f != v.node)
        })
        .collect();
    let mut fold = GraphFold::default();
    let mut apply = |event: GraphEvent, t_ms: u64| {
        fold.apply(&EventKind::Pattern(PatternEvent::Graph(event)), t_ms);
    };
    apply(planned(visits, &froms), 0);
    let first = visits[0].start_ns;
    let ms = |ns: u64| ns.saturating_sub(first) / 1_000_000;
    let mut seen: HashMap<&str, u32> = HashMap::new();
    for (i, (visit, from)) in visits.iter().zip(&froms).enumerate() {
        let step = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let node = visit.node.clone();
        let visit_no = *seen
            .entry(visit.node.as_str())
            .and_modify(|n| *n = n.saturating_add(1))
            .or_insert(1);
        if let Some(from) = from {
            let taken = GraphEvent::EdgeEvaluated {
                from: from.to_string(),
                to: node.clone(),
                checks: Vec::new(),
                taken: true,
                visits: None,
                max_visits: None,
            };
            apply(taken, ms(visit.start_ns));
        }
        let started = GraphEvent::NodeStarted {
            node: node.clone(),
            visit: visit_no,
            step,
            input: String::new(),
            team: None,
            read: None,
        };
        apply(started, ms(visit.start_ns));
        if visit.ended {
            let finished = GraphEvent::NodeFinished {
                node,
                visit: visit_no,
                step,
                status: if visit.failed {
                    ActivationStatus::Failed
                } else {
                    ActivationStatus::Ok
                },
                output: String::new(),
                answer: None,
                error: None,
                tokens: visit.tokens,
                cost_usd: 0.0,
            };
            apply(finished, ms(visit.end_ns));
        }
    }
    fold
}

/// The graph as the visits drew it: the nodes in order of first visit,
/// each edge once, in the order the route first took it; an edge back
/// to a node visited earlier closes a loop. A node is an agent when a
/// visit of it acts as one, else a tool node (LangGraph's `tools`, even
/// when the tools it runs are handoff tools its instrumentation marks
/// AGENT, `transfer_to_research_agent`): docs/watch.md, a node that calls
/// no model is no agent. Its label is left empty: a box's top rule says
/// the kind alone and the box's own row its name, so neither is cut to
/// make room for the other.
fn planned(visits: &[&Visit], froms: &[Option<&str>]) -> GraphEvent {
    let mut nodes: Vec<&str> = Vec::new();
    for visit in visits {
        if !nodes.contains(&visit.node.as_str()) {
            nodes.push(&visit.node);
        }
    }
    let at = |n: &str| nodes.iter().position(|m| *m == n).unwrap_or(0);
    let mut edges: Vec<PlannedEdge> = Vec::new();
    for (visit, from) in visits.iter().zip(froms) {
        let Some(from) = from else { continue };
        if edges.iter().any(|e| e.from == *from && e.to == visit.node) {
            continue;
        }
        edges.push(PlannedEdge {
            from: from.to_string(),
            to: visit.node.clone(),
            when: None,
            default: false,
            back: at(&visit.node) <= at(from),
        });
    }
    GraphEvent::GraphPlanned {
        nodes: nodes
            .iter()
            .map(|n| PlannedNode {
                id: n.to_string(),
                kind: if visits.iter().any(|v| v.node == *n && v.agent) {
                    GraphNodeKind::Agent
                } else {
                    GraphNodeKind::Tool
                },
                label: String::new(),
                wait: None,
                max_visits: None,
            })
            .collect(),
        edges,
        max_steps: u32::try_from(visits.len()).unwrap_or(u32::MAX),
    }
}

impl Visits {
    /// Add `span`'s part to its visit: whether it named a node (it is
    /// read once, here).
    pub(crate) fn add(&mut self, span: &Span) -> bool {
        let r = read(span);
        let model = r.kind() == Kind::Model;
        // A LangGraph node acts as an agent only where a model was called
        // in it: every span of its activation is read, and spans marked
        // AGENT by their name alone (a handoff tool) do not make it one.
        let (key, node, from, own, agent) = match (&r.activation, &r.graph_node) {
            (Some(activation), _) => {
                let node = activation.split(':').next().unwrap_or_default().to_string();
                let own = span.name == node && r.langgraph_node.as_deref() == Some(&node);
                (activation.clone(), node, None, own, model)
            }
            (None, Some(node)) => (
                format!("{:016x}", span.span_id),
                node.clone(),
                r.graph_parent.clone(),
                true,
                model || r.kind() == Kind::Agent,
            ),
            (None, None) => return false,
        };
        let tokens = if model {
            r.input_tokens.unwrap_or(0) + r.output_tokens.unwrap_or(0)
        } else {
            0
        };
        let at = match self.index.get(&key) {
            Some(at) => *at,
            None => {
                self.index.insert(key, self.visits.len());
                self.visits.push(Visit {
                    node,
                    from,
                    start_ns: span.start_ns,
                    end_ns: span.end_ns,
                    ended: false,
                    failed: false,
                    tokens: 0,
                    agent: false,
                });
                self.visits.len() - 1
            }
        };
        let visit = &mut self.visits[at];
        visit.start_ns = visit.start_ns.min(span.start_ns);
        visit.end_ns = visit.end_ns.max(span.end_ns);
        visit.ended |= own;
        visit.failed |= span.error.is_some();
        visit.tokens = visit.tokens.saturating_add(tokens);
        visit.agent |= agent;
        true
    }
}
