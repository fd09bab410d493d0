//! The graph's runner: drives the [`Machine`] on the run's clock. Every
//! node the machine hands out as ready starts at once (no superstep
//! barrier), each after the gate `step N`, so that pausing and stepping go
//! one activation at a time. Activations run beside each other; those that
//! end at the same instant are settled in declaration order, whatever
//! order their timers fired in, so two runs and a replay publish the same
//! events in the same order. Each end is told to the machine, and what it
//! decided (writes, edges with their checks, skips, joins) is published.

mod node;
pub(crate) mod output;
mod settle;
mod team;

use super::events::{GraphNodeKind, PlannedEdge, PlannedNode, graph_json};
use super::machine::{Halt, Machine};
use super::result::GraphResult;
use super::shape::{Kind, NodeId, Shape, compile};
use super::spec::Wait;
use super::stops::GraphStop;
use crate::bus::{Bus, GatePoint, RunStatus, RunSummary};
use crate::control::SharedGate;
use crate::gateway::{DispatchLimits, Gateway, TimeoutFrom, ToolPolicy};
use crate::patterns::graph::events::GraphEvent;
use crate::patterns::in_flight::InFlight;
use crate::patterns::team::agent::NodeTurns;
use crate::patterns::{RunContext, RunOutcome};
use crate::provider::prompts::{Prompt, compiled_in};
use crate::provider::shared_facts::SharedFacts;
use crate::scenario::{DEFAULT_MAX_SECONDS, JsonPath, Scenario};
use crate::stop::StopReason;
use indexmap::IndexMap;
use node::Outcome;
use serde_json::{Value, json};
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

/// The system prompt of an agent node's call (and of a map's items).
pub(crate) const NODE_PROMPT: Prompt = compiled_in!("graph_node.md", json);

/// What the activations share: the run's scenario, bus, gate and gateway,
/// and the compiled graph.
pub(super) struct Desk<'a> {
    scenario: &'a Scenario,
    goal: &'a str,
    bus: &'a Bus,
    gate: &'a SharedGate<'a>,
    gateway: &'a Gateway,
    shape: &'a Shape,
    /// The turn order the team nodes' teams share.
    turns: NodeTurns,
    /// Tools are called once, with no timeout of the pattern's own (a
    /// `resilience` section gives them retries and timeouts).
    policy: ToolPolicy,
    dispatch: DispatchLimits,
    /// Each node's fields and contract, built once for all its calls.
    calls: Vec<Arc<output::NodeCall>>,
    /// The scenario's shared facts, written once for every call.
    shared: SharedFacts,
}

/// A running node's step, visit, and the tokens and dollars its spender
/// had used when it started.
type Started = (u32, u32, (u64, f64));

/// What the run went through, for its result.
#[derive(Debug, Default)]
struct Walk {
    steps: u32,
    path: Vec<String>,
    /// Each node's last output, by node.
    outputs: Vec<Option<Value>>,
    /// Each running node's start.
    running: Vec<Option<Started>>,
}

/// How the drive ended: the machine's stop, or a shared one.
enum End {
    Halt(Halt),
    Stop(StopReason),
}

pub(crate) async fn run(ctx: RunContext) -> RunOutcome {
    let RunContext {
        scenario,
        goal,
        bus,
        mut gate,
        gateway,
        ..
    } = ctx;
    let Some(spec) = scenario.graph.as_ref() else {
        unreachable!("a graph scenario without its graph is refused at load")
    };
    let shape = compile(spec, &JsonPath::root().key("graph"))
        .unwrap_or_else(|_| unreachable!("a graph that does not compile is refused at load"));
    let gate = SharedGate::new(&mut gate);
    let desk = Desk {
        scenario: &scenario,
        goal: &goal,
        bus: &bus,
        gate: &gate,
        gateway: &gateway,
        shape: &shape,
        turns: NodeTurns::new(),
        policy: ToolPolicy {
            max_attempts: 1,
            attempt_timeout: Duration::MAX,
            timeout_from: TimeoutFrom::Deadline,
        },
        dispatch: DispatchLimits::unmetered(),
        calls: output::NodeCall::per_node(shape.nodes.iter().map(|n| &n.spec)),
        shared: SharedFacts::new(node::SHARED, &scenario.context),
    };
    let mut machine = Machine::new(&shape, spec.on_unmatched(), json!({"goal": goal}));
    let mut walk = Walk {
        outputs: vec![None; shape.nodes.len()],
        running: vec![None; shape.nodes.len()],
        ..Walk::default()
    };
    let end = desk.drive(&mut machine, &mut walk).await;
    desk.finish(&machine, walk, end)
}

