//! The graph in layers: each node's layer is its longest path over forward
//! edges from the sources (the entry among them), an edge that spans more
//! than one layer passes through a slot in each layer between, and each
//! layer is ordered by where its slots' predecessors sit (their mean
//! place, ties in declaration order) so that edges cross little. Back
//! edges are kept aside and drawn as loops returning up. Linear in nodes
//! plus edges (and the layers an edge passes), apart from one sort a
//! layer: laid out once when the plan arrives, shared by every frame.

use super::plan::Plan;
use std::collections::VecDeque;

/// What takes a place in a layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Node(usize),
    /// A forward edge passing through a layer between its ends.
    Pass(usize),
}

/// A forward edge's piece from a slot of one layer to a slot of the next,
/// by their places in their layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    pub(crate) from: u32,
    pub(crate) to: u32,
    pub(crate) edge: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Layout {
    /// Each layer's slots, in order.
    pub(crate) layers: Vec<Vec<Slot>>,
    /// For each layer, how many nodes stand before each slot in it.
    pub(crate) nodes_before: Vec<Vec<u32>>,
    /// Each node's layer and place in it.
    pub(crate) place: Vec<(u32, u32)>,
    /// The segments from each layer down to the next.
    pub(crate) down: Vec<Vec<Segment>>,
    /// The back edges, each drawn in a lane of its own.
    pub(crate) back: Vec<usize>,
    /// A back edge returns to the first layer: a gap is kept above it.
    pub(crate) top_gap: bool,
}

impl Layout {
    pub(crate) fn of(plan: &Plan) -> Self {
        let layer = layers(plan);
        let depth = layer.iter().max().map_or(0, |d| d + 1);
        // Slots, each with its predecessors' slots, before ordering.
        let mut slots: Vec<(Slot, u32)> = plan
            .nodes
            .iter()
            .enumerate()
            .map(|(i, _)| (Slot::Node(i), layer[i]))
            .collect();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); slots.len()];
        let mut links: Vec<(usize, usize, usize)> = Vec::new();
        let mut back = Vec::new();
        for (e, edge) in plan.edges.iter().enumerate() {
            let (from, to) = (layer[edge.from], layer[edge.to]);
            if edge.back || to <= from {
                back.push(e);
                continue;
            }
            let mut last = edge.from;
            for passed in from + 1..to {
                slots.push((Slot::Pass(e), passed));
                preds.push(vec![last]);
                links.push((last, slots.len() - 1, e));
                last = slots.len() - 1;
            }
            preds[edge.to].push(last);
            links.push((last, edge.to, e));
        }
        let mut by_layer: Vec<Vec<usize>> = vec![Vec::new(); depth as usize];
        for (s, (_, l)) in slots.iter().enumerate() {
            by_layer[*l as usize].push(s);
        }
        let mut pos = vec![0u32; slots.len()];
        for members in &mut by_layer {
            order(members, &slots, &preds, &pos, plan);
            for (i, s) in members.iter().enumerate() {
                pos[*s] = i as u32;
            }
        }
        let mut down: Vec<Vec<Segment>> = vec![Vec::new(); depth as usize];
        for (from, to, edge) in links {
            down[slots[from].1 as usize].push(Segment {
                from: pos[from],
                to: pos[to],
                edge,
            });
        }
        let layers: Vec<Vec<Slot>> = by_layer
            .iter()
            .map(|members| members.iter().map(|s| slots[*s].0).collect())
            .collect();
        let nodes_before = layers.iter().map(|l| count_nodes(l)).collect();
        let place = (0..plan.nodes.len()).map(|n| (layer[n], pos[n])).collect();
        let top_gap = back.iter().any(|e| layer[plan.edges[*e].to] == 0);
        Layout {
            layers,
            nodes_before,
            place,
            down,
            back,
            top_gap,
        }
    }

    /// How many nodes and how many passing edges layer `l` holds.
    pub(crate) fn counts(&self, l: usize) -> (usize, usize) {
        let slots = self.layers[l].len();
        let nodes = self.nodes_before[l].last().map_or(0, |n| *n as usize)
            + usize::from(matches!(self.layers[l].last(), Some(Slot::Node(_))));
        (nodes, slots - nodes)
    }
}

/// Each node's layer: the longest path to it over forward edges, from the
/// nodes no forward edge reaches. Nodes on a cycle of edges not marked
/// back (a plan the engine did not mark) are taken in declaration order,
/// the edges that close the cycle then drawn as back edges.
fn layers(plan: &Plan) -> Vec<u32> {
    let n = plan.nodes.len();
    let mut waiting = vec![0u32; n];
    for edge in plan.edges.iter().filter(|e| !e.back) {
        waiting[edge.to] += 1;
    }
    let mut layer = vec![0u32; n];
    let mut done = vec![false; n];
    let mut ready: VecDeque<usize> = (0..n).filter(|v| waiting[*v] == 0).collect();
    let mut next_stuck = 0;
    loop {
        while let Some(v) = ready.pop_front() {
            done[v] = true;
            for &e in &plan.out[v] {
                let edge = &plan.edges[e];
                if edge.back || done[edge.to] {
                    continue;
                }
                layer[edge.to] = layer[edge.to].max(layer[v] + 1);
                waiting[edge.to] -= 1;
                if waiting[edge.to] == 0 {
                    ready.push_back(edge.to);
                }
            }
        }
        while next_stuck < n && done[next_stuck] {
            next_stuck += 1;
        }
        if next_stuck == n {
            return layer;
        }
        waiting[next_stuck] = 0;
        ready.push_back(next_stuck);
    }
}

/// Order a layer's slots by the mean place of their predecessors, ties
/// (and the first layer) in declaration order.
fn order(
    members: &mut [usize],
    slots: &[(Slot, u32)],
    preds: &[Vec<usize>],
    pos: &[u32],
    plan: &Plan,
) {
    let key = |s: usize| -> (f64, usize, usize) {
        let p = &preds[s];
        let mean = if p.is_empty() {
            f64::from(u32::MAX)
        } else {
            p.iter().map(|q| f64::from(pos[*q])).sum::<f64>() / p.len() as f64
        };
        match slots[s].0 {
            Slot::Node(n) => (mean, n, 0),
            Slot::Pass(e) => (mean, plan.edges[e].to, 1),
        }
    };
    let first_layer = members.iter().all(|s| preds[*s].is_empty());
    if first_layer {
        return;
    }
    members.sort_by(|a, b| {
        key(*a)
            .partial_cmp(&key(*b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
}

fn count_nodes(layer: &[Slot]) -> Vec<u32> {
    let mut before = 0;
    layer
        .iter()
        .map(|slot| {
            let here = before;
            before += u32::from(matches!(slot, Slot::Node(_)));
            here
        })
        .collect()
}
