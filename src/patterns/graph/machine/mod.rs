//! The graph's rules as a state machine, with no clock and no calls: the
//! runner starts what it hands out as ready, and tells it how each node
//! ended; it answers with the edges it evaluated, the nodes that fired or
//! were skipped, and the run's stop. Pure, so every rule is a table test.
//!
//! - What flows along an edge is its source's output; a join's output maps
//!   each input that arrived to its output, in the order it lists them.
//! - A router's edges are tried in declaration order, the first match
//!   taken, else its default; the others send "skipped" on. A node whose
//!   out-edges carry no condition sends along all of them.
//! - A node that is not a join fires at the first input that arrives, and
//!   is skipped when all its inputs of the pass were skipped (the lint
//!   makes sure two of them never both arrive). A join counts its inputs
//!   per pass: `all` fires once each has arrived or was skipped, `any` at
//!   the first arrival, a quorum at its n-th; it re-arms once all its
//!   inputs of the pass are in. A skipped node sends "skipped" on, so joins
//!   below it resolve instead of waiting; a node skipped while an earlier
//!   pass's activation of it is still ready or running sends its
//!   "skipped" on once that activation has ended, so what a node sends
//!   goes out in the order of its passes and no later pass's "skipped"
//!   overtakes an earlier pass's output.
//! - Edges that close a cycle carry no "skipped": a loop that is not taken
//!   simply ends. A router that takes its loop again sends nothing along
//!   its other edges: the pass goes on round the loop, and they are
//!   decided when it leaves.
//! - The run ends when nothing is ready or running: `completed` when an
//!   end node was reached and no join still waits, else `stalled`, naming
//!   each join that waits and the inputs it waits on.

use super::condition::Checked;
use super::shape::{EdgeId, Kind, NodeId, Shape};
use super::spec::{Merge, NodeStatus, Unmatched};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, VecDeque};

mod arrive;
mod cycle;
mod passes;
mod route;

/// Where a node stands, as the graph pane colours it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NodeState {
    Waiting,
    Ready,
    Running,
    Done,
    Skipped,
    Failed,
}

/// A node handed to the runner to start.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Activation {
    pub(crate) node: NodeId,
    /// Its visit: 1 the first time it runs.
    pub(crate) visit: u32,
    pub(crate) input: Value,
}

/// How a node the runner started ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ended {
    /// Its validated output, and a person's answer when it asked one.
    Ok {
        output: Value,
        answer: Option<String>,
    },
    Failed {
        error: String,
    },
}

/// One edge as evaluated when its source ended.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Evaluated {
    pub(crate) edge: EdgeId,
    pub(crate) checked: Vec<Checked>,
    pub(crate) taken: bool,
}

/// What the run learnt from one node's end.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Step {
    pub(crate) evaluated: Vec<Evaluated>,
    /// Nodes skipped, in the order the "skipped" reached them.
    pub(crate) skipped: Vec<NodeId>,
    /// Every join an input or a "skipped" reached, however far down, in
    /// declaration order: their barriers changed.
    pub(crate) joins: Vec<NodeId>,
}

/// Why a run stopped (its stop reasons, each naming what it is about).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Halt {
    Completed,
    MaxSteps {
        limit: u32,
    },
    MaxVisits {
        node: String,
        cycle: String,
        limit: u32,
    },
    NoRoute {
        node: String,
        values: Vec<String>,
    },
    Stalled {
        waiting: Vec<(String, Vec<String>)>,
    },
    NodeFailed {
        node: String,
        error: String,
    },
}

/// A node's inputs of one pass: what each forward in-edge brought (its
/// source's output, or `None` for "skipped"), by its place in the node's
/// forward in-edges. The k-th arrival along an edge belongs to the k-th
/// open pass, so a loop's passes never mix.
#[derive(Clone, Debug)]
struct Pass {
    got: Vec<Option<Option<Value>>>,
    fired: bool,
}

pub(crate) struct Machine<'a> {
    shape: &'a Shape,
    unmatched: Unmatched,
    pub(crate) state: Value,
    pub(crate) visits: Vec<u32>,
    pub(crate) states: Vec<NodeState>,
    steps: u32,
    /// Each node's open passes, oldest first.
    inbox: Vec<VecDeque<Pass>>,
    /// Ready nodes, started in declaration order, each with its inputs
    /// in the order they came: a node made ready again while its last
    /// activation still runs starts once that activation has ended.
    ready: BTreeSet<NodeId>,
    inputs: Vec<VecDeque<Value>>,
    /// Nodes with an activation running.
    active: Vec<bool>,
    /// Each node's activations that have ended.
    finished: Vec<u32>,
    /// Each node's "skipped" held behind its activations, oldest first:
    /// each goes on once that many of the node's activations have ended.
    held: Vec<VecDeque<u32>>,
    running: usize,
    ended: bool,
}

impl<'a> Machine<'a> {
    pub(crate) fn new(shape: &'a Shape, unmatched: Unmatched, input: Value) -> Self {
        let n = shape.nodes.len();
        let state: Map<String, Value> = shape
            .merge
            .iter()
            .map(|(key, merge)| {
                let empty = match merge {
                    Merge::Append => Value::Array(Vec::new()),
                    Merge::Replace => Value::Null,
                };
                (key.clone(), empty)
            })
            .collect();
        let mut machine = Machine {
            shape,
            unmatched,
            state: Value::Object(state),
            visits: vec![0; n],
            states: vec![NodeState::Waiting; n],
            steps: 0,
            inbox: vec![VecDeque::new(); n],
            ready: BTreeSet::new(),
            inputs: vec![VecDeque::new(); n],
            active: vec![false; n],
            finished: vec![0; n],
            held: vec![VecDeque::new(); n],
            running: 0,
            ended: false,
        };
        machine.make_ready(shape.entry, input);
        machine
    }