impl Desk<'_> {
    /// The run's time budget.
    fn max_seconds(&self) -> Duration {
        let seconds = self
            .scenario
            .budget
            .as_ref()
            .and_then(|b| b.max_seconds)
            .unwrap_or(DEFAULT_MAX_SECONDS);
        crate::duration::clamp_seconds(seconds)
    }

    async fn drive(&self, machine: &mut Machine<'_>, walk: &mut Walk) -> End {
        self.publish(planned(self.shape));
        let clock = self.bus.clock();
        let mut out_of_time = pin!(clock.sleep_until(self.max_seconds()));
        let mut running: InFlight<'_, Outcome> = InFlight::new(self.shape.nodes.len());
        loop {
            // The activations before a stop start (their gates, their
            // `node_started`, the path), then the run stops on it.
            let (ready, halt) = machine.start_ready();
            for activation in ready {
                walk.steps += 1;
                let step = walk.steps;
                let node = activation.node;
                let id = self.shape.nodes[node].id.clone();
                let at = GatePoint::Activation {
                    step,
                    node: id.clone(),
                };
                if self.gate.pass(at).await.is_err() {
                    return End::Stop(StopReason::Cancelled);
                }
                if let Some(reason) = self.gateway.spend_stop() {
                    return End::Stop(reason);
                }
                if clock.elapsed() > self.max_seconds() {
                    return End::Stop(StopReason::MaxSeconds);
                }
                let state = machine.view(node);
                let read = self.shape.nodes[node].spec.reads.is_some()
                    && matches!(self.shape.nodes[node].kind, Kind::Agent { .. });
                self.publish(GraphEvent::NodeStarted {
                    node: id.clone(),
                    visit: activation.visit,
                    step,
                    input: graph_json(&activation.input),
                    team: self.team_of(node, activation.visit),
                    read: read.then(|| graph_json(&state)),
                });
                walk.path.push(id.clone());
                walk.running[node] = Some((step, activation.visit, self.used_by(node, &id)));
                let at = (step, activation.visit);
                running.push(node, self.activate(node, at, activation.input, state));
            }
            if let Some(halt) = halt {
                return End::Halt(halt);
            }
            if running.is_empty() {
                return End::Halt(machine.outcome());
            }
            let ended = tokio::select! {
                biased;
                ended = running.next_batch() => ended,
                () = &mut out_of_time => return End::Stop(StopReason::MaxSeconds),
            };
            for (node, outcome) in ended {
                if let Err(end) = self.settle(machine, walk, node, outcome) {
                    return end;
                }
            }
            if machine.idle() {
                return End::Halt(machine.outcome());
            }
        }
    }

    /// The tokens and dollars the node `spender` has used so far: its own
    /// calls, and a team node's agents' (`NODE/AGENT`, `NODE#2/AGENT`).
    /// Each node's entry is read alone, so a map of 10,000 items does not
    /// read the whole table at each activation.
    fn used_by(&self, node: NodeId, spender: &str) -> (u64, f64) {
        match self.shape.nodes[node].kind {
            Kind::Team { .. } => self.gateway.spent_under(spender),
            _ => self.gateway.spent_by(spender),
        }
    }

    fn finish(&self, machine: &Machine<'_>, walk: Walk, end: End) -> RunOutcome {
        let (reason, details) = match end {
            End::Halt(halt) => stop_of(halt),
            End::Stop(reason) => (reason, None),
        };
        let status = if reason == StopReason::Success {
            RunStatus::Ok
        } else {
            RunStatus::Stopped
        };
        let facts = crate::stop::StopFacts {
            elapsed_ms: u64::try_from(self.bus.clock().elapsed().as_millis()).unwrap_or(u64::MAX),
            ..crate::stop::StopFacts::default()
        };
        let stop = crate::patterns::explain(crate::scenario::PatternKind::Graph, &reason, &facts);
        let nodes = &self.shape.nodes;
        let visits: IndexMap<String, u32> = nodes
            .iter()
            .zip(&machine.visits)
            .map(|(n, v)| (n.id.clone(), *v))
            .collect();
        let outputs: IndexMap<String, Value> = nodes
            .iter()
            .zip(&walk.outputs)
            .filter_map(|(n, o)| Some((n.id.clone(), o.clone()?)))
            .collect();
        let stop_reason = crate::patterns::stop_word(crate::scenario::PatternKind::Graph, &reason);
        let mut summary = RunSummary::default();
        // The answer: what the last end node reached was reached with.
        let answer = walk
            .path
            .iter()
            .rev()
            .filter_map(|id| self.shape.node(id))
            .find(|&n| matches!(nodes[n].kind, Kind::End))
            .and_then(|n| walk.outputs[n].as_ref())
            .filter(|_| reason == StopReason::Success);
        summary.set_answer(answer.map(graph_json));
        summary.put(super::figures::PATH, &walk.path);
        summary.put(super::figures::VISITS, &visits);
        summary.put(super::figures::STOP, &stop);
        summary.counts =
            crate::bus::RunCounts::of([(super::figures::ACTIVATIONS, u64::from(walk.steps))]);
        let result = GraphResult {
            pattern: "graph",
            status,
            stop_reason,
            stop,
            path: walk.path,
            visits,
            outputs,
            state: machine.state.clone(),
            details,
        };
        RunOutcome {
            error: None,
            status,
            stop_reason: reason,
            phase: None,
            result: crate::patterns::document(&result, self.gateway),
            summary,
        }
    }
}

