//! The graph run's fold over its events: the plan laid out when it is
//! published, then each activation, map progress, edge evaluation, skip,
//! join barrier and state write moves the nodes' and edges' states. A pure
//! function of the events: a replay re-folds to its cursor and the graph
//! is recoloured as of there.

use super::live::{Activation, Barrier, EdgeEval, Finished, MapProgress, NodeState};
use super::plan::{NamedEdge, Plan, PlanNode};
use super::state::GraphFold;
use crate::bus::{BudgetKind, EventKind};
use crate::patterns::events::{ActivationStatus, GraphEvent, PatternEvent};
use crate::tui::patterns::folding::Fold;
use crate::tui::state::outcome::Outcome;

impl Fold for GraphFold {
    fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            EventKind::Pattern(PatternEvent::Graph(event)) => self.graph_event(event, t_ms),
            EventKind::Pattern(PatternEvent::Team(event)) => self.team_event(event, t_ms),
            EventKind::BudgetConsumed {
                budget: BudgetKind::LlmCalls,
                ..
            } => self.team_calls(kind, t_ms),
            _ => {}
        }
    }

    fn close(&mut self, _outcome: &Outcome) {
        self.ended = true;
        self.teams_stopped();
    }
}

impl GraphFold {
    fn graph_event(&mut self, event: &GraphEvent, t_ms: u64) {
        if let GraphEvent::GraphPlanned {
            nodes,
            edges,
            max_steps,
        } = event
        {
            let scenario = self.scenario.take();
            *self = planned(nodes, edges, *max_steps);
            self.scenario = scenario;
            return;
        }
        let Some(graph) = self.graph.clone() else {
            return;
        };
        self.on_plan(&graph.plan, event, t_ms);
    }
}

fn planned(
    nodes: &[crate::patterns::events::PlannedNode],
    edges: &[crate::patterns::events::PlannedEdge],
    max_steps: u32,
) -> GraphFold {
    let nodes = nodes
        .iter()
        .map(|n| PlanNode {
            id: n.id.clone(),
            kind: n.kind.as_str().to_string(),
            label: n.label.clone(),
            wait: n.wait.clone(),
            max_visits: n.max_visits,
        })
        .collect();
    let edges = edges.iter().map(|e| NamedEdge {
        from: &e.from,
        to: &e.to,
        when: e.when.clone(),
        default: e.default,
        back: e.back,
    });
    GraphFold::planned(Plan::new(nodes, edges), max_steps)
}

impl GraphFold {
    /// An event of the run whose graph is `plan`.
    fn on_plan(&mut self, plan: &Plan, event: &GraphEvent, t_ms: u64) {
        match event {
            GraphEvent::GraphPlanned { .. } => {}
            GraphEvent::NodeStarted { node, .. } => {
                if let Some(n) = plan.node(node) {
                    self.started(n, event, t_ms);
                }
            }
            GraphEvent::HumanAsked { node, question, .. } => {
                let Some(n) = plan.node(node) else { return };
                self.nodes[n].state = NodeState::Running;
                self.asking = Some((n, question.clone()));
            }
            GraphEvent::MapProgress {
                node,
                done,
                failed,
                running,
                of,
            } => {
                let Some(n) = plan.node(node) else { return };
                self.nodes[n].map = Some(MapProgress {
                    done: u64::from(*done),
                    failed: u64::from(*failed),
                    running: u64::from(*running),
                    of: u64::from(*of),
                });
            }
            GraphEvent::NodeFinished {
                node,
                step,
                status,
                output,
                ..
            } => {
                if let Some(n) = plan.node(node) {
                    self.finished(n, event, t_ms);
                    self.team_finished(n, *step, *status, output, t_ms);
                }
            }
            GraphEvent::EdgeEvaluated { from, to, .. } => {
                if let Some(e) = plan.edge(from, to) {
                    self.evaluated(plan, e, event);
                }
            }
            GraphEvent::NodeSkipped { node } => {
                let Some(n) = plan.node(node) else { return };
                self.nodes[n].state = NodeState::Skipped;
            }
            GraphEvent::JoinWaiting {
                node,
                rule,
                arrived,
                waiting_on,
            } => {
                let Some(n) = plan.node(node) else { return };
                let live = &mut self.nodes[n];
                live.join = Some(Barrier {
                    rule: rule.clone(),
                    arrived: arrived.clone(),
                    waiting_on: waiting_on.clone(),
                    fired: false,
                });
                if live.state != NodeState::Running {
                    live.state = NodeState::Waiting;
                }
            }
            GraphEvent::JoinFired { node, arrived } => {
                let Some(n) = plan.node(node) else { return };
                let live = &mut self.nodes[n];
                let rule = live.join.take().map(|b| b.rule).unwrap_or_default();
                live.join = Some(Barrier {
                    rule,
                    arrived: arrived.clone(),
                    waiting_on: Vec::new(),
                    fired: true,
                });
                if live.state != NodeState::Running {
                    live.state = NodeState::Ready;
                }
            }
            GraphEvent::StateWritten {
                node, key, value, ..
            } => {
                let Some(n) = plan.node(node) else { return };
                if let Some(last) = self.nodes[n].activations.back_mut() {
                    last.writes.push((key.clone(), value.clone()));
                }
            }
        }
    }

