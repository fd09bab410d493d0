//! A graph section compiled into indices: each node's kind, each edge's
//! ends, which edges close a cycle (back edges, found by a depth-first walk
//! from the entry in declaration order), which nodes route (their
//! out-edges carry conditions) and, for each edge, the ways a pass may
//! reach it with the routing choices made on each: two edges whose every
//! pair of ways differs at one router can never both be taken in one pass.
//!
//! Compiling fails only where the section cannot be read as a graph at all
//! (a duplicate id, an edge to no node, a node of no kind or of two); the
//! rest of the rules are [`super::lint`]'s.

use super::spec::{Condition, EdgeSpec, FieldType, GraphSpec, Merge, NodeSpec, Wait};
use crate::scenario::error::Problem;
use crate::scenario::path::JsonPath;
use std::collections::HashMap;

mod ways;
pub(crate) use ways::{Ways, apart};
use ways::{node_ways, ways};

pub(crate) type NodeId = usize;
pub(crate) type EdgeId = usize;

/// What a node does.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    Agent {
        agent: String,
    },
    Tool {
        tool: String,
    },
    Team {
        team: String,
    },
    Map {
        over: String,
        agent: String,
    },
    Join {
        wait: Wait,
        inputs: Vec<NodeId>,
    },
    Human {
        question: String,
        options: Vec<String>,
    },
    End,
}

impl Kind {
    pub(crate) fn word(&self) -> &'static str {
        match self {
            Kind::Agent { .. } => "agent",
            Kind::Tool { .. } => "tool",
            Kind::Team { .. } => "team",
            Kind::Map { .. } => "map",
            Kind::Join { .. } => "join",
            Kind::Human { .. } => "human",
            Kind::End => "end",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub(crate) id: String,
    pub(crate) kind: Kind,
    pub(crate) spec: NodeSpec,
}

#[derive(Clone, Debug)]
pub(crate) struct Edge {
    pub(crate) from: NodeId,
    pub(crate) to: NodeId,
    pub(crate) when: Option<Condition>,
    pub(crate) default: bool,
    /// The edge closes a cycle: it leads back to a node the walk from the
    /// entry is still inside.
    pub(crate) back: bool,
}

impl Edge {
    pub(crate) fn conditional(&self) -> bool {
        self.when.is_some() || self.default
    }
}

/// A routing choice: the router and which of its out-edges was taken.
pub(crate) type Choice = (NodeId, EdgeId);

#[derive(Clone, Debug)]
pub(crate) struct Shape {
    pub(crate) nodes: Vec<Node>,
    pub(crate) edges: Vec<Edge>,
    pub(crate) entry: NodeId,
    pub(crate) by_id: HashMap<String, NodeId>,
    /// Each node's out-edges, in declaration order.
    pub(crate) out: Vec<Vec<EdgeId>>,
    /// Each node's incoming edges that close no cycle.
    pub(crate) forward_in: Vec<Vec<EdgeId>>,
    /// Each edge's ways: for each way a pass may take it, the routing
    /// choices made on that way (at most [`MAX_WAYS`] kept).
    pub(crate) ways: Vec<Ways>,
    pub(crate) max_steps: u32,
    pub(crate) merge: indexmap::IndexMap<String, Merge>,
}

impl Shape {
    /// The node named `id`.
    pub(crate) fn node(&self, id: &str) -> Option<NodeId> {
        self.by_id.get(id).copied()
    }

    /// A node routes: its out-edges are tried in order, the first match
    /// taken.
    pub(crate) fn routes(&self, node: NodeId) -> bool {
        self.out[node].iter().any(|&e| self.edges[e].conditional())
    }

    /// Edges `a` and `b` can never both be taken in one pass: whichever
    /// way a pass takes to each, some router chose differently on them.
    pub(crate) fn exclusive(&self, a: EdgeId, b: EdgeId) -> bool {
        apart(&self.ways[a], &self.ways[b])
    }

