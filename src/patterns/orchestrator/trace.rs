//! The orchestrator's part of a run's trace: the planner's model call in
//! a plan span, each dispatch wave a span holding its tasks' worker calls
//! until the last of them is done, the aggregate's health on the root.

use crate::patterns::orchestrator::events::TaskEvent;
use crate::scenario::PatternKind;
use crate::telemetry::names as n;
use crate::telemetry::{ROOT, SpanNo, TraceSpans, wire};
use std::collections::{HashMap, HashSet};

/// The orchestrator's own attribute, beside the shared ones in
/// `telemetry::names`: the number of a dispatch wave.
pub(crate) const WAVE: &str = "conclave.wave";

/// The orchestrator's open spans.
#[derive(Debug, Default)]
pub(crate) struct OrchestrationSpans {
    plan: Option<SpanNo>,
    /// The planner has answered: later model calls are not the plan's.
    planned: bool,
    waves: Vec<Wave>,
    /// The wave each task was dispatched in.
    task_wave: HashMap<String, SpanNo>,
}

#[derive(Debug)]
struct Wave {
    no: SpanNo,
    /// Tasks of the wave that have not finished.
    pending: HashSet<String>,
}

impl OrchestrationSpans {
    /// Fold in an orchestrator's event.
    pub(crate) fn apply(&mut self, trace: &mut TraceSpans<'_>, event: &TaskEvent, t: u64) {
        match event {
            TaskEvent::PlanAccepted { tasks } => {
                self.planned = true;
                if let Some(no) = self.plan.take() {
                    trace.set(no, n::TASKS, tasks.len() as u64);
                    trace.end(no, t);
                }
            }
            TaskEvent::PlanRejected { reason, raw } => {
                self.planned = true;
                if let Some(no) = self.plan.take() {
                    trace.end_rejected(no, reason, raw, t);
                }
            }
            TaskEvent::WaveStarted { wave, tasks } => {
                let no = trace.open(ROOT, format!("wave {wave}"), t);
                trace.set(no, WAVE, *wave);
                trace.set(no, n::TASKS, tasks.len() as u64);
                for task in tasks {
                    self.task_wave.insert(task.clone(), no);
                }
                self.waves.push(Wave {
                    no,
                    pending: tasks.iter().cloned().collect(),
                });
            }
            TaskEvent::TaskFinished {
                task,
                worker,
                status,
                ..
            } => {
                trace.end_task_call(task, worker, &wire(status), t);
                // A wave lasts until the last of its tasks is done.
                let done = self
                    .waves
                    .iter_mut()
                    .find_map(|w| (w.pending.remove(task) && w.pending.is_empty()).then_some(w.no));
                if let Some(no) = done {
                    trace.end(no, t);
                }
            }
            TaskEvent::Aggregated { health, .. } => {
                trace.set(ROOT, n::HEALTH, wire(health));
            }
            TaskEvent::TaskQueued { .. } => {}
        }
    }

    /// The plan span a model call labelled `label` belongs to, opened at
    /// run time `t` for the planner's first call.
    pub(crate) fn model_parent(
        &mut self,
        trace: &mut TraceSpans<'_>,
        label: &str,
        t: u64,
    ) -> Option<SpanNo> {
        if trace.pattern() != Some(PatternKind::Orchestrator) || label != "plan" || self.planned {
            return None;
        }
        Some(match self.plan {
            Some(plan) => plan,
            None => {
                let plan = trace.open(ROOT, n::SPAN_PLAN.into(), t);
                self.plan = Some(plan);
                plan
            }
        })
    }

    /// The wave a tool call for `task` belongs to.
    pub(crate) fn tool_parent(&self, task: &str) -> Option<SpanNo> {
        self.task_wave.get(task).copied()
    }

    /// Span `no` has ended.
    pub(crate) fn forget(&mut self, no: SpanNo) {
        if self.plan == Some(no) {
            self.plan = None;
        }
        self.waves.retain(|w| w.no != no);
        self.task_wave.retain(|_, s| *s != no);
    }
}
