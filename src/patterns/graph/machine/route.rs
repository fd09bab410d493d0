//! A node's out-edges when it ends: a router's first matching edge (or its
//! default, or its `on_unmatched` rule), every edge of a node that does not
//! route, and whether a failed node routes on its status at all.

use super::{Evaluated, Halt, Machine, Step};
use crate::patterns::graph::condition::{Facts, evaluate};
use crate::patterns::graph::shape::{EdgeId, NodeId};
use crate::patterns::graph::spec::{NodeStatus, Unmatched};
use serde_json::Value;

impl Machine<'_> {
    pub(super) fn routes_on_status(&self, node: NodeId) -> bool {
        fn reads(c: &crate::patterns::graph::spec::Condition) -> bool {
            use crate::patterns::graph::spec::Condition as C;
            match c {
                C::Status { .. } => true,
                C::All { all: list } | C::Any { any: list } => list.iter().any(reads),
                C::Not { not } => reads(not),
                _ => false,
            }
        }
        self.shape.out[node]
            .iter()
            .any(|&e| self.shape.edges[e].when.as_ref().is_some_and(reads))
    }

    /// The out-edges taken: a router's first match (or its default), or
    /// all of a node that does not route.
    pub(super) fn route(
        &mut self,
        node: NodeId,
        output: &Value,
        answer: Option<&str>,
        status: NodeStatus,
        step: &mut Step,
    ) -> Result<Vec<EdgeId>, Halt> {
        let out = &self.shape.out[node];
        if !self.shape.routes(node) {
            return Ok(out.clone());
        }
        let visits = |id: &str| self.shape.node(id).map_or(0, |n| self.visits[n]);
        let facts = Facts {
            output,
            state: &self.state,
            visits: &visits,
            status,
            answer,
        };
        let mut taken = None;
        let mut all_checked = Vec::new();
        for &e in out {
            let Some(when) = &self.shape.edges[e].when else {
                continue;
            };
            let mut checked = Vec::new();
            let held = taken.is_none() && evaluate(when, &facts, &mut checked);
            if taken.is_none() {
                all_checked.extend(checked.iter().map(|c| c.said.clone()));
                step.evaluated.push(Evaluated {
                    edge: e,
                    checked,
                    taken: held,
                });
            }
            if held {
                taken = Some(e);
            }
        }
        if taken.is_none()
            && let Some(&default) = out.iter().find(|&&e| self.shape.edges[e].default)
        {
            step.evaluated.push(Evaluated {
                edge: default,
                checked: Vec::new(),
                taken: true,
            });
            taken = Some(default);
        }
        match (taken, self.unmatched) {
            (Some(e), _) => Ok(vec![e]),
            (None, Unmatched::Skip) => Ok(Vec::new()),
            (None, Unmatched::Stop) => Err(Halt::NoRoute {
                node: self.shape.nodes[node].id.clone(),
                values: all_checked,
            }),
        }
    }
}
