//! Inputs arriving at a node: an edge's output or its "skipped", the
//! node's inbox of the pass, a join's rule, and "skipped" sent on from a
//! node all of whose inputs were skipped.

use super::{Halt, Inbox, Machine, NodeState, Step};
use crate::patterns::graph::shape::{EdgeId, Kind, NodeId};
use crate::patterns::graph::spec::{Wait, WaitFor};
use serde_json::{Map, Value};

impl Machine<'_> {
    /// Edge `e` brings its source's output (`Some`) or "skipped" (`None`).
    pub(super) fn deliver(
        &mut self,
        e: EdgeId,
        brought: Option<Value>,
        step: &mut Step,
    ) -> Result<(), Halt> {
        let mut queue = vec![(e, brought)];
        while let Some((e, brought)) = queue.pop() {
            let edge = &self.shape.edges[e];
            let to = edge.to;
            if edge.back {
                if let Some(output) = brought {
                    self.make_ready(to, output);
                }
                continue;
            }
            let from = edge.from;
            if matches!(self.shape.nodes[to].kind, Kind::Join { .. }) {
                step.joins.push(to);
            }
            if self.arrive(to, from, brought)? == Some(true) {
                self.states[to] = NodeState::Skipped;
                step.skipped.push(to);
                // Depth first, in declaration order: pushed reversed.
                for &next in self.shape.out[to].iter().rev() {
                    if !self.shape.edges[next].back {
                        queue.push((next, None));
                    }
                }
            }
        }
        Ok(())
    }

    /// One input of `to` is in. `Some(true)`: the node is skipped;
    /// `Some(false)`: it fired; `None`: it waits or already fired; a stop
    /// when a quorum can no longer be met.
    fn arrive(
        &mut self,
        to: NodeId,
        from: NodeId,
        brought: Option<Value>,
    ) -> Result<Option<bool>, Halt> {
        let expected = self.shape.forward_in[to].len();
        let kind = self.shape.nodes[to].kind.clone();
        let inbox = &mut self.inbox[to];
        inbox.count += 1;
        let mut fire: Option<Value> = None;
        let mut skipped = false;
        match &kind {
            Kind::Join { wait, inputs } => {
                if inbox.got.len() != inputs.len() {
                    inbox.got = vec![None; inputs.len()];
                }
                if let Some(place) = inputs.iter().position(|&i| i == from) {
                    inbox.got[place] = Some(brought);
                }
                let arrived = inbox
                    .got
                    .iter()
                    .filter(|g| matches!(g, Some(Some(_))))
                    .count();
                let all_in = inbox.count >= expected;
                let due = match wait {
                    Wait::Named(WaitFor::All) => all_in && arrived > 0,
                    Wait::Named(WaitFor::Any) => arrived > 0,
                    Wait::Quorum { quorum } => arrived >= *quorum as usize,
                };
                if due && !inbox.fired {
                    let mut map = Map::new();
                    for (i, got) in inbox.got.iter().enumerate() {
                        if let Some(Some(value)) = got {
                            map.insert(self.shape.nodes[inputs[i]].id.clone(), value.clone());
                        }
                    }
                    fire = Some(Value::Object(map));
                } else if all_in && !inbox.fired && arrived == 0 {
                    skipped = true;
                } else if all_in && !inbox.fired {
                    *inbox = Inbox::default();
                    return Err(Halt::NodeFailed {
                        node: self.shape.nodes[to].id.clone(),
                        error: format!(
                            "its quorum of {} was not met: {arrived} of {expected} inputs arrived, the rest were skipped",
                            quorum_of(wait)
                        ),
                    });
                }
            }
            _ => match brought {
                Some(value) if !inbox.fired => fire = Some(value),
                _ if inbox.count >= expected && !inbox.fired => skipped = true,
                _ => {}
            },
        }
        let inbox = &mut self.inbox[to];
        if fire.is_some() {
            inbox.fired = true;
        }
        let all_in = inbox.count >= expected;
        if all_in {
            *inbox = Inbox::default();
        }
        if let Some(input) = fire {
            self.make_ready(to, input);
            return Ok(Some(false));
        }
        Ok(skipped.then_some(true))
    }
}

fn quorum_of(wait: &Wait) -> u32 {
    match wait {
        Wait::Quorum { quorum } => *quorum,
        Wait::Named(_) => 1,
    }
}
