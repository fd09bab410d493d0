//! The cycle a `max_visits` stop names: which loop keeps bringing the
//! node round, written as the words of its way round.

use super::Machine;
use crate::patterns::graph::lint::cycle_path;
use crate::patterns::graph::shape::NodeId;

impl Machine<'_> {
    /// The cycle `node` runs in, as words (`draft → review → draft`):
    /// the first loop (by its back edge's declaration) whose shortest way
    /// round passes the node, else the first that passes it at all (a
    /// node on a fan-out inside the loop: head → … → node → … → tail →
    /// head), else the first whose head reaches it (a node on a branch
    /// leaving the loop, visited once a pass: the loop's shortest way
    /// round).
    pub(super) fn cycle_of(&self, node: NodeId) -> String {
        let shape = self.shape;
        let loops = || shape.edges.iter().filter(|e| e.back);
        let shortest = loops().find_map(|edge| {
            let path = cycle_path(shape, edge.to, edge.from);
            (path.first() == Some(&edge.to) && path.contains(&node)).then_some((path, edge.to))
        });
        let through = || {
            loops().find_map(|edge| {
                let to = cycle_path(shape, edge.to, node);
                let on = cycle_path(shape, node, edge.from);
                let round = to.first() == Some(&edge.to) && on.first() == Some(&node);
                round.then(|| {
                    (
                        to.into_iter().chain(on.into_iter().skip(1)).collect(),
                        edge.to,
                    )
                })
            })
        };
        // A node on a branch leaving a loop, which the loop reaches on
        // each pass: the first loop whose head reaches it, its shortest
        // way round.
        let reaching = || {
            loops().find_map(|edge| {
                let round = cycle_path(shape, edge.to, edge.from);
                let reaches = cycle_path(shape, edge.to, node).first() == Some(&edge.to);
                (round.first() == Some(&edge.to) && reaches).then_some((round, edge.to))
            })
        };
        match shortest.or_else(through).or_else(reaching) {
            Some((path, head)) => {
                let mut words: Vec<&str> = path
                    .iter()
                    .map(|&n| shape.nodes[n].id.as_str())
                    .collect::<Vec<_>>();
                words.push(&shape.nodes[head].id);
                words.join(" → ")
            }
            None => shape.nodes[node].id.clone(),
        }
    }
}
