//! The lint's rules over more than one node: every cycle has a condition
//! and a bound, and two nodes that may run at once never both replace one
//! state key.

use super::{Lint, cycle_path};
use crate::patterns::graph::shape::{NodeId, apart};
use crate::patterns::graph::spec::Merge;
use crate::scenario::Problem;
use std::collections::{BTreeSet, VecDeque};

impl Lint<'_> {
    /// Every cycle: at least one conditional edge, and one node with
    /// `max_visits`.
    pub(super) fn cycles(&mut self) {
        for (e, edge) in self.shape.edges.iter().enumerate() {
            if !edge.back {
                continue;
            }
            let inside = self.between(edge.to, edge.from);
            let cycle = self.cycle_words(edge.to, edge.from);
            let conditional = edge.conditional()
                || self.shape.edges.iter().any(|x| {
                    !x.back && x.conditional() && inside.contains(&x.from) && inside.contains(&x.to)
                });
            if !conditional {
                let words = format!(
                    "the cycle {cycle} has no condition on any edge: it would run until a limit stops it"
                );
                self.found
                    .push(Problem::at(self.at.key("edges").index(e), words));
            }
            if !inside
                .iter()
                .any(|&n| self.shape.nodes[n].spec.max_visits.is_some())
            {
                let words =
                    format!("the cycle {cycle} has no bound: give one of its nodes `max_visits`");
                self.found
                    .push(Problem::at(self.at.key("edges").index(e), words));
            }
        }
    }

    /// The nodes on forward paths from `from` to `to`, both included.
    fn between(&self, from: NodeId, to: NodeId) -> BTreeSet<NodeId> {
        let ahead = self.forward_reach(from, false);
        let behind = self.forward_reach(to, true);
        (0..self.shape.nodes.len())
            .filter(|&n| ahead[n] && behind[n])
            .collect()
    }

    /// `a → b → … → a`: a shortest forward path from `head` to `tail`, and
    /// back.
    pub(crate) fn cycle_words(&self, head: NodeId, tail: NodeId) -> String {
        cycle_path(self.shape, head, tail)
            .iter()
            .map(|&n| self.shape.nodes[n].id.as_str())
            .chain(std::iter::once(self.shape.nodes[head].id.as_str()))
            .collect::<Vec<_>>()
            .join(" → ")
    }

    fn forward_reach(&self, start: NodeId, backwards: bool) -> Vec<bool> {
        let mut seen = vec![false; self.shape.nodes.len()];
        let mut queue = VecDeque::from([start]);
        seen[start] = true;
        while let Some(node) = queue.pop_front() {
            let edges = if backwards {
                &self.shape.forward_in[node]
            } else {
                &self.shape.out[node]
            };
            for &e in edges {
                let edge = &self.shape.edges[e];
                let next = if backwards { edge.from } else { edge.to };
                if !edge.back && !seen[next] {
                    seen[next] = true;
                    queue.push_back(next);
                }
            }
        }
        seen
    }

    /// Two nodes that may run at once write one key: it must `append`.
    pub(super) fn writers(&mut self) {
        let mut by_key: Vec<(String, Vec<NodeId>)> = Vec::new();
        for (node, n) in self.shape.nodes.iter().enumerate() {
            for key in n.spec.write.keys().chain(n.spec.collect.iter()) {
                match by_key.iter_mut().find(|(k, _)| k == key) {
                    Some((_, nodes)) => nodes.push(node),
                    None => by_key.push((key.clone(), vec![node])),
                }
            }
        }
        for (key, nodes) in by_key {
            if self.shape.merge.get(&key) != Some(&Merge::Replace) {
                continue;
            }
            'pairs: for (i, &a) in nodes.iter().enumerate() {
                for &b in &nodes[i + 1..] {
                    if self.concurrent(a, b) {
                        let words = format!(
                            "nodes {:?} and {:?} may run at once and both write the state key {key:?}: declare it `\"merge\": \"append\"`",
                            self.name(a),
                            self.name(b)
                        );
                        self.say(self.at.key("nodes").index(b), words);
                        break 'pairs;
                    }
                }
            }
        }
    }

    /// Neither runs before the other and no router chose between them.
    fn concurrent(&self, a: NodeId, b: NodeId) -> bool {
        if self.forward_reach(a, false)[b] || self.forward_reach(b, false)[a] {
            return false;
        }
        !apart(&self.shape.node_ways(a), &self.shape.node_ways(b))
    }
}
