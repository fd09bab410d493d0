//! The orchestrator's state: one row per planned task in plan order, each
//! with its attempts, folded from the dispatch events; the run's retries and
//! health.

use super::durations::Durations;
use crate::bus::{BudgetKind, CallOutcome, EventKind};
use crate::patterns::events::PatternEvent;
use crate::patterns::events::TaskEvent;
use crate::patterns::events::{Health, TaskStatus};
use crate::stop::StopReason;
use crate::tui::patterns::folding::Fold;
use crate::tui::state::outcome::Outcome;
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workers {
    /// Plan order, which never changes once the plan is accepted. Kept in
    /// persistent collections: a replay's checkpoints of a 100,000-task run
    /// share what did not change between them rather than each holding a
    /// copy of every row.
    pub tasks: imbl::Vector<TaskView>,
    index: imbl::HashMap<String, usize>,
    /// Why the plan was refused, when it was.
    pub(crate) plan_rejected: Option<StopReason>,
    pub(crate) retries: u64,
    pub(crate) health: Option<Health>,
    /// Dispatch waves started so far.
    pub(crate) waves: u32,
    /// The dispatch budget as last counted: used and its limit.
    pub(crate) dispatches: Option<(u64, u64)>,
    /// Tasks in each state, kept as states change so that a frame of a
    /// 100,000-task run does not count them: queued, running, retrying,
    /// done, failed.
    by_state: [usize; 5],
    /// Each task's state as its [`bucket`], in plan order: a frame of a
    /// large plan orders and filters its rows from these bytes, never
    /// touching the rows it does not draw.
    buckets: Vec<u8>,
    /// The widest task id and worker name, in characters.
    widest: (usize, usize),
    /// How long the finished attempts took.
    durations: Durations,
}

/// A plan longer than this is read from its counts, its durations and its
/// active and failed tasks, not row by row in plan order.
pub(crate) const LARGE_PLAN: usize = 200;

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
    /// Its result is the worker's last good answer, served while the
    /// worker failed fast (`last_known_good`).
    pub(crate) stale: bool,
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

/// Where a state is counted in [`Workers::counts`]: its bucket.
pub(crate) const QUEUED: u8 = 0;
pub(crate) const RUNNING: u8 = 1;
pub(crate) const RETRYING: u8 = 2;
pub(crate) const DONE: u8 = 3;
pub(crate) const FAILED: u8 = 4;

pub(crate) fn bucket(state: &TaskState) -> u8 {
    match state {
        TaskState::Planned | TaskState::Queued => QUEUED,
        TaskState::Running { .. } => RUNNING,
        TaskState::Retrying { .. } => RETRYING,
        TaskState::Done => DONE,
        TaskState::Failed { .. } => FAILED,
    }
}

impl Workers {
    fn task(&mut self, id: &str, worker: &str) -> &mut TaskView {
        let index = self.index_of(id, worker);
        &mut self.tasks[index]
    }

    /// Task `id`'s row, added (planned) when it has none yet.
    fn index_of(&mut self, id: &str, worker: &str) -> usize {
        match self.index.get(id) {
            Some(i) => *i,
            None => {
                self.by_state[usize::from(QUEUED)] += 1;
                self.buckets.push(QUEUED);
                self.widest.0 = self.widest.0.max(id.chars().count());
                self.widest.1 = self.widest.1.max(worker.chars().count());
                self.tasks.push_back(TaskView {
                    id: id.to_string(),
                    worker: worker.to_string(),
                    critical: false,
                    max_attempts: 1,
                    state: TaskState::Planned,
                    attempts: Vec::new(),
                    result: None,
                    stale: false,
                });
                self.index.insert(id.to_string(), self.tasks.len() - 1);
                self.tasks.len() - 1
            }
        }
    }

    /// Move task `index` to `state`, keeping the counts.
    fn set_state(&mut self, index: usize, state: TaskState) {
        let task = &mut self.tasks[index];
        self.by_state[usize::from(bucket(&task.state))] -= 1;
        self.by_state[usize::from(bucket(&state))] += 1;
        self.buckets[index] = bucket(&state);
        task.state = state;
    }

