//! The trace's skeleton: rounds, contributions, the planner, dispatch
//! waves, agent turns, member calls and research steps as spans, and the
//! run-wide happenings (handoffs, breakers, flags, pauses) as events on
//! the root. Also says where a call's span belongs.

use super::{ROOT, TraceBuilder, error_type, wire};
use crate::bus::{EventKind, TurnOutcome};
use crate::scenario::PatternKind;
use crate::telemetry::names as n;
use crate::telemetry::span::{Attrs, SpanNo, SpanStatus};
use std::collections::{HashMap, HashSet};

/// The open containers of the trace, by what names them in the events.
#[derive(Debug, Default)]
pub(super) struct Shape {
    round: Option<SpanNo>,
    /// The current round's open contributions, by agent.
    contributions: HashMap<String, SpanNo>,
    plan: Option<SpanNo>,
    /// The planner has answered: later model calls are not the plan's.
    planned: bool,
    waves: Vec<Wave>,
    /// The wave each task was dispatched in.
    task_wave: HashMap<String, SpanNo>,
    turns: Vec<Turn>,
    /// Open member calls of a coordinator, oldest first.
    members: Vec<(String, SpanNo)>,
    step: Option<SpanNo>,
}

#[derive(Debug)]
struct Wave {
    no: SpanNo,
    /// Tasks of the wave that have not finished.
    pending: HashSet<String>,
}

#[derive(Debug)]
struct Turn {
    no: SpanNo,
    turn: u32,
    agent: String,
}

impl Turn {
    /// What the gateway calls the turn's model and tool calls.
    fn label(&self) -> String {
        format!("turn {} · {}", self.turn, self.agent)
    }
}

impl Shape {
    /// Span `no` has ended: nothing names it any more.
    pub(super) fn forget(&mut self, no: SpanNo) {
        if self.round == Some(no) {
            self.round = None;
        }
        if self.plan == Some(no) {
            self.plan = None;
        }
        if self.step == Some(no) {
            self.step = None;
        }
        self.contributions.retain(|_, s| *s != no);
        self.waves.retain(|w| w.no != no);
        self.task_wave.retain(|_, s| *s != no);
        self.turns.retain(|t| t.no != no);
        self.members.retain(|(_, s)| *s != no);
    }
}

impl TraceBuilder {
    /// Where a model call for `agent`, labelled `label`, starting at run
    /// time `t` belongs: its contribution or turn, the planner, the
    /// research step, else the root.
    pub(super) fn model_parent(&mut self, agent: Option<&str>, label: &str, t: u64) -> SpanNo {
        if let Some(agent) = agent
            && let Some(no) = self.shape.contributions.get(agent)
        {
            return *no;
        }
        if let Some(turn) = self.shape.turns.iter().rev().find(|t| t.label() == label) {
            return turn.no;
        }
        if self.pattern == Some(PatternKind::Orchestrator) && label == "plan" && !self.shape.planned
        {
            return match self.shape.plan {
                Some(plan) => plan,
                None => {
                    let plan = self.open_span(Some(ROOT), n::SPAN_PLAN.into(), t);
                    self.shape.plan = Some(plan);
                    plan
                }
            };
        }
        self.shape.step.unwrap_or(ROOT)
    }

    /// Where a call of a tool for `task` belongs: the task's wave, the
    /// turn that asked for it, the research step, else the root.
    pub(super) fn tool_parent(&self, task: &str) -> SpanNo {
        if let Some(wave) = self.shape.task_wave.get(task) {
            return *wave;
        }
        if let Some(turn) = self.shape.turns.iter().rev().find(|t| t.label() == task) {
            return turn.no;
        }
        self.shape.step.unwrap_or(ROOT)
    }