/// A machine's stop as the run's reason, with the details the result
/// gives of it.
pub(super) fn stop_of(halt: Halt) -> (StopReason, Option<Value>) {
    match halt {
        Halt::Completed => (StopReason::Success, None),
        Halt::MaxSteps { limit } => (
            GraphStop::MaxSteps.into(),
            Some(json!({"max_steps": limit})),
        ),
        Halt::MaxVisits { node, cycle, limit } => {
            let details = json!({"cycle": {"node": node, "cycle": cycle, "max_visits": limit}});
            let cycle = cycle.replace(" → ", ">");
            (GraphStop::MaxVisits { node, cycle }.into(), Some(details))
        }
        Halt::NoRoute { node, values } => {
            let details = json!({"no_route": {"node": node, "values": values}});
            let values = values.join("; ");
            (GraphStop::NoRoute { node, values }.into(), Some(details))
        }
        Halt::Stalled { waiting } => {
            let details: Vec<Value> = waiting
                .iter()
                .map(|(join, on)| json!({"join": join, "waiting_on": on}))
                .collect();
            let words: Vec<String> = waiting
                .iter()
                .map(|(join, on)| format!("{join}<{}", on.join(",")))
                .collect();
            let waiting = words.join(";");
            (
                GraphStop::Stalled { waiting }.into(),
                Some(json!({ "waiting": details })),
            )
        }
        Halt::NodeFailed { node, error } => {
            let details = json!({"failed": {"node": node, "error": error}});
            (GraphStop::NodeFailed { node }.into(), Some(details))
        }
    }
}

/// The graph as `graph_planned` carries it.
fn planned(shape: &Shape) -> GraphEvent {
    let nodes = shape
        .nodes
        .iter()
        .map(|n| {
            let (kind, label) = match &n.kind {
                Kind::Agent { agent } => (GraphNodeKind::Agent, agent.clone()),
                Kind::Tool { tool } => (GraphNodeKind::Tool, tool.clone()),
                Kind::Team { team } => (GraphNodeKind::Team, team.clone()),
                Kind::Map { over, .. } => (GraphNodeKind::Map, over.clone()),
                Kind::Join { .. } => (GraphNodeKind::Join, String::new()),
                Kind::Human { question, .. } => (GraphNodeKind::Human, question.clone()),
                Kind::End => (GraphNodeKind::End, String::new()),
            };
            let wait = match &n.kind {
                Kind::Join { wait, .. } => Some(wait_words(wait)),
                _ => None,
            };
            PlannedNode {
                id: n.id.clone(),
                kind,
                label,
                wait,
                max_visits: n.spec.max_visits,
            }
        })
        .collect();
    let edges = shape
        .edges
        .iter()
        .map(|e| PlannedEdge {
            from: shape.nodes[e.from].id.clone(),
            to: shape.nodes[e.to].id.clone(),
            when: e.when.as_ref().map(super::condition::words),
            default: e.default,
            back: e.back,
        })
        .collect();
    GraphEvent::GraphPlanned {
        nodes,
        edges,
        max_steps: shape.max_steps,
    }
}

/// A join's rule in words: `all`, `any`, `quorum 2`.
pub(crate) fn wait_words(wait: &Wait) -> String {
    match wait {
        Wait::Named(super::spec::WaitFor::All) => "all".into(),
        Wait::Named(super::spec::WaitFor::Any) => "any".into(),
        Wait::Quorum { quorum } => format!("quorum {quorum}"),
    }
}

/// The node's id, for the settling of its end.
fn id_of(shape: &Shape, node: NodeId) -> &str {
    &shape.nodes[node].id
}
