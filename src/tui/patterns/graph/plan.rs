//! The graph as the run planned it, read from its `graph_planned` event:
//! nodes and edges by index, each edge's ends resolved once, so the layout,
//! the fold and the pane never look a node up by its name again.

use std::collections::HashMap;

/// One node as planned: its id, kind, what it runs and, for a join, its
/// rule in words; text from the scenario, shown cleaned.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PlanNode {
    pub(crate) id: String,
    pub(crate) kind: String,
    pub(crate) label: String,
    pub(crate) wait: Option<String>,
    pub(crate) max_visits: Option<u32>,
}

/// One edge as planned, its ends as node indices.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PlanEdge {
    pub(crate) from: usize,
    pub(crate) to: usize,
    /// The condition in words, when it has one.
    pub(crate) when: Option<String>,
    pub(crate) default: bool,
    /// The edge closes a cycle: it is drawn as a loop returning up.
    pub(crate) back: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Plan {
    pub(crate) nodes: Vec<PlanNode>,
    pub(crate) edges: Vec<PlanEdge>,
    by_id: HashMap<String, usize>,
    /// Each node's out-edges, in declaration order.
    pub(crate) out: Vec<Vec<usize>>,
    by_ends: HashMap<(usize, usize), usize>,
}

/// An edge as written in the event, its ends by node id.
pub(crate) struct NamedEdge<'a> {
    pub(crate) from: &'a str,
    pub(crate) to: &'a str,
    pub(crate) when: Option<String>,
    pub(crate) default: bool,
    pub(crate) back: bool,
}

impl Plan {
    /// The plan of `nodes` and `edges`; an edge naming no planned node is
    /// left out (a recording cut by hand may hold one).
    pub(crate) fn new<'a>(
        nodes: Vec<PlanNode>,
        edges: impl IntoIterator<Item = NamedEdge<'a>>,
    ) -> Self {
        let by_id: HashMap<String, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.clone(), i))
            .collect();
        let mut plan = Plan {
            out: vec![Vec::new(); nodes.len()],
            nodes,
            by_id,
            ..Plan::default()
        };
        for edge in edges {
            let (Some(from), Some(to)) = (plan.node(edge.from), plan.node(edge.to)) else {
                continue;
            };
            let index = plan.edges.len();
            plan.out[from].push(index);
            plan.by_ends.entry((from, to)).or_insert(index);
            plan.edges.push(PlanEdge {
                from,
                to,
                when: edge.when,
                default: edge.default,
                back: edge.back,
            });
        }
        plan
    }

    /// The node named `id`.
    pub(crate) fn node(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// The first edge from `from` to `to`, by node ids.
    pub(crate) fn edge(&self, from: &str, to: &str) -> Option<usize> {
        let ends = (self.node(from)?, self.node(to)?);
        self.by_ends.get(&ends).copied()
    }
}
