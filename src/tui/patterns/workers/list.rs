//! The workers list as shown: plan order or sorted by state, name,
//! attempts, latency or errors; every task, the running ones or the failed
//! ones; and the task it follows: the first running or retrying one, or,
//! once nothing runs, the first that failed. Plan order never changes, so
//! following moves the window, never the rows.

use super::state::{DONE, FAILED, QUEUED, RETRYING, RUNNING, TaskState, TaskView, Workers};
use crate::bus::CallOutcome;
use crate::tui::selection::{ListView, Show, Shown, Sort};
use std::cmp::Reverse;

/// The sorts `o` cycles through.
pub(super) const SORTS: &[Sort] = Sort::ALL;

/// What the title calls the rows `v` shows besides all of them.
pub(super) const SHOW_WORDS: [&str; 2] = ["running", "failed"];

/// The tasks as `view` shows them. Filtering and the order by state read
/// only the tasks' buckets, so a frame of a 100,000-task run does not walk
/// its rows.
pub(crate) fn shown(workers: &Workers, view: &ListView) -> Shown {
    let tasks = &workers.tasks;
    let buckets = workers.buckets();
    let kept = |bucket: u8| match view.show {
        Show::All => true,
        Show::Active => active(bucket),
        Show::Failed => failing(bucket),
    };
    let sort = if active_first(workers, view) {
        Sort::State
    } else {
        view.sort
    };
    let mut order: Vec<usize> = if sort == Sort::State {
        by_state(workers, kept)
    } else {
        (0..tasks.len()).filter(|i| kept(buckets[*i])).collect()
    };
    match sort {
        Sort::Natural | Sort::State => {}
        Sort::Name => order.sort_by(|a, b| tasks[*a].id.cmp(&tasks[*b].id)),
        Sort::Attempts => order.sort_by_key(|i| Reverse(tasks[*i].attempts.len())),
        Sort::Latency => order.sort_by_key(|i| latency_rank(&tasks[*i])),
        Sort::Errors => order.sort_by_key(|i| Reverse(errors(&tasks[*i]))),
    }
    let first = |wanted: fn(u8) -> bool| order.iter().copied().find(|i| wanted(buckets[*i]));
    let lead = first(active).or_else(|| first(|b| b == FAILED));
    Shown { order, lead }
}

/// A large plan in plan order would show its first rows, long done, and
/// hide what runs and fails: unsorted, it lists its tasks by state.
pub(super) fn active_first(workers: &Workers, view: &ListView) -> bool {
    view.sort == Sort::Natural && workers.is_large()
}

/// The tasks whose bucket is `kept`, by [`RANK`], plan order kept within a
/// state: a counting sort, each task placed once.
fn by_state(workers: &Workers, kept: impl Fn(u8) -> bool) -> Vec<usize> {
    let buckets = workers.buckets();
    let mut start = [0usize; 5];
    let mut total = 0;
    for bucket in RANK {
        start[usize::from(bucket)] = total;
        if kept(bucket) {
            total += workers.in_bucket(bucket);
        }
    }
    let mut order = vec![0; total];
    for (i, bucket) in buckets.iter().enumerate() {
        if kept(*bucket) {
            let at = &mut start[usize::from(*bucket)];
            order[*at] = i;
            *at += 1;
        }
    }
    order
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

fn active(bucket: u8) -> bool {
    matches!(bucket, RUNNING | RETRYING)
}

/// Failed, or waiting to retry after a failed attempt.
fn failing(bucket: u8) -> bool {
    matches!(bucket, FAILED | RETRYING)
}

/// What runs first, then what fails, then what waits, then what is done.
const RANK: [u8; 5] = [RUNNING, RETRYING, FAILED, QUEUED, DONE];

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::EventKind;
    use crate::patterns::events::PatternEvent;
    use crate::patterns::events::TaskEvent;
    use crate::patterns::events::TaskStatus;
    use crate::stop::StopReason;
    use crate::tui::patterns::folding::Fold;
    use proptest::prelude::*;

    /// A task's rank read from its row, as the list defines it.
    fn rank_of_row(task: &TaskView) -> u8 {
        match task.state {
            TaskState::Running { .. } => 0,
            TaskState::Retrying { .. } => 1,
            TaskState::Failed { .. } => 2,
            TaskState::Planned | TaskState::Queued => 3,
            TaskState::Done => 4,
        }
    }

    /// What the list shows, worked out from the rows: filtered, sorted
    /// stably by rank when by state, the lead the first running or
    /// retrying row, else the first failed one.
    fn from_rows(workers: &Workers, view: &ListView) -> (Vec<usize>, Option<usize>) {
        let tasks = &workers.tasks;
        let rank = |i: &usize| rank_of_row(&tasks[*i]);
        let mut order: Vec<usize> = (0..tasks.len())
            .filter(|i| match view.show {
                Show::All => true,
                Show::Active => rank(i) <= 1,
                Show::Failed => matches!(rank(i), 1 | 2),
            })
            .collect();
        if view.sort == Sort::State || active_first(workers, view) {
            order.sort_by_key(rank);
        }
        let lead = order
            .iter()
            .copied()
            .find(|i| rank(i) <= 1)
            .or_else(|| order.iter().copied().find(|i| rank(i) == 2));
        (order, lead)
    }

    fn event(task: usize, step: u8) -> EventKind {
        let (task, worker) = (format!("t{task}"), "payments_worker".to_string());
        match step {
            0 => EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskQueued {
                task,
                worker,
                critical: false,
                max_attempts: 2,
            })),
            1 => EventKind::AttemptStarted {
                task,
                worker,
                attempt: 1,
                max_attempts: 2,
                timeout_ms: 2000,
            },
            2 => EventKind::RetryScheduled {
                tool: worker,
                task: Some(task),
                attempt: 2,
                delay_ms: 500,
                after: StopReason::TaskTimeout,
            },
            _ => EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished {
                task,
                worker,
                status: if step == 3 {
                    TaskStatus::Done
                } else {
                    TaskStatus::Failed
                },
                attempts_used: 1,
                stop_reason: None,
                result: None,
            })),
        }
    }

    proptest! {
        #[test]
        fn the_order_from_buckets_is_the_order_from_rows(
            events in prop::collection::vec((0usize..300, 0u8..5), 0..900),
            show in 0usize..3,
            by_state in any::<bool>(),
        ) {
            let mut workers = Workers::default();
            for (t, (task, step)) in events.into_iter().enumerate() {
                workers.apply(&event(task, step), t as u64);
            }
            let mut view = ListView::default();
            view.show = [Show::All, Show::Active, Show::Failed][show];
            if by_state {
                view.sort = Sort::State;
            }
            let shown = shown(&workers, &view);
            prop_assert_eq!((shown.order, shown.lead), from_rows(&workers, &view));
        }
    }
}