    /// Each task's [`bucket`], in plan order.
    pub(crate) fn buckets(&self) -> &[u8] {
        &self.buckets
    }

    /// How many tasks are in `bucket`.
    pub(crate) fn in_bucket(&self, bucket: u8) -> usize {
        self.by_state[usize::from(bucket)]
    }

    /// How many tasks are in each state: (queued, running, retrying, done, failed).
    pub(crate) fn counts(&self) -> (usize, usize, usize, usize, usize) {
        let [queued, running, retrying, done, failed] = self.by_state;
        (queued, running, retrying, done, failed)
    }

    /// The widest task id and worker name, in characters.
    pub(crate) fn widest(&self) -> (usize, usize) {
        self.widest
    }

    /// How long the finished attempts took.
    pub(crate) fn durations(&self) -> &Durations {
        &self.durations
    }

    /// The plan is too long to read row by row ([`LARGE_PLAN`]).
    pub(crate) fn is_large(&self) -> bool {
        self.tasks.len() > LARGE_PLAN
    }
}

impl Workers {
    /// Attempt `attempt` of the task at `index` began at `t_ms`.
    fn attempt_started(&mut self, index: usize, attempt: u32, t_ms: u64, timeout_ms: u64) {
        self.set_state(
            index,
            TaskState::Running {
                attempt,
                started_ms: t_ms,
                timeout_ms,
            },
        );
        self.tasks[index].attempts.push(Attempt {
            attempt,
            started_ms: t_ms,
            timeout_ms,
            outcome: None,
            elapsed_ms: None,
            reason: None,
        });
    }

    /// Attempt `attempt` of the task at `index` ended after `elapsed_ms`.
    fn attempt_finished(
        &mut self,
        index: usize,
        attempt: u32,
        outcome: CallOutcome,
        elapsed_ms: u64,
        reason: &Option<StopReason>,
    ) {
        let task = &mut self.tasks[index];
        if let Some(record) = task
            .attempts
            .iter_mut()
            .rev()
            .find(|a| a.attempt == attempt)
        {
            record.outcome = Some(outcome);
            record.elapsed_ms = Some(elapsed_ms);
            record.reason = reason.clone();
        }
        self.durations.add(elapsed_ms);
    }
}

impl Workers {
    /// Fold one of the orchestrator's own events.
    fn apply_task(&mut self, event: &TaskEvent) {
        match event {
            TaskEvent::PlanAccepted { tasks } => {
                for planned in tasks.iter() {
                    let task = self.task(&planned.id, &planned.worker);
                    task.critical = planned.critical;
                }
            }
            TaskEvent::PlanRejected { reason, .. } => self.plan_rejected = Some(reason.clone()),
            TaskEvent::TaskQueued {
                task,
                worker,
                critical,
                max_attempts,
            } => {
                let index = self.index_of(task, worker);
                let task = &mut self.tasks[index];
                task.critical = *critical;
                task.max_attempts = *max_attempts;
                self.set_state(index, TaskState::Queued);
            }
            TaskEvent::TaskFinished {
                task,
                worker,
                status,
                stop_reason,
                result,
                ..
            } => {
                let index = self.index_of(task, worker);
                let state = match status {
                    TaskStatus::Done => TaskState::Done,
                    TaskStatus::Failed => TaskState::Failed {
                        reason: stop_reason.clone(),
                    },
                };
                self.set_state(index, state);
                self.tasks[index].result = result.clone();
            }
            TaskEvent::Aggregated { health, .. } => self.health = Some(*health),
            TaskEvent::WaveStarted { wave, .. } => self.waves = *wave,
        }
    }
}

