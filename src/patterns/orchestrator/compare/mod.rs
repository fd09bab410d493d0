//! Two orchestrator runs' task outcomes aligned by task id: the worker,
//! whether the task is critical, how it ended, the attempts it used and
//! why it failed. A task planned in one run only has nothing on the other
//! side.

mod tables;

use crate::bus::figures::Figures;
use crate::bus::{Event, EventKind, RunSummary};
use crate::compare::sections::{Cell, Tone};
use crate::compare::union;
use crate::compare::{Aligned, Alignment, CompareRules, Difference, Which};
use crate::patterns::events::PatternEvent;
use crate::patterns::orchestrator::events::Health;
use crate::patterns::orchestrator::events::TaskEvent;
use crate::patterns::orchestrator::events::TaskStatus;
use crate::stop::StopReason;
use indexmap::IndexMap;
use serde::Serialize;
use std::sync::Arc;

/// Where a task got to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TaskState {
    /// Planned, never started.
    Queued,
    /// Started, and the run ended before it did.
    Running,
    Done,
    Failed,
}

impl TaskState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            TaskState::Queued => "queued",
            TaskState::Running => "running",
            TaskState::Done => "done",
            TaskState::Failed => "failed",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TaskFacts {
    pub(crate) worker: String,
    pub(crate) critical: bool,
    pub(crate) state: TaskState,
    /// Attempts started, retries included.
    pub(crate) attempts: u32,
    pub(crate) stop_reason: Option<StopReason>,
}

/// One task in both runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TaskRow {
    pub(crate) task: String,
    /// The run that planned the task, when one only did.
    pub(crate) only_in: Option<Which>,
    pub(crate) a: Option<TaskFacts>,
    pub(crate) b: Option<TaskFacts>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TasksAligned {
    /// Tasks in plan order, `a`'s first.
    pub(crate) tasks: Vec<TaskRow>,
}

fn tasks_of(events: &[Arc<Event>]) -> IndexMap<String, TaskFacts> {
    let mut tasks: IndexMap<String, TaskFacts> = IndexMap::new();
    for event in events {
        match &event.kind {
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::PlanAccepted { tasks: planned })) => {
                for task in planned.iter() {
                    tasks.entry(task.id.clone()).or_insert(TaskFacts {
                        worker: task.worker.clone(),
                        critical: task.critical,
                        state: TaskState::Queued,
                        attempts: 0,
                        stop_reason: None,
                    });
                }
            }
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskQueued {
                task,
                worker,
                critical,
                ..
            })) => {
                tasks.entry(task.clone()).or_insert(TaskFacts {
                    worker: worker.clone(),
                    critical: *critical,
                    state: TaskState::Queued,
                    attempts: 0,
                    stop_reason: None,
                });
            }
            EventKind::AttemptStarted { task, attempt, .. } => {
                if let Some(facts) = tasks.get_mut(task) {
                    facts.state = TaskState::Running;
                    facts.attempts = facts.attempts.max(*attempt);
                }
            }
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished {
                task,
                status,
                attempts_used,
                stop_reason,
                ..
            })) => {
                if let Some(facts) = tasks.get_mut(task) {
                    facts.state = match status {
                        TaskStatus::Done => TaskState::Done,
                        TaskStatus::Failed => TaskState::Failed,
                    };
                    facts.attempts = *attempts_used;
                    facts.stop_reason = stop_reason.clone();
                }
            }
            _ => {}
        }
    }
    tasks
}

fn align(a: &[Arc<Event>], b: &[Arc<Event>]) -> TasksAligned {
    let (ta, tb) = (tasks_of(a), tasks_of(b));
    let tasks = union(ta.keys(), tb.keys())
        .into_iter()
        .map(|task| {
            let (a, b) = (ta.get(task).cloned(), tb.get(task).cloned());
            let only_in = match (&a, &b) {
                (Some(_), None) => Some(Which::A),
                (None, Some(_)) => Some(Which::B),
                _ => None,
            };
            TaskRow {
                task: task.clone(),
                only_in,
                a,
                b,
            }
        })
        .collect();
    TasksAligned { tasks }
}

impl Aligned for TasksAligned {
    fn differences(&self) -> Vec<Difference> {
        let mut out = Vec::new();
        for row in &self.tasks {
            let (Some(a), Some(b)) = (&row.a, &row.b) else {
                out.push(Difference::new(
                    format!("tasks.{}", row.task),
                    &row.a,
                    &row.b,
                ));
                continue;
            };
            let what = |field: &str| format!("tasks.{}.{field}", row.task);
            if a.worker != b.worker {
                out.push(Difference::new(what("worker"), &a.worker, &b.worker));
            }
            if a.critical != b.critical {
                out.push(Difference::new(what("critical"), a.critical, b.critical));
            }
            if a.state != b.state {
                out.push(Difference::new(what("state"), a.state, b.state));
            }
            if a.attempts != b.attempts {
                out.push(Difference::new(what("attempts"), a.attempts, b.attempts));
            }
            if a.stop_reason != b.stop_reason {
                out.push(Difference::new(
                    what("stop_reason"),
                    &a.stop_reason,
                    &b.stop_reason,
                ));
            }
        }
        out
    }

    fn sections(&self) -> Vec<crate::compare::sections::Section> {
        vec![tables::task_table(self)]
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "tasks": self })
    }
}

/// The rules by which two runs of this pattern are compared.
pub(crate) struct Rules;

impl CompareRules for Rules {
    fn align(&self, a: &[Arc<Event>], b: &[Arc<Event>]) -> Alignment {
        Alignment::new(align(a, b))
    }

    fn figures(&self) -> &'static Figures {
        &super::figures::FIGURES
    }

    /// The aggregate's health: `HEALTH YELLOW`.
    fn came_to(&self, summary: &RunSummary) -> Option<Cell> {
        let health: Health = summary.read(super::figures::HEALTH)?;
        let tone = match health {
            Health::Green => Tone::Good,
            Health::Yellow => Tone::Caution,
            Health::Red => Tone::Bad,
        };
        let words = format!("HEALTH {}", health.as_str().to_uppercase());
        Some(Cell::toned(words, tone))
    }
}