    fn make_ready(&mut self, node: NodeId, input: Value) {
        if !self.active[node] {
            self.states[node] = NodeState::Ready;
        }
        self.inputs[node].push_back(input);
        self.ready.insert(node);
    }

    /// The ready nodes, started now in declaration order (one activation
    /// of each that is not running already), and the stop raised when the
    /// next of them would pass `max_steps` or its `max_visits`: the
    /// activations before it did start, so the runner starts them before
    /// it stops.
    pub(crate) fn start_ready(&mut self) -> (Vec<Activation>, Option<Halt>) {
        let mut started = Vec::new();
        let free: Vec<NodeId> = self
            .ready
            .iter()
            .copied()
            .filter(|&n| !self.active[n])
            .collect();
        for node in free {
            if let Some(halt) = self.limit_of(node) {
                return (started, Some(halt));
            }
            let input = self.inputs[node].pop_front().unwrap_or(Value::Null);
            if self.inputs[node].is_empty() {
                self.ready.remove(&node);
            }
            self.steps += 1;
            self.visits[node] += 1;
            self.running += 1;
            self.active[node] = true;
            self.states[node] = NodeState::Running;
            started.push(Activation {
                node,
                visit: self.visits[node],
                input,
            });
        }
        (started, None)
    }

    /// The stop starting `node` now would raise: `max_steps` first, then
    /// the node's `max_visits`.
    fn limit_of(&self, node: NodeId) -> Option<Halt> {
        if self.steps >= self.shape.max_steps {
            return Some(Halt::MaxSteps {
                limit: self.shape.max_steps,
            });
        }
        let limit = self.shape.nodes[node].spec.max_visits?;
        (self.visits[node] >= limit).then(|| Halt::MaxVisits {
            node: self.shape.nodes[node].id.clone(),
            cycle: self.cycle_of(node),
            limit,
        })
    }

    /// Nothing is ready or running: the run is over.
    pub(crate) fn idle(&self) -> bool {
        self.ready.is_empty() && self.running == 0
    }

    /// The run's end once idle: completed, or stalled naming each join
    /// that waits (a node that is not a join never waits: it fires at its
    /// first input, or is skipped).
    pub(crate) fn outcome(&self) -> Halt {
        let waiting: Vec<(String, Vec<String>)> = (0..self.shape.nodes.len())
            .filter(|&n| matches!(self.shape.nodes[n].kind, Kind::Join { .. }))
            .filter_map(|n| {
                let pass = self.open(n)?;
                Some((self.shape.nodes[n].id.clone(), self.missing(n, pass)))
            })
            .collect();
        if waiting.is_empty() && self.ended {
            Halt::Completed
        } else {
            Halt::Stalled { waiting }
        }
    }

    /// Node `node`, started earlier, ended so.
    pub(crate) fn finish(&mut self, node: NodeId, ended: Ended) -> Result<Step, Halt> {
        debug_assert!(self.active[node], "only a started node finishes");
        self.running = self.running.saturating_sub(1);
        self.active[node] = false;
        self.finished[node] += 1;
        let mut step = Step::default();
        let (output, answer, status) = match ended {
            Ended::Ok { output, answer } => (output, answer, NodeStatus::Ok),
            Ended::Failed { error } => {
                self.states[node] = NodeState::Failed;
                if !self.routes_on_status(node) {
                    return Err(Halt::NodeFailed {
                        node: self.shape.nodes[node].id.clone(),
                        error,
                    });
                }
                (Value::Null, None, NodeStatus::Failed)
            }
        };
        if status == NodeStatus::Ok {
            self.states[node] = NodeState::Done;
            self.write(node, &output);
        }
        if matches!(self.shape.nodes[node].kind, Kind::End) {
            self.ended = true;
        }
        let taken = self.route(node, &output, answer.as_deref(), status, &mut step)?;
        // A loop taken again defers the pass: the edges it did not take
        // are decided when the loop leaves, so they send nothing yet.
        let looping = taken.iter().any(|&e| self.shape.edges[e].back);
        for &e in &self.shape.out[node] {
            if taken.contains(&e) {
                self.deliver(e, Some(output.clone()), &mut step)?;
            } else if !self.shape.edges[e].back && !looping {
                self.deliver(e, None, &mut step)?;
            }
        }
        self.release_held(node, &mut step)?;
        if self.ready.contains(&node) {
            // Made ready again while it ran: it starts next.
            self.states[node] = NodeState::Ready;
        }
        step.joins.sort_unstable();
        step.joins.dedup();
        Ok(step)
    }

    /// The node's writes into the shared state, each by its key's merge.
    fn write(&mut self, node: NodeId, output: &Value) {
        let spec = &self.shape.nodes[node].spec;
        let mut writes: Vec<(String, Value)> = spec
            .write
            .iter()
            .map(|(key, pointer)| {
                (
                    key.clone(),
                    output.pointer(pointer).cloned().unwrap_or(Value::Null),
                )
            })
            .collect();
        if let Some(key) = &spec.collect {
            writes.push((key.clone(), output.clone()));
        }
        for (key, value) in writes {
            let merge = self
                .shape
                .merge
                .get(&key)
                .copied()
                .unwrap_or(Merge::Replace);
            let slot = &mut self.state[key.as_str()];
            match (merge, value) {
                (Merge::Replace, value) => *slot = value,
                (Merge::Append, value) => {
                    if !slot.is_array() {
                        *slot = Value::Array(Vec::new());
                    }
                    let list = slot.as_array_mut().expect("made a list above");
                    match value {
                        Value::Array(items) => list.extend(items),
                        one => list.push(one),
                    }
                }
            }
        }
    }
}