impl Fold for Workers {
    /// Fold one orchestrator event at run time `t_ms`; others are ignored.
    fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            EventKind::Pattern(PatternEvent::Tasks(event)) => self.apply_task(event),
            EventKind::AttemptStarted {
                task,
                worker,
                attempt,
                max_attempts,
                timeout_ms,
            } => {
                let index = self.index_of(task, worker);
                self.tasks[index].max_attempts = *max_attempts;
                self.attempt_started(index, *attempt, t_ms, *timeout_ms);
            }
            EventKind::AttemptFinished {
                task,
                worker,
                attempt,
                outcome,
                elapsed_ms,
                reason,
            } => {
                let index = self.index_of(task, worker);
                self.attempt_finished(index, *attempt, *outcome, *elapsed_ms, reason);
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
                let index = self.index_of(task, tool);
                self.set_state(
                    index,
                    TaskState::Retrying {
                        attempt: *attempt,
                        since_ms: t_ms,
                        delay_ms: *delay_ms,
                    },
                );
            }
            EventKind::FallbackServed {
                task: Some(task),
                tool,
                ..
            } => {
                let index = self.index_of(task, tool);
                self.tasks[index].stale = true;
            }
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
        for index in 0..self.tasks.len() {
            if matches!(
                self.tasks[index].state,
                TaskState::Running { .. } | TaskState::Retrying { .. }
            ) {
                self.set_state(index, TaskState::Failed { reason: None });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::events::PatternEvent;

    /// The counts from the rows, checking each row's bucket on the way.
    fn recount(workers: &Workers) -> (usize, usize, usize, usize, usize) {
        let mut by_state = [0; 5];
        assert_eq!(workers.buckets().len(), workers.tasks.len());
        for (task, kept) in workers.tasks.iter().zip(workers.buckets()) {
            assert_eq!(*kept, bucket(&task.state), "{}", task.id);
            by_state[usize::from(bucket(&task.state))] += 1;
        }
        let [queued, running, retrying, done, failed] = by_state;
        (queued, running, retrying, done, failed)
    }

    fn queued(task: &str) -> EventKind {
        EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskQueued {
            task: task.into(),
            worker: "payments_worker".into(),
            critical: false,
            max_attempts: 2,
        }))
    }

    fn started(task: &str, attempt: u32) -> EventKind {
        EventKind::AttemptStarted {
            task: task.into(),
            worker: "payments_worker".into(),
            attempt,
            max_attempts: 2,
            timeout_ms: 2000,
        }
    }

    fn finished(task: &str, status: TaskStatus) -> EventKind {
        EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished {
            task: task.into(),
            worker: "payments_worker".into(),
            status,
            attempts_used: 1,
            stop_reason: None,
            result: None,
        }))
    }

    #[test]
    fn the_counts_kept_as_states_change_equal_counting_the_tasks() {
        let mut workers = Workers::default();
        let events = [
            queued("t1"),
            queued("t2"),
            queued("t3"),
            queued("a_much_longer_task_id"),
            started("t1", 1),
            started("t2", 1),
            EventKind::RetryScheduled {
                tool: "payments_worker".into(),
                task: Some("t2".into()),
                attempt: 2,
                delay_ms: 500,
                after: StopReason::TaskTimeout,
            },
            finished("t1", TaskStatus::Done),
            started("t3", 1),
            // A task seen first by its start is planned, then running.
            started("t4", 1),
        ];
        for (t, event) in events.iter().enumerate() {
            workers.apply(event, t as u64);
            assert_eq!(workers.counts(), recount(&workers), "after event {t}");
        }
        assert_eq!(workers.counts(), (1, 2, 1, 1, 0));
        workers.apply(&finished("t3", TaskStatus::Failed), 20);
        assert_eq!(workers.counts(), (1, 1, 1, 1, 1));
        workers.close(&Outcome {
            status: crate::bus::RunStatus::Stopped,
            stop_reason: StopReason::Cancelled,
            phase: None,
            result: std::sync::Arc::new(Value::Null.into()),
            summary: Default::default(),
            error: None,
            shown: Default::default(),
        });
        assert_eq!(workers.counts(), recount(&workers));
        assert_eq!(
            workers.counts(),
            (1, 0, 0, 1, 3),
            "running and retrying fail at the end"
        );
        assert_eq!(
            workers.widest(),
            ("a_much_longer_task_id".len(), "payments_worker".len())
        );
    }
}
