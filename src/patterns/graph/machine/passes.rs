//! What the machine tells of a node between its ends: a join's open
//! passes and what they wait on, the input a ready node starts with, and
//! what of the state a node is shown when it starts.

use super::{Machine, Pass};
use crate::patterns::graph::shape::{Kind, NodeId};
use serde_json::{Map, Value};

impl Machine<'_> {
    /// Node `n`'s oldest pass that has inputs in and has not fired.
    pub(super) fn open(&self, n: NodeId) -> Option<&Pass> {
        self.inbox[n].iter().find(|p| !p.fired)
    }

    /// What edge `slot` into `n` brought in `pass`, if anything yet.
    pub(super) fn slot_of(&self, n: NodeId, source: NodeId, pass: &Pass) -> Option<Option<Value>> {
        let forward = &self.shape.forward_in[n];
        let place = forward
            .iter()
            .position(|&e| self.shape.edges[e].from == source)?;
        pass.got[place].clone()
    }

    /// The inputs of `n`, in the join's declared order (its forward
    /// in-edges' sources for any other node).
    pub(super) fn sources(&self, n: NodeId) -> Vec<NodeId> {
        match &self.shape.nodes[n].kind {
            Kind::Join { inputs, .. } => inputs.clone(),
            _ => self.shape.forward_in[n]
                .iter()
                .map(|&e| self.shape.edges[e].from)
                .collect(),
        }
    }

    /// The inputs node `n` still waits on in `pass`.
    pub(super) fn missing(&self, n: NodeId, pass: &Pass) -> Vec<String> {
        self.sources(n)
            .into_iter()
            .filter(|&s| self.slot_of(n, s, pass).is_none())
            .map(|s| self.shape.nodes[s].id.clone())
            .collect()
    }

    /// A join's barrier of its oldest open pass, while it waits: the
    /// inputs that arrived and those it still waits on, in its declared
    /// order.
    pub(crate) fn barrier(&self, n: NodeId) -> Option<(Vec<String>, Vec<String>)> {
        if !matches!(self.shape.nodes[n].kind, Kind::Join { .. }) {
            return None;
        }
        let pass = self.open(n)?;
        let arrived = self
            .sources(n)
            .into_iter()
            .filter(|&s| matches!(self.slot_of(n, s, pass), Some(Some(_))))
            .map(|s| self.shape.nodes[s].id.clone())
            .collect();
        Some((arrived, self.missing(n, pass)))
    }

    /// What of the state node `n` is shown when it starts: an agent's
    /// `reads` (its keys, in the order it lists them; `[]` none), the
    /// whole state for an agent without `reads`, a map's list alone, and
    /// nothing for the other kinds, which read no state.
    pub(crate) fn view(&self, n: NodeId) -> Value {
        let spec = &self.shape.nodes[n].spec;
        match (&self.shape.nodes[n].kind, &spec.reads) {
            (Kind::Agent { .. }, Some(keys)) => Value::Object(
                keys.iter()
                    .map(|k| (k.clone(), self.state.get(k).cloned().unwrap_or(Value::Null)))
                    .collect(),
            ),
            (Kind::Agent { .. }, None) => self.state.clone(),
            (Kind::Map { over, .. }, _) => {
                let key = over.strip_prefix("state.").unwrap_or(over);
                let mut only = Map::new();
                only.insert(
                    key.to_string(),
                    self.state.get(key).cloned().unwrap_or(Value::Null),
                );
                Value::Object(only)
            }
            _ => Value::Null,
        }
    }

    /// The input a ready node was last made ready with.
    pub(crate) fn input_of(&self, n: NodeId) -> Option<&Value> {
        self.inputs[n].back()
    }
}