    /// Activation of node `n` started (a team node's, its team's run too).
    fn started(&mut self, n: usize, event: &GraphEvent, t_ms: u64) {
        let GraphEvent::NodeStarted {
            node,
            visit,
            step,
            input,
            team,
            read,
        } = event
        else {
            return;
        };
        if let Some(team) = team {
            self.team_started(n, node, *step, input, team, t_ms);
        }
        let live = &mut self.nodes[n];
        live.state = NodeState::Running;
        live.visits = live.visits.max(*visit);
        live.activations.push_back(Activation {
            visit: *visit,
            step: *step,
            started_ms: t_ms,
            input: input.clone(),
            read: read.clone(),
            ..Activation::default()
        });
        self.last_started = Some(n);
        self.steps = self.steps.max(*step);
        self.path.push_back(n);
    }

    /// Activation of node `n` ended.
    fn finished(&mut self, n: usize, event: &GraphEvent, t_ms: u64) {
        let GraphEvent::NodeFinished {
            visit,
            step,
            status,
            output,
            answer,
            error,
            tokens,
            cost_usd,
            ..
        } = event
        else {
            return;
        };
        if self.asking.as_ref().is_some_and(|(asked, _)| *asked == n) {
            self.asking = None;
        }
        let live = &mut self.nodes[n];
        live.state = match status {
            ActivationStatus::Ok => NodeState::Done,
            ActivationStatus::Failed | ActivationStatus::InvalidOutput => NodeState::Failed,
        };
        let finished = Finished {
            ms: t_ms,
            status: status.as_str().to_string(),
            output: output.clone(),
            answer: answer.clone(),
            error: error.clone(),
            tokens: *tokens,
            cost_usd: *cost_usd,
        };
        let at = live
            .activations
            .iter()
            .rposition(|a| a.step == *step && a.visit == *visit);
        match at {
            Some(at) => live.activations[at].finished = Some(finished),
            // Its start was cut from the recording: kept all the same.
            None => live.activations.push_back(Activation {
                visit: *visit,
                step: *step,
                started_ms: t_ms,
                finished: Some(finished),
                ..Activation::default()
            }),
        }
    }

    /// Edge `e` was evaluated; a taken edge readies its target.
    fn evaluated(&mut self, plan: &Plan, e: usize, event: &GraphEvent) {
        let GraphEvent::EdgeEvaluated {
            checks,
            taken,
            visits,
            max_visits,
            ..
        } = event
        else {
            return;
        };
        self.edges[e] = Some(EdgeEval {
            checks: checks.iter().map(|c| (c.said.clone(), c.held)).collect(),
            taken: *taken,
            visits: *visits,
            max_visits: *max_visits,
        });
        let target = plan.edges[e].to;
        // A join is ready when its barrier is met, not on an arrival.
        let join = plan.nodes[target].kind == "join";
        let live = &mut self.nodes[target];
        if *taken && !join && live.state != NodeState::Running {
            live.state = NodeState::Ready;
        }
    }
}
