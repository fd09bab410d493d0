//! Inputs arriving at a node: an edge's output or its "skipped", the
//! node's inbox of the pass, a join's rule, and "skipped" sent on from a
//! node all of whose inputs were skipped, held behind the node's earlier
//! activations while one of them is ready or running.

use super::{Halt, Machine, NodeState, Pass, Step};
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
            if matches!(self.shape.nodes[to].kind, Kind::Join { .. }) {
                step.joins.push(to);
            }
            if self.arrive(to, e, brought)? == Some(true) {
                // Behind the activations made ready before it, if any.
                let queued = u32::try_from(self.inputs[to].len()).unwrap_or(u32::MAX);
                let after = self.visits[to].saturating_add(queued);
                if after > self.finished[to] {
                    self.held[to].push_back(after);
                    continue;
                }
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

    /// The "skipped" of `node` held behind activations that have now all
    /// ended, sent on after the output of the one that ended last.
    pub(super) fn release_held(&mut self, node: NodeId, step: &mut Step) -> Result<(), Halt> {
        while self.held[node]
            .front()
            .is_some_and(|&after| after <= self.finished[node])
        {
            self.held[node].pop_front();
            self.states[node] = NodeState::Skipped;
            step.skipped.push(node);
            let shape = self.shape;
            for &e in &shape.out[node] {
                if !shape.edges[e].back {
                    self.deliver(e, None, step)?;
                }
            }
        }
        Ok(())
    }

    /// One input of `to` is in, along edge `e`, into the oldest pass
    /// that has nothing from that edge yet. `Some(true)`: the node is
    /// skipped; `Some(false)`: it fired; `None`: it waits or already fired
    /// in that pass; a stop when a quorum can no longer be met. A pass
    /// every input of which is in is closed.
    fn arrive(
        &mut self,
        to: NodeId,
        e: EdgeId,
        brought: Option<Value>,
    ) -> Result<Option<bool>, Halt> {
        let slots = self.shape.forward_in[to].len();
        let place = self.shape.forward_in[to]
            .iter()
            .position(|&x| x == e)
            .unwrap_or_else(|| unreachable!("a forward edge is among its target's in-edges"));
        let passes = &mut self.inbox[to];
        let k = match passes.iter().position(|p| p.got[place].is_none()) {
            Some(k) => k,
            None => {
                passes.push_back(Pass {
                    got: vec![None; slots],
                    fired: false,
                });
                passes.len() - 1
            }
        };
        passes[k].got[place] = Some(brought.clone());
        let pass = &passes[k];
        let arrived = pass
            .got
            .iter()
            .filter(|g| matches!(g, Some(Some(_))))
            .count();
        let all_in = pass.got.iter().all(Option::is_some);
        let fired = pass.fired;
        let mut fire: Option<Value> = None;
        let mut skipped = false;
        match &self.shape.nodes[to].kind {
            Kind::Join { wait, .. } => {
                let due = match wait {
                    Wait::Named(WaitFor::All) => all_in && arrived > 0,
                    Wait::Named(WaitFor::Any) => arrived > 0,
                    Wait::Quorum { quorum } => arrived >= *quorum as usize,
                };
                if due && !fired {
                    let mut map = Map::new();
                    for source in self.sources(to) {
                        if let Some(Some(value)) = self.slot_of(to, source, &self.inbox[to][k]) {
                            map.insert(self.shape.nodes[source].id.clone(), value);
                        }
                    }
                    fire = Some(Value::Object(map));
                } else if all_in && !fired && arrived == 0 {
                    skipped = true;
                } else if all_in && !fired {
                    self.inbox[to].remove(k);
                    return Err(Halt::NodeFailed {
                        node: self.shape.nodes[to].id.clone(),
                        error: format!(
                            "its quorum of {} was not met: {arrived} of {slots} inputs arrived, the rest were skipped",
                            quorum_of(wait)
                        ),
                    });
                }
            }
            _ => match brought {
                Some(value) if !fired => fire = Some(value),
                _ if all_in && !fired => skipped = true,
                _ => {}
            },
        }
        if fire.is_some() {
            self.inbox[to][k].fired = true;
        }
        if all_in {
            self.inbox[to].remove(k);
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
