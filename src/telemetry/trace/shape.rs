//! The trace's skeleton: rounds, contributions, the planner, dispatch
//! waves and research steps as spans (agent turns and member calls in
//! `team`), and the run-wide happenings (breakers, flags, pauses) as events
//! on the root. Also says where a call's span belongs.

use super::team::Turn;
use super::{ROOT, TraceBuilder, error_type, wire};
use crate::bus::EventKind;
use crate::bus::{ResearchEvent, RoundEvent, TaskEvent};
use crate::scenario::PatternKind;
use crate::stop::StopReason;
use crate::telemetry::names as n;
use crate::telemetry::span::{Attrs, SpanNo, SpanStatus};
use serde_json::Value;
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
    pub(super) turns: Vec<Turn>,
    /// Open member calls of a coordinator, oldest first.
    pub(super) members: Vec<(String, SpanNo)>,
    step: Option<SpanNo>,
}

#[derive(Debug)]
struct Wave {
    no: SpanNo,
    /// Tasks of the wave that have not finished.
    pending: HashSet<String>,
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
        let folded = self.apply_round_table(kind, t)
            || self.apply_orchestration(kind, t)
            || self.apply_research(kind, t)
            || self.apply_run_wide(kind, t);
        if !folded {
            self.apply_team(kind, t);
        }
    }

    /// Fold in a round table's event; whether it was one.
    fn apply_round_table(&mut self, kind: &EventKind, t: u64) -> bool {
        match kind {
            EventKind::Round(RoundEvent::RoundStarted { round, .. }) => {
                if let Some(previous) = self.shape.round {
                    self.end(previous, t);
                }
                let no = self.open_span(Some(ROOT), format!("round {round}"), t);
                self.span(no).attrs.set(n::ROUND, *round);
                self.shape.round = Some(no);
            }
            EventKind::Round(RoundEvent::ContributionRequested { round, agent }) => {
                let parent = self.shape.round.unwrap_or(ROOT);
                let no = self.agent_span(parent, agent, t);
                self.span(no).attrs.set(n::ROUND, *round);
                self.shape.contributions.insert(agent.clone(), no);
            }
            EventKind::Round(RoundEvent::ContributionAccepted {
                agent,
                stance,
                confidence,
                summary,
                actions,
                ..
            }) => {
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
            EventKind::Round(RoundEvent::ContributionRejected {
                agent, reason, raw, ..
            }) => {
                if let Some(no) = self.shape.contributions.remove(agent) {
                    self.end_rejected(no, reason, raw, t);
                }
            }
            EventKind::Round(RoundEvent::RoundFinished {
                conflicts,
                decision,
                ..
            }) => {
                if let Some(no) = self.shape.round.take() {
                    let attrs = &mut self.span(no).attrs;
                    attrs.set(n::CONFLICTS, conflicts.len() as u64);
                    if let Some(decision) = decision {
                        attrs.set(n::DECISION, decision.as_str());
                    }
                    self.end(no, t);
                }
            }
            EventKind::Round(RoundEvent::FinalizeStarted { decision }) => {
                self.span(ROOT).attrs.set(n::DECISION, decision.as_str());
            }
            _ => return false,
        }
        true
    }

    /// Fold in an orchestrator's event (its plan, waves and aggregate);
    /// whether it was one.
    fn apply_orchestration(&mut self, kind: &EventKind, t: u64) -> bool {
        match kind {
            EventKind::Tasks(TaskEvent::PlanAccepted { tasks }) => {
                self.shape.planned = true;
                if let Some(no) = self.shape.plan.take() {
                    self.span(no).attrs.set(n::TASKS, tasks.len() as u64);
                    self.end(no, t);
                }
            }
            EventKind::Tasks(TaskEvent::PlanRejected { reason, raw }) => {
                self.shape.planned = true;
                if let Some(no) = self.shape.plan.take() {
                    self.end_rejected(no, reason, raw, t);
                }
            }
            EventKind::Tasks(TaskEvent::WaveStarted { wave, tasks }) => {
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
            EventKind::Tasks(TaskEvent::TaskFinished { task, .. }) => {
                // A wave lasts until the last of its tasks is done.
                let done =
                    self.shape.waves.iter_mut().find_map(|w| {
                        (w.pending.remove(task) && w.pending.is_empty()).then_some(w.no)
                    });
                if let Some(no) = done {
                    self.end(no, t);
                }
            }
            EventKind::Tasks(TaskEvent::Aggregated { health, .. }) => {
                self.span(ROOT).attrs.set(n::HEALTH, wire(health));
            }
            _ => return false,
        }
        true
    }

    /// Fold in a research step's event or a source's; whether it was one.
    fn apply_research(&mut self, kind: &EventKind, t: u64) -> bool {
        match kind {
            EventKind::Research(ResearchEvent::ResearchStepStarted(step)) => {
                if let Some(previous) = self.shape.step.take() {
                    self.end(previous, t);
                }
                let no = self.open_span(Some(ROOT), format!("step {}", wire(&step.phase)), t);
                let attrs = &mut self.span(no).attrs;
                attrs.set(n::STEP, step.step);
                attrs.set(n::PHASE, wire(&step.phase));
                self.shape.step = Some(no);
            }
            EventKind::Research(ResearchEvent::ResearchStepFinished(step)) => {
                if let Some(no) = self.shape.step.take() {
                    self.span(no).attrs.set(n::COUNT, step.count);
                    self.end(no, t);
                }
            }
            EventKind::Research(ResearchEvent::SourceAllowed(source)) => {
                let attrs = Attrs::default().with(n::URL, source.url.as_str());
                self.event(
                    self.shape.step.unwrap_or(ROOT),
                    n::EVENT_SOURCE_ALLOWED,
                    t,
                    attrs,
                );
            }
            EventKind::Research(ResearchEvent::SourceDenied(source)) => {
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
            _ => return false,
        }
        true
    }

    /// Fold in a run-wide happening (a breaker, a flag, a pause, a human's
    /// part) as an event on the root; whether it was one.
    fn apply_run_wide(&mut self, kind: &EventKind, t: u64) -> bool {
        match kind {
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
            _ => return false,
        }
        true
    }

    /// End span `no`, whose model answer was refused with `reason`; the
    /// answer as it came (`raw`) is its content.
    fn end_rejected(&mut self, no: SpanNo, reason: &StopReason, raw: &Value, t: u64) {
        self.fail(no, reason);
        if self.content {
            self.content_event(no, t, n::OUTPUT_MESSAGES, "assistant", &raw.to_string());
        }
        self.end(no, t);
    }

    /// An `invoke_agent` span for `agent` under `parent`.
    pub(super) fn agent_span(&mut self, parent: SpanNo, agent: &str, t: u64) -> SpanNo {
        let no = self.open_span(Some(parent), format!("{} {agent}", n::OP_INVOKE_AGENT), t);
        let attrs = &mut self.span(no).attrs;
        attrs.set(n::OPERATION_NAME, n::OP_INVOKE_AGENT);
        attrs.set(n::AGENT_NAME, agent);
        no
    }

    fn gate_event(&mut self, name: &'static str, gate: &crate::bus::GatePoint, t: u64) {
        let attrs = Attrs::default().with(n::GATE, gate.to_string());
        self.event(ROOT, name, t, attrs);
    }

    /// Span `no` failed with `reason`.
    pub(super) fn fail(&mut self, no: SpanNo, reason: &StopReason) {
        let span = self.span(no);
        span.attrs.set(n::ERROR_TYPE, error_type(reason));
        span.status = SpanStatus::Error(reason.to_string());
    }
}