    /// Fold in an event that is not a call's.
    pub(super) fn apply_shape(&mut self, kind: &EventKind, t: u64) {
        match kind {
            EventKind::RoundStarted { round, .. } => {
                if let Some(previous) = self.shape.round {
                    self.end(previous, t);
                }
                let no = self.open_span(Some(ROOT), format!("round {round}"), t);
                self.span(no).attrs.set(n::ROUND, *round);
                self.shape.round = Some(no);
            }
            EventKind::ContributionRequested { round, agent } => {
                let parent = self.shape.round.unwrap_or(ROOT);
                let no = self.agent_span(parent, agent, t);
                self.span(no).attrs.set(n::ROUND, *round);
                self.shape.contributions.insert(agent.clone(), no);
            }
            EventKind::ContributionAccepted {
                agent,
                stance,
                confidence,
                summary,
                actions,
                ..
            } => {
                if let Some(no) = self.shape.contributions.remove(agent) {
                    let attrs = &mut self.span(no).attrs;
                    attrs.set(n::STANCE, wire(stance));
                    attrs.set(n::CONFIDENCE, *confidence);
                    if self.content {
                        let text = std::iter::once(summary.as_str())
                            .chain(actions.iter().map(String::as_str))
                            .collect::<Vec<_>>()
                            .join("\n");
                        self.content_event(no, t, n::OUTPUT_MESSAGES, "assistant", &text);
                    }
                    self.end(no, t);
                }
            }
            EventKind::ContributionRejected {
                agent, reason, raw, ..
            } => {
                if let Some(no) = self.shape.contributions.remove(agent) {
                    self.fail(no, reason);
                    if self.content {
                        self.content_event(
                            no,
                            t,
                            n::OUTPUT_MESSAGES,
                            "assistant",
                            &raw.to_string(),
                        );
                    }
                    self.end(no, t);
                }
            }
            EventKind::RoundFinished {
                conflicts,
                decision,
                ..
            } => {
                if let Some(no) = self.shape.round.take() {
                    let attrs = &mut self.span(no).attrs;
                    attrs.set(n::CONFLICTS, conflicts.len() as u64);
                    if let Some(decision) = decision {
                        attrs.set(n::DECISION, decision.as_str());
                    }
                    self.end(no, t);
                }
            }
            EventKind::FinalizeStarted { decision } => {
                self.span(ROOT).attrs.set(n::DECISION, decision.as_str());
            }
            EventKind::PlanAccepted { tasks } => {
                self.shape.planned = true;
                if let Some(no) = self.shape.plan.take() {
                    self.span(no).attrs.set(n::TASKS, tasks.len() as u64);
                    self.end(no, t);
                }
            }
            EventKind::PlanRejected { reason, raw } => {
                self.shape.planned = true;
                if let Some(no) = self.shape.plan.take() {
                    self.fail(no, reason);
                    if self.content {
                        self.content_event(
                            no,
                            t,
                            n::OUTPUT_MESSAGES,
                            "assistant",
                            &raw.to_string(),
                        );
                    }
                    self.end(no, t);
                }
            }
            EventKind::WaveStarted { wave, tasks } => {
                let no = self.open_span(Some(ROOT), format!("wave {wave}"), t);
                let attrs = &mut self.span(no).attrs;
                attrs.set(n::WAVE, *wave);
                attrs.set(n::TASKS, tasks.len() as u64);
                for task in tasks {
                    self.shape.task_wave.insert(task.clone(), no);
                }
                self.shape.waves.push(Wave {
                    no,
                    pending: tasks.iter().cloned().collect(),
                });
            }
            EventKind::TaskFinished { task, .. } => {
                // A wave lasts until the last of its tasks is done.
                let done =
                    self.shape.waves.iter_mut().find_map(|w| {
                        (w.pending.remove(task) && w.pending.is_empty()).then_some(w.no)
                    });
                if let Some(no) = done {
                    self.end(no, t);
                }
            }
            EventKind::Aggregated { health, .. } => {
                self.span(ROOT).attrs.set(n::HEALTH, wire(health));
            }
            EventKind::TurnStarted { turn, agent } => {
                let parent = self
                    .shape
                    .members
                    .iter()
                    .rev()
                    .find(|(member, _)| member == agent)
                    .map_or(ROOT, |(_, no)| *no);
                // A turn that waited for its calls is over once they are
                // done and another turn starts outside them (a later one
                // or the run's end closes one whose calls still run).
                let over: Vec<SpanNo> = self
                    .shape
                    .turns
                    .iter()
                    .map(|t| t.no)
                    .filter(|no| {
                        !self.encloses(*no, parent)
                            && !self.open.values().any(|s| s.parent == Some(*no))
                    })
                    .collect();
                for no in over {
                    self.end(no, t);
                }
                let no = self.agent_span(parent, agent, t);
                self.span(no).attrs.set(n::TURN, *turn);
                self.shape.turns.push(Turn {
                    no,
                    turn: *turn,
                    agent: agent.clone(),
                });
            }
            EventKind::TurnFinished { turn, outcome, .. } => {
                if let Some(no) = self.turn_span(*turn) {
                    self.span(no).attrs.set(n::TURN_OUTCOME, outcome.as_str());
                    match outcome {
                        // The calls the agent asked for follow its turn's
                        // model call: the turn lasts until they are done.
                        TurnOutcome::ToolCall | TurnOutcome::CallMembers => {
                            self.span(no).done_at = Some(t);
                        }
                        TurnOutcome::Reply | TurnOutcome::Transfer => self.end(no, t),
                        failed => {
                            let span = self.span(no);
                            span.attrs.set(n::ERROR_TYPE, failed.as_str());
                            span.status = SpanStatus::Error(failed.as_str().into());
                            self.end(no, t);
                        }
                    }
                }
            }
            EventKind::TransferRequested { turn, from, to } => {
                let no = self.turn_span(*turn).unwrap_or(ROOT);
                let attrs = Attrs::default()
                    .with(n::FROM, from.as_str())
                    .with(n::TO, to.as_str())
                    .with(n::TURN, *turn);
                self.event(no, n::EVENT_TRANSFER_REQUESTED, t, attrs);
            }
            EventKind::HandoffAccepted {
                from, to, handoffs, ..
            } => {
                let attrs = Attrs::default()
                    .with(n::FROM, from.as_str())
                    .with(n::TO, to.as_str())
                    .with(n::HANDOFFS, *handoffs);
                self.event(ROOT, n::EVENT_HANDOFF, t, attrs);
            }
            EventKind::HandoffRejected {
                from,
                to,
                reason,
                handoffs,
                ..
            } => {
                let attrs = Attrs::default()
                    .with(n::FROM, from.as_str())
                    .with(n::TO, to.as_str())
                    .with(n::REASON, reason.to_string())
                    .with(n::HANDOFFS, *handoffs);
                self.event(ROOT, n::EVENT_HANDOFF_REJECTED, t, attrs);
            }
            EventKind::MemberCallStarted { turn, member, .. } => {
                let parent = self.turn_span(*turn).unwrap_or(ROOT);
                let no =
                    self.open_span(Some(parent), format!("{} {member}", n::OP_EXECUTE_TOOL), t);
                let attrs = &mut self.span(no).attrs;
                attrs.set(n::OPERATION_NAME, n::OP_EXECUTE_TOOL);
                attrs.set(n::TOOL_NAME, member.as_str());
                attrs.set(n::TURN, *turn);
                self.shape.members.push((member.clone(), no));
            }
            EventKind::MemberCallFinished {
                member,
                outcome,
                reply,
                reason,
                ..
            } => {
                let found = self.shape.members.iter().rposition(|(m, _)| m == member);
                if let Some(index) = found {
                    let (_, no) = self.shape.members.remove(index);
                    self.span(no).attrs.set(n::OUTCOME, wire(outcome));
                    if let Some(reason) = reason {
                        self.fail(no, reason);
                    }
                    if self.content
                        && let Some(reply) = reply
                    {
                        self.content_event(no, t, n::OUTPUT_MESSAGES, "assistant", reply);
                    }
                    self.end(no, t);
                }
            }
            EventKind::ResearchStepStarted(step) => {
                if let Some(previous) = self.shape.step.take() {
                    self.end(previous, t);
                }
                let no = self.open_span(Some(ROOT), format!("step {}", wire(&step.phase)), t);
                let attrs = &mut self.span(no).attrs;
                attrs.set(n::STEP, step.step);
                attrs.set(n::PHASE, wire(&step.phase));
                self.shape.step = Some(no);
            }
            EventKind::ResearchStepFinished(step) => {
                if let Some(no) = self.shape.step.take() {
                    self.span(no).attrs.set(n::COUNT, step.count);
                    self.end(no, t);
                }
            }
            EventKind::SourceAllowed(source) => {
                let attrs = Attrs::default().with(n::URL, source.url.as_str());
                self.event(
                    self.shape.step.unwrap_or(ROOT),
                    n::EVENT_SOURCE_ALLOWED,
                    t,
                    attrs,
                );
            }
            EventKind::SourceDenied(source) => {
                let attrs = Attrs::default()
                    .with(n::URL, source.url.as_str())
                    .with(n::REASON, wire(&source.reason));
                self.event(
                    self.shape.step.unwrap_or(ROOT),
                    n::EVENT_SOURCE_DENIED,
                    t,
                    attrs,
                );
            }
            EventKind::BreakerTransition {
                tool,
                from,
                to,
                reason,
            } => {
                let attrs = Attrs::default()
                    .with(n::TOOL, tool.as_str())
                    .with(n::FROM, wire(from))
                    .with(n::TO, wire(to))
                    .with(n::REASON, wire(reason));
                self.event(ROOT, n::EVENT_BREAKER, t, attrs);
            }
            EventKind::FlagChanged { name, on } => {
                let attrs = Attrs::default()
                    .with(n::FLAG, name.as_str())
                    .with(n::ON, *on);
                self.event(ROOT, n::EVENT_FLAG_CHANGED, t, attrs);
            }
            EventKind::Paused { gate } => self.gate_event(n::EVENT_PAUSED, gate, t),
            EventKind::Resumed { gate } => self.gate_event(n::EVENT_RESUMED, gate, t),
            EventKind::Stepped { gate } => self.gate_event(n::EVENT_STEPPED, gate, t),
            EventKind::EscalatedToHuman { round, .. } => {
                let attrs = Attrs::default().with(n::ROUND, *round);
                self.event(ROOT, n::EVENT_ESCALATED, t, attrs);
            }
            EventKind::HumanDecided { choice, .. } => {
                let attrs = Attrs::default().with(n::CHOICE, wire(choice));
                self.event(ROOT, n::EVENT_HUMAN_DECIDED, t, attrs);
            }
            _ => {}
        }
    }

    /// An `invoke_agent` span for `agent` under `parent`.
    fn agent_span(&mut self, parent: SpanNo, agent: &str, t: u64) -> SpanNo {
        let no = self.open_span(Some(parent), format!("{} {agent}", n::OP_INVOKE_AGENT), t);
        let attrs = &mut self.span(no).attrs;
        attrs.set(n::OPERATION_NAME, n::OP_INVOKE_AGENT);
        attrs.set(n::AGENT_NAME, agent);
        no
    }

    fn turn_span(&self, turn: u32) -> Option<SpanNo> {
        self.shape
            .turns
            .iter()
            .rev()
            .find(|t| t.turn == turn)
            .map(|t| t.no)
    }

    fn gate_event(&mut self, name: &'static str, gate: &crate::bus::GatePoint, t: u64) {
        let attrs = Attrs::default().with(n::GATE, gate.to_string());
        self.event(ROOT, name, t, attrs);
    }

    /// Span `no` failed with `reason`.
    pub(super) fn fail(&mut self, no: SpanNo, reason: &crate::stop::StopReason) {
        let span = self.span(no);
        span.attrs.set(n::ERROR_TYPE, error_type(reason));
        span.status = SpanStatus::Error(reason.to_string());
    }
}
