//! The ways a pass may reach each edge, with the routing choices made on
//! each: what tells two edges that can both be taken in one pass from two
//! that a router keeps apart.

use super::{Choice, NodeId, Shape, topological};
use std::collections::BTreeSet;

/// The routing choices of one way through the graph.
pub(crate) type Way = BTreeSet<Choice>;
/// The ways to a node or an edge: any one of them.
pub(crate) type Ways = Vec<Way>;

/// The most ways kept per edge: past it, the ways are merged into the
/// choices they all share, which only makes the lint stricter.
pub(crate) const MAX_WAYS: usize = 64;

/// Two ways cannot both be taken in one pass: a router chose differently.
fn conflict(a: &Way, b: &Way) -> bool {
    a.iter()
        .any(|&(router, x)| b.iter().any(|&(other, y)| other == router && x != y))
}

/// No way of `a` can be taken in one pass with a way of `b`.
pub(crate) fn apart(a: &Ways, b: &Ways) -> bool {
    a.iter().all(|x| b.iter().all(|y| conflict(x, y)))
}

pub(super) fn node_ways(shape: &Shape, ways: &[Ways], node: NodeId) -> Ways {
    if shape.forward_in[node].is_empty() {
        return vec![Way::new()];
    }
    let mut all: Ways = Vec::new();
    for &e in &shape.forward_in[node] {
        for way in &ways[e] {
            if !all.contains(way) {
                all.push(way.clone());
            }
        }
    }
    if all.len() > MAX_WAYS {
        let shared = all.iter().skip(1).fold(all[0].clone(), |common, way| {
            common.intersection(way).copied().collect()
        });
        all = vec![shared];
    }
    all
}

/// Each edge's ways, over the forward edges in topological order.
pub(super) fn ways(shape: &Shape) -> Vec<Ways> {
    let mut ways: Vec<Ways> = vec![Vec::new(); shape.edges.len()];
    for node in topological(shape) {
        let carried = node_ways(shape, &ways, node);
        let routes = shape.routes(node);
        for &e in &shape.out[node] {
            ways[e] = carried
                .iter()
                .map(|way| {
                    let mut own = way.clone();
                    if routes {
                        own.insert((node, e));
                    }
                    own
                })
                .collect();
        }
    }
    ways
}