    /// The ways a pass reaches `node`.
    pub(crate) fn node_ways(&self, node: NodeId) -> Ways {
        node_ways(self, &self.ways, node)
    }
}

fn kind_of(spec: &NodeSpec, by_id: &HashMap<String, NodeId>) -> Result<Kind, String> {
    let mut kinds: Vec<&str> = Vec::new();
    let present = [
        ("map", spec.map.is_some()),
        ("agent", spec.agent.is_some() && spec.map.is_none()),
        ("tool", spec.tool.is_some()),
        ("team", spec.team.is_some()),
        ("join", spec.wait.is_some()),
        ("human", spec.human.is_some()),
        ("end", spec.end),
    ];
    kinds.extend(present.iter().filter(|(_, on)| *on).map(|(k, _)| *k));
    let kind = match kinds.as_slice() {
        [one] => *one,
        [] => {
            return Err(
                "expected one kind key: agent, tool, team, map, join (with wait), human or end"
                    .into(),
            );
        }
        many => {
            return Err(format!(
                "expected one kind key, found {}: a node does one thing",
                many.join(" and ")
            ));
        }
    };
    Ok(match kind {
        "agent" => Kind::Agent {
            agent: spec.agent.clone().unwrap_or_default(),
        },
        "tool" => Kind::Tool {
            tool: spec.tool.clone().unwrap_or_default(),
        },
        "team" => Kind::Team {
            team: spec.team.clone().unwrap_or_default(),
        },
        "map" => Kind::Map {
            over: spec.map.clone().unwrap_or_default(),
            agent: spec
                .agent
                .clone()
                .ok_or("a map node names the agent that answers each item (\"agent\")")?,
        },
        "join" => Kind::Join {
            wait: spec.wait.unwrap_or(Wait::Named(super::spec::WaitFor::All)),
            inputs: spec
                .inputs
                .iter()
                .map(|input| {
                    by_id
                        .get(input)
                        .copied()
                        .ok_or_else(|| format!("the input {input:?} is no node of the graph"))
                })
                .collect::<Result<_, _>>()?,
        },
        "human" => Kind::Human {
            question: spec.human.clone().unwrap_or_default(),
            options: spec.options.clone(),
        },
        _ => Kind::End,
    })
}

/// The graph `spec` describes, or what keeps it from being one; `at` is
/// where the section is written (`graph`).
pub(crate) fn compile(spec: &GraphSpec, at: &JsonPath) -> Result<Shape, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut by_id = HashMap::with_capacity(spec.nodes.len());
    for (i, node) in spec.nodes.iter().enumerate() {
        if by_id.insert(node.id.clone(), i).is_some() {
            let place = at.key("nodes").index(i).key("id");
            problems.push(Problem::at(
                place,
                format!(
                    "the id {:?} is taken by an earlier node; ids are unique",
                    node.id
                ),
            ));
        }
    }
    let mut nodes = Vec::with_capacity(spec.nodes.len());
    for (i, node) in spec.nodes.iter().enumerate() {
        match kind_of(node, &by_id) {
            Ok(kind) => nodes.push(Node {
                id: node.id.clone(),
                kind,
                spec: node.clone(),
            }),
            Err(message) => problems.push(Problem::at(
                at.key("nodes").index(i),
                format!("node {:?}: {message}", node.id),
            )),
        }
    }
    let edges = read_edges(&spec.edges, &by_id, at, &mut problems);
    let Some(&entry) = by_id.get(&spec.entry) else {
        problems.push(Problem::at(
            at.key("entry"),
            format!("expected the id of a node, found {:?}", spec.entry),
        ));
        return Err(problems);
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut shape = Shape {
        out: vec![Vec::new(); nodes.len()],
        forward_in: vec![Vec::new(); nodes.len()],
        ways: Vec::new(),
        nodes,
        edges,
        entry,
        by_id,
        max_steps: spec.max_steps(),
        merge: spec
            .state
            .iter()
            .map(|(k, v)| (k.clone(), v.merge))
            .collect(),
    };
    for (e, edge) in shape.edges.iter().enumerate() {
        shape.out[edge.from].push(e);
    }
    mark_back_edges(&mut shape);
    for (e, edge) in shape.edges.iter().enumerate() {
        if !edge.back {
            shape.forward_in[edge.to].push(e);
        }
    }
    shape.ways = ways(&shape);
    Ok(shape)
}

fn read_edges(
    written: &[EdgeSpec],
    by_id: &HashMap<String, NodeId>,
    at: &JsonPath,
    problems: &mut Vec<Problem>,
) -> Vec<Edge> {
    let mut edges = Vec::with_capacity(written.len());
    for (i, edge) in written.iter().enumerate() {
        // The edge's place is built only for an end it cannot find.
        let end = |key: &str, id: &String, problems: &mut Vec<Problem>| {
            let found = by_id.get(id).copied();
            if found.is_none() {
                problems.push(Problem::at(
                    at.key("edges").index(i).key(key),
                    format!("expected the id of a node, found {id:?}"),
                ));
            }
            found
        };
        let (from, to) = (
            end("from", &edge.from, problems),
            end("to", &edge.to, problems),
        );
        if let (Some(from), Some(to)) = (from, to) {
            edges.push(Edge {
                from,
                to,
                when: edge.when.clone(),
                default: edge.default,
                back: false,
            });
        }
    }
    edges
}

/// Marks the edges a depth-first walk from the entry (out-edges in
/// declaration order) finds leading back into the walk: what remains is
/// acyclic.
fn mark_back_edges(shape: &mut Shape) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Closed,
    }
    let mut mark = vec![Mark::New; shape.nodes.len()];
    let mut back = vec![false; shape.edges.len()];
    // The walk by hand: a graph of 10,000 nodes may be 10,000 deep.
    let mut starts: Vec<NodeId> = vec![shape.entry];
    starts.extend(0..shape.nodes.len());
    for start in starts {
        if mark[start] != Mark::New {
            continue;
        }
        mark[start] = Mark::Open;
        let mut stack: Vec<(NodeId, usize)> = vec![(start, 0)];
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            if let Some(&e) = shape.out[node].get(*next) {
                *next += 1;
                let to = shape.edges[e].to;
                match mark[to] {
                    Mark::Open => back[e] = true,
                    Mark::New => {
                        mark[to] = Mark::Open;
                        stack.push((to, 0));
                    }
                    Mark::Closed => {}
                }
            } else {
                mark[node] = Mark::Closed;
                stack.pop();
            }
        }
    }
    for (edge, back) in shape.edges.iter_mut().zip(back) {
        edge.back = back;
    }
}

/// The nodes in an order where every forward edge runs from earlier to
/// later (Kahn's, ties by declaration order).
pub(crate) fn topological(shape: &Shape) -> Vec<NodeId> {
    let mut waiting: Vec<usize> = shape.forward_in.iter().map(Vec::len).collect();
    let mut ready: std::collections::BTreeSet<NodeId> = (0..shape.nodes.len())
        .filter(|&n| waiting[n] == 0)
        .collect();
    let mut order = Vec::with_capacity(shape.nodes.len());
    while let Some(node) = ready.pop_first() {
        order.push(node);
        for &e in &shape.out[node] {
            let edge = &shape.edges[e];
            if !edge.back {
                waiting[edge.to] -= 1;
                if waiting[edge.to] == 0 {
                    ready.insert(edge.to);
                }
            }
        }
    }
    order
}

/// The values a routed output field may take, when the node declares them.
pub(crate) fn declared_values(node: &Node, field: &str) -> Option<Vec<String>> {
    let name = field.strip_prefix('/')?;
    match node.spec.output.get(name)? {
        FieldType::OneOf(values) => Some(values.clone()),
        FieldType::Kind(_) => None,
    }
}
