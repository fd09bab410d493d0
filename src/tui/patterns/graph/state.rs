//! The graph run's state, folded from its events alone: the plan and its
//! layout (shared, laid out once), each node's state, visits, activations,
//! map progress and join barrier, and each edge's last evaluation. A pure
//! fold, so a replay's checkpoints re-fold it to any cursor and the graph
//! is recoloured as of there; kept in persistent collections so those
//! checkpoints share what did not change.

use super::layout::Layout;
use super::live::{EdgeEval, NodeLive};
use super::plan::Plan;
use crate::scenario::Scenario;
use crate::tui::patterns::chain::state::Chain;
use std::sync::Arc;

/// The planned graph with its layout.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Graph {
    pub(crate) plan: Plan,
    pub(crate) layout: Layout,
}

impl Graph {
    pub(crate) fn new(plan: Plan) -> Self {
        let layout = Layout::of(&plan);
        Graph { plan, layout }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct GraphFold {
    /// The graph, once its plan is published.
    pub(crate) graph: Option<Arc<Graph>>,
    pub(crate) nodes: imbl::Vector<NodeLive>,
    /// Each edge's last evaluation, in the plan's order.
    pub(crate) edges: imbl::Vector<Option<EdgeEval>>,
    /// The node whose activation started last: the pane follows it until
    /// a node is selected.
    pub(crate) last_started: Option<usize>,
    /// Activations started, run-wide.
    pub(crate) steps: u32,
    pub(crate) max_steps: u32,
    /// The nodes in activation order.
    pub(crate) path: imbl::Vector<usize>,
    /// A human node asking, with its question, until it is answered.
    pub(crate) asking: Option<(usize, String)>,
    /// The run has ended.
    pub(crate) ended: bool,
    /// Each team node's runs of its team, by node (`team_pane`).
    pub(crate) teams: imbl::OrdMap<usize, Arc<Chain>>,
    /// The run's scenario, for its teams' limits.
    pub(crate) scenario: Option<Arc<Scenario>>,
}

impl GraphFold {
    /// The fold of a run whose graph is `plan`, nothing run yet.
    pub(crate) fn planned(plan: Plan, max_steps: u32) -> Self {
        let graph = Graph::new(plan);
        GraphFold {
            nodes: std::iter::repeat_n(NodeLive::default(), graph.plan.nodes.len()).collect(),
            edges: std::iter::repeat_n(None, graph.plan.edges.len()).collect(),
            graph: Some(Arc::new(graph)),
            max_steps,
            ..GraphFold::default()
        }
    }
}
