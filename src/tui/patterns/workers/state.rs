//! The orchestrator's state: one row per planned task in plan order, each
//! with its attempts, folded from the dispatch events; the run's retries and
//! health.

use crate::bus::{BudgetKind, CallOutcome, EventKind, Health, TaskStatus};
use crate::stop::StopReason;
use crate::tui::patterns::fold::Fold;
use crate::tui::state::outcome::Outcome;
use serde_json::Value;
use std::collections::HashMap;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workers {
    /// Plan order, which never changes once the plan is accepted.
    pub tasks: Vec<TaskView>,
    index: HashMap<String, usize>,
    /// Why the plan was refused, when it was.
    pub(crate) plan_rejected: Option<StopReason>,
    pub(crate) retries: u64,
    pub(crate) health: Option<Health>,
    /// Dispatch waves started so far.
    pub(crate) waves: u32,
    /// The dispatch budget as last counted: used and its limit.
    pub(crate) dispatches: Option<(u64, u64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TaskView {
    pub id: String,
    pub(crate) worker: String,
    pub(crate) critical: bool,
    /// Attempts the task may use, retries included (known once queued).
    pub(crate) max_attempts: u32,
    pub state: TaskState,
    pub(crate) attempts: Vec<Attempt>,
    /// The worker's result, once done.
    pub(crate) result: Option<Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TaskState {
    Planned,
    Queued,
    Running {
        attempt: u32,
        started_ms: u64,
        timeout_ms: u64,
    },
    /// Waiting to start `attempt` again after `delay_ms`.
    Retrying {
        attempt: u32,
        since_ms: u64,
        delay_ms: u64,
    },
    Done,
    Failed {
        reason: Option<StopReason>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Attempt {
    pub(crate) attempt: u32,
    pub(crate) started_ms: u64,
    pub(crate) timeout_ms: u64,
    pub(crate) outcome: Option<CallOutcome>,
    pub(crate) elapsed_ms: Option<u64>,
    pub(crate) reason: Option<StopReason>,
}

impl Workers {
    fn task(&mut self, id: &str, worker: &str) -> &mut TaskView {
        let index = match self.index.get(id) {
            Some(i) => *i,
            None => {
                self.tasks.push(TaskView {
                    id: id.to_string(),
                    worker: worker.to_string(),
                    critical: false,
                    max_attempts: 1,
                    state: TaskState::Planned,
                    attempts: Vec::new(),
                    result: None,
                });
                self.index.insert(id.to_string(), self.tasks.len() - 1);
                self.tasks.len() - 1
            }
        };
        &mut self.tasks[index]
    }

    /// How many tasks are in each state: (queued, running, retrying, done, failed).
    pub(crate) fn counts(&self) -> (usize, usize, usize, usize, usize) {
        let mut counts = (0, 0, 0, 0, 0);
        for task in &self.tasks {
            match task.state {
                TaskState::Planned | TaskState::Queued => counts.0 += 1,
                TaskState::Running { .. } => counts.1 += 1,
                TaskState::Retrying { .. } => counts.2 += 1,
                TaskState::Done => counts.3 += 1,
                TaskState::Failed { .. } => counts.4 += 1,
            }
        }
        counts
    }
}

impl Fold for Workers {
    /// Fold one orchestrator event at run time `t_ms`; others are ignored.
    fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            EventKind::PlanAccepted { tasks } => {
                for planned in tasks {
                    let task = self.task(&planned.id, &planned.worker);
                    task.critical = planned.critical;
                }
            }
            EventKind::PlanRejected { reason, .. } => self.plan_rejected = Some(reason.clone()),
            EventKind::TaskQueued {
                task,
                worker,
                critical,
                max_attempts,
            } => {
                let task = self.task(task, worker);
                task.critical = *critical;
                task.max_attempts = *max_attempts;
                task.state = TaskState::Queued;
            }
            EventKind::AttemptStarted {
                task,
                worker,
                attempt,
                max_attempts,
                timeout_ms,
            } => {
                let task = self.task(task, worker);
                task.max_attempts = *max_attempts;
                task.state = TaskState::Running {
                    attempt: *attempt,
                    started_ms: t_ms,
                    timeout_ms: *timeout_ms,
                };
                task.attempts.push(Attempt {
                    attempt: *attempt,
                    started_ms: t_ms,
                    timeout_ms: *timeout_ms,
                    outcome: None,
                    elapsed_ms: None,
                    reason: None,
                });
            }
            EventKind::AttemptFinished {
                task,
                worker,
                attempt,
                outcome,
                elapsed_ms,
                reason,
            } => {
                let task = self.task(task, worker);
                if let Some(record) = task
                    .attempts
                    .iter_mut()
                    .rev()
                    .find(|a| a.attempt == *attempt)
                {
                    record.outcome = Some(*outcome);
                    record.elapsed_ms = Some(*elapsed_ms);
                    record.reason = reason.clone();
                }
            }
            // Only the retries of a task are the workers' (a model call's
            // retry has none).
            EventKind::RetryScheduled {
                task: Some(task),
                tool,
                attempt,
                delay_ms,
                ..
            } => {
                self.retries += 1;
                self.task(task, tool).state = TaskState::Retrying {
                    attempt: *attempt,
                    since_ms: t_ms,
                    delay_ms: *delay_ms,
                };
            }
            EventKind::TaskFinished {
                task,
                worker,
                status,
                stop_reason,
                result,
                ..
            } => {
                let task = self.task(task, worker);
                task.state = match status {
                    TaskStatus::Done => TaskState::Done,
                    TaskStatus::Failed => TaskState::Failed {
                        reason: stop_reason.clone(),
                    },
                };
                task.result = result.clone();
            }
            EventKind::Aggregated { health, .. } => self.health = Some(*health),
            EventKind::WaveStarted { wave, .. } => self.waves = *wave,
            EventKind::BudgetConsumed {
                budget: BudgetKind::Dispatches,
                used,
                limit,
            } => self.dispatches = Some((*used, *limit)),
            _ => {}
        }
    }

    /// The run ended: tasks still waiting or running will not finish.
    fn close(&mut self, _outcome: &Outcome) {
        for task in &mut self.tasks {
            if matches!(
                task.state,
                TaskState::Running { .. } | TaskState::Retrying { .. }
            ) {
                task.state = TaskState::Failed { reason: None };
            }
        }
    }
}
