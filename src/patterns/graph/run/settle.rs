//! One activation's end, told to the machine and published: the node's
//! end with what its calls used, its writes into the shared state, each of
//! its out-edges as evaluated (in declaration order, with the checks' real
//! values), the nodes a "skipped" reached, and every join an input or a
//! "skipped" reached, however far down (fired, or waiting on the rest), in
//! declaration order.

use super::node::Outcome;
use super::{Desk, End, Walk, id_of, wait_words};
use crate::patterns::graph::events::graph_json;
use crate::patterns::graph::events::{ActivationStatus, EdgeCheck, GraphEvent};
use crate::patterns::graph::machine::{Ended, Machine, NodeState, Step};
use crate::patterns::graph::shape::{Kind, NodeId};
use crate::patterns::graph::spec::Merge;
use crate::patterns::graph::stops::GraphStop;
use serde_json::Value;

impl Desk<'_> {
    pub(super) fn settle(
        &self,
        machine: &mut Machine<'_>,
        walk: &mut Walk,
        node: NodeId,
        outcome: Outcome,
    ) -> Result<(), End> {
        let id = id_of(self.shape, node).to_string();
        let (step, visit, before) = walk.running[node].take().unwrap_or_default();
        let after = self.used_by(node, &id);
        let finished =
            |status, output: &Value, answer: Option<String>, error| GraphEvent::NodeFinished {
                node: id.clone(),
                visit,
                step,
                status,
                output: graph_json(output),
                answer,
                error,
                tokens: after.0.saturating_sub(before.0),
                cost_usd: (after.1 - before.1).max(0.0),
            };
        let ended = match outcome {
            Outcome::Ok { output, answer } => {
                self.publish(finished(
                    ActivationStatus::Ok,
                    &output,
                    answer.clone(),
                    None,
                ));
                walk.outputs[node] = Some(output.clone());
                Ended::Ok { output, answer }
            }
            Outcome::Failed { error } => {
                let event = finished(
                    ActivationStatus::Failed,
                    &Value::Null,
                    None,
                    Some(error.clone()),
                );
                self.publish(event);
                Ended::Failed { error }
            }
            Outcome::Invalid { error, output } => {
                let status = ActivationStatus::InvalidOutput;
                self.publish(finished(status, &output, None, Some(error)));
                walk.outputs[node] = Some(output);
                return Err(End::Stop(GraphStop::InvalidOutput { node: id }.into()));
            }
            Outcome::Stop(reason) => return Err(End::Stop(reason)),
        };
        let written = match &ended {
            Ended::Ok { output, .. } => self.writes(node, output),
            Ended::Failed { .. } => Vec::new(),
        };
        let step = machine.finish(node, ended).map_err(End::Halt)?;
        for event in written {
            self.publish(event);
        }
        self.publish_step(machine, node, &step);
        Ok(())
    }

    /// The node's writes into the shared state, as events.
    fn writes(&self, node: NodeId, output: &Value) -> Vec<GraphEvent> {
        let spec = &self.shape.nodes[node].spec;
        let mut writes: Vec<(String, Value)> = spec
            .write
            .iter()
            .map(|(key, pointer)| {
                let value = output.pointer(pointer).cloned().unwrap_or(Value::Null);
                (key.clone(), value)
            })
            .collect();
        if let Some(key) = &spec.collect {
            writes.push((key.clone(), output.clone()));
        }
        writes
            .into_iter()
            .map(|(key, value)| {
                let merge = match self.shape.merge.get(&key) {
                    Some(Merge::Append) => "append",
                    _ => "replace",
                };
                GraphEvent::StateWritten {
                    node: spec.id.clone(),
                    key,
                    merge: merge.into(),
                    value: graph_json(&value),
                }
            })
            .collect()
    }

    /// What the machine decided at the node's end: each out-edge, the
    /// skipped nodes, the joins whose barriers changed.
    fn publish_step(&self, machine: &Machine<'_>, node: NodeId, step: &Step) {
        let shape = self.shape;
        let routes = shape.routes(node);
        for &e in &shape.out[node] {
            let edge = &shape.edges[e];
            let evaluated = step.evaluated.iter().find(|ev| ev.edge == e);
            let taken = match evaluated {
                Some(ev) => ev.taken,
                // A node that does not route sends along every edge.
                None => !routes && machine.states[node] != NodeState::Failed,
            };
            let checks = evaluated
                .map(|ev| {
                    ev.checked
                        .iter()
                        .map(|c| EdgeCheck {
                            said: c.said.clone(),
                            held: c.held,
                        })
                        .collect()
                })
                .unwrap_or_default();
            let bound = shape.nodes[edge.to].spec.max_visits.filter(|_| taken);
            self.publish(GraphEvent::EdgeEvaluated {
                from: shape.nodes[edge.from].id.clone(),
                to: shape.nodes[edge.to].id.clone(),
                checks,
                taken,
                visits: bound.map(|_| machine.visits[edge.to]),
                max_visits: bound,
            });
        }
        for &skipped in &step.skipped {
            self.publish(GraphEvent::NodeSkipped {
                node: shape.nodes[skipped].id.clone(),
            });
        }
        for &join in &step.joins {
            self.publish_join(machine, join);
        }
    }

    /// A join an input or a "skipped" reached: fired (ready with its inputs' outputs), or
    /// waiting on the rest of its inputs.
    fn publish_join(&self, machine: &Machine<'_>, join: NodeId) {
        let id = self.shape.nodes[join].id.clone();
        if machine.states[join] == NodeState::Ready
            && let Some(Value::Object(arrived)) = machine.input_of(join)
        {
            self.publish(GraphEvent::JoinFired {
                node: id,
                arrived: arrived.keys().cloned().collect(),
            });
        } else if let Some((arrived, waiting_on)) = machine.barrier(join) {
            let rule = match &self.shape.nodes[join].kind {
                Kind::Join { wait, .. } => wait_words(wait),
                _ => String::new(),
            };
            self.publish(GraphEvent::JoinWaiting {
                node: id,
                rule,
                arrived,
                waiting_on,
            });
        }
    }
}
