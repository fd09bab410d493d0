//! The workers list as shown: plan order or sorted by state, name,
//! attempts, latency or errors; every task, the running ones or the failed
//! ones; and the task it follows: the first running or retrying one, or,
//! once nothing runs, the first that failed. Plan order never changes, so
//! following moves the window, never the rows.

use super::state::{TaskState, TaskView, Workers};
use crate::bus::CallOutcome;
use crate::tui::selection::{ListView, Show, Shown, Sort};
use std::cmp::Reverse;

/// The sorts `o` cycles through.
pub(super) const SORTS: &[Sort] = Sort::ALL;

/// What the title calls the rows `v` shows besides all of them.
pub(super) const SHOW_WORDS: [&str; 2] = ["running", "failed"];

/// The tasks as `view` shows them.
pub(crate) fn shown(workers: &Workers, view: &ListView) -> Shown {
    let tasks = &workers.tasks;
    let mut order: Vec<usize> = (0..tasks.len())
        .filter(|i| match view.show {
            Show::All => true,
            Show::Active => active(&tasks[*i]),
            Show::Failed => failing(&tasks[*i]),
        })
        .collect();
    let sort = if active_first(workers, view) {
        Sort::State
    } else {
        view.sort
    };
    match sort {
        Sort::Natural => {}
        Sort::State => order = by_state(tasks, order),
        Sort::Name => order.sort_by(|a, b| tasks[*a].id.cmp(&tasks[*b].id)),
        Sort::Attempts => order.sort_by_key(|i| Reverse(tasks[*i].attempts.len())),
        Sort::Latency => order.sort_by_key(|i| latency_rank(&tasks[*i])),
        Sort::Errors => order.sort_by_key(|i| Reverse(errors(&tasks[*i]))),
    }
    let lead = order
        .iter()
        .copied()
        .find(|i| active(&tasks[*i]))
        .or_else(|| {
            order
                .iter()
                .copied()
                .find(|i| matches!(tasks[*i].state, TaskState::Failed { .. }))
        });
    Shown { order, lead }
}

/// A large plan in plan order would show its first rows, long done, and
/// hide what runs and fails: unsorted, it lists its tasks by state.
pub(super) fn active_first(workers: &Workers, view: &ListView) -> bool {
    view.sort == Sort::Natural && workers.is_large()
}

/// `order` by [`state_rank`], plan order kept within a state: one pass, as
/// a frame of a 100,000-task run redoes it.
fn by_state(tasks: &[TaskView], order: Vec<usize>) -> Vec<usize> {
    let mut ranks: [Vec<usize>; 5] = Default::default();
    for i in order {
        ranks[usize::from(state_rank(&tasks[i]))].push(i);
    }
    ranks.concat()
}

/// A task's row as searched: id, worker, state and result or reason.
pub(super) fn text(task: &TaskView) -> String {
    let outcome = match &task.state {
        TaskState::Failed { reason } => reason.as_ref().map(ToString::to_string),
        _ => task.result.as_ref().map(ToString::to_string),
    };
    format!(
        "{} {} {}{} {}",
        task.id,
        task.worker,
        word(&task.state),
        if task.stale { " stale" } else { "" },
        outcome.unwrap_or_default()
    )
}

/// A task's state in a word.
pub(super) fn word(state: &TaskState) -> &'static str {
    match state {
        TaskState::Planned | TaskState::Queued => "queued",
        TaskState::Running { .. } => "running",
        TaskState::Retrying { .. } => "retrying",
        TaskState::Done => "done",
        TaskState::Failed { .. } => "failed",
    }
}

fn active(task: &TaskView) -> bool {
    matches!(
        task.state,
        TaskState::Running { .. } | TaskState::Retrying { .. }
    )
}

/// Failed, or waiting to retry after a failed attempt.
fn failing(task: &TaskView) -> bool {
    matches!(
        task.state,
        TaskState::Failed { .. } | TaskState::Retrying { .. }
    )
}

/// What runs first, then what fails, then what waits, then what is done.
fn state_rank(task: &TaskView) -> u8 {
    match task.state {
        TaskState::Running { .. } => 0,
        TaskState::Retrying { .. } => 1,
        TaskState::Failed { .. } => 2,
        TaskState::Planned | TaskState::Queued => 3,
        TaskState::Done => 4,
    }
}

/// Running attempts first, the longest running first; then the slowest
/// finished last attempt; then tasks not started.
fn latency_rank(task: &TaskView) -> (u8, u64) {
    match task.attempts.last() {
        Some(a) if a.elapsed_ms.is_none() => (0, a.started_ms),
        Some(a) => (1, u64::MAX - a.elapsed_ms.unwrap_or(0)),
        None => (2, 0),
    }
}

/// Attempts that failed, a failed task counting one more.
fn errors(task: &TaskView) -> usize {
    let failed = task
        .attempts
        .iter()
        .filter(|a| a.outcome.is_some_and(|o| o != CallOutcome::Ok))
        .count();
    failed + usize::from(matches!(task.state, TaskState::Failed { .. }))
}
