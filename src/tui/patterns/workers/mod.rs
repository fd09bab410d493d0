//! The orchestrator's part of the dashboard: one row per planned task with
//! its attempts, retries and health (`state`), the selected task, and the
//! workers pane (`view`).

mod durations;
mod list;
pub(crate) mod log;
pub mod state;
mod view;

use super::unit::{Seen, Shortfall, Unit};
use crate::bus::RunStarted;
use crate::patterns::events::Health;
use crate::patterns::orchestrator::figures::HEALTH;
use crate::scenario::Scenario;
use crate::tui::keymap::{Action, Scope, UnitKeys};
use crate::tui::selection::{Find, ListView};
use crate::tui::state::outcome::Outcome;
use crate::tui::text::fit;
use crate::tui::widgets::plural;
use crate::tui::{theme, widgets};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use serde_json::{Value, json};
use state::{TaskState, TaskView, Workers};

pub(crate) struct WorkersUnit;

impl Unit for WorkersUnit {
    type Fold = Workers;
    type Selection = ListView;

    fn seat(&self, _started: &RunStarted) -> Workers {
        Workers::default()
    }

    fn gate_word(&self) -> &'static str {
        "wave"
    }

    /// A wave gate is ahead while tasks wait to start, and a retry gate
    /// while a task waits to retry or runs an attempt that is not its
    /// last; none once the plan was refused.
    fn gate_ahead(&self, workers: &Workers) -> bool {
        if workers.plan_rejected.is_some() {
            return false;
        }
        if workers.tasks.is_empty()
            || workers.in_bucket(state::QUEUED) > 0
            || workers.in_bucket(state::RETRYING) > 0
        {
            return true;
        }
        workers
            .buckets()
            .iter()
            .zip(workers.tasks.iter())
            .any(|(bucket, task)| {
                *bucket == state::RUNNING
                    && matches!(task.state, TaskState::Running { attempt, .. } if attempt < task.max_attempts)
            })
    }

    fn keys(&self, _scenario: &Scenario) -> Option<Scope> {
        Some(Scope::Unit(UnitKeys::Workers))
    }

    fn navigate(&self, selection: &mut ListView, action: Action, workers: &Workers, page: usize) {
        let shown = list::shown(workers, selection);
        selection.navigate(action, &shown, view::list_rows(workers, page), list::SORTS);
    }

    fn find(
        &self,
        selection: &mut ListView,
        query: &str,
        how: Find,
        workers: &Workers,
        page: usize,
    ) -> bool {
        let shown = list::shown(workers, selection);
        selection.find(query, how, &shown, view::list_rows(workers, page), |i| {
            list::text(&workers.tasks[i])
        })
    }

    fn query(&self, selection: &ListView) -> Option<String> {
        selection.search.clone()
    }

    fn wanted_height(&self, workers: &Workers) -> u16 {
        view::wanted_height(workers)
    }

    fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        workers: &Workers,
        selection: &ListView,
        seen: Seen,
    ) {
        view::draw(frame, area, workers, selection, seen);
    }

    fn details(&self, workers: &Workers, selection: &ListView) -> Option<Value> {
        let item = selection.item(&list::shown(workers, selection))?;
        workers.tasks.get(item).map(task_json)
    }

    fn headline(&self, _workers: &Workers, outcome: &Outcome) -> Line<'static> {
        match outcome.summary.read::<Health>(HEALTH) {
            Some(health) => Line::styled(
                format!("HEALTH {}", health.as_str().to_uppercase()),
                theme::headline(match health {
                    Health::Green => theme::GO,
                    Health::Yellow => theme::CAUTION,
                    Health::Red => theme::BLOCK,
                }),
            ),
            // A run stopped before its aggregate has no health to give.
            None => widgets::no_decision(outcome.status, "NO REPORT"),
        }
    }

    /// The tasks' tally.
    fn tally(&self, workers: &Workers, _outcome: &Outcome) -> Vec<Line<'static>> {
        let (queued, running, retrying, done, failed) = workers.counts();
        let mut counts = vec![
            Span::raw(format!("{done} done, ")),
            Span::styled(
                format!("{failed} failed"),
                if failed > 0 {
                    theme::error()
                } else {
                    theme::dim()
                },
            ),
            Span::raw(format!(", {}", plural(workers.retries, "retry"))),
        ];
        let unfinished = queued + running + retrying;
        if unfinished > 0 {
            counts.push(Span::raw(format!(", {unfinished} never finished")));
        }
        let mut spans = vec![Span::styled("tasks       ", theme::dim())];
        spans.extend(counts);
        vec![Line::from(spans)]
    }

    /// The failed tasks, each with why.
    fn after_answer(&self, workers: &Workers) -> Vec<Line<'static>> {
        let failed: Vec<&TaskView> = workers
            .tasks
            .iter()
            .filter(|t| matches!(t.state, TaskState::Failed { .. }))
            .collect();
        if failed.is_empty() {
            return Vec::new();
        }
        let mut lines = vec![
            Line::raw(""),
            Line::styled(
                format!("{}:", plural(failed.len() as u64, "failed task")),
                theme::bold(),
            ),
        ];
        for task in failed {
            let TaskState::Failed { reason } = &task.state else {
                continue;
            };
            let reason = reason
                .as_ref()
                .map_or("did not finish".into(), ToString::to_string);
            lines.push(Line::styled(
                format!("  ✗ {} {}", fit(&task.id, 24), fit(&reason, 60)),
                theme::error(),
            ));
        }
        lines
    }

    /// The failed tasks, counted; the aggregate lacks their figures.
    fn shortfall(&self, workers: &Workers) -> Option<Shortfall> {
        let (_, _, _, _, failed) = workers.counts();
        (failed > 0).then(|| Shortfall {
            words: format!("{} failed", plural(failed as u64, "task")),
            lacking: true,
        })
    }
}

/// A task as JSON, with its attempts.
fn task_json(task: &TaskView) -> Value {
    let attempts: Vec<Value> = task
        .attempts
        .iter()
        .map(|a| {
            json!({
                "attempt": a.attempt, "started_ms": a.started_ms, "timeout_ms": a.timeout_ms,
                "outcome": a.outcome, "elapsed_ms": a.elapsed_ms,
                "reason": a.reason.as_ref().map(ToString::to_string),
            })
        })
        .collect();
    json!({
        "task": task.id, "worker": task.worker, "critical": task.critical,
        "max_attempts": task.max_attempts, "state": format!("{:?}", task.state),
        "attempts": attempts, "result": task.result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{CallOutcome, EventKind};
    use crate::patterns::events::PatternEvent;
    use crate::patterns::events::TaskEvent;
    use crate::patterns::events::TaskStatus;
    use crate::stop::StopReason;
    use crate::tui::patterns::folding::Fold;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    const WORKER: &str = "sales_worker";

    fn started(workers: &mut Workers, task: &str, t_ms: u64) {
        workers.apply(
            &EventKind::AttemptStarted {
                task: task.into(),
                worker: WORKER.into(),
                attempt: 1,
                max_attempts: 1,
                timeout_ms: 2000,
            },
            t_ms,
        );
    }

    fn finished(workers: &mut Workers, task: &str, elapsed_ms: u64, ok: bool) {
        workers.apply(
            &EventKind::AttemptFinished {
                task: task.into(),
                worker: WORKER.into(),
                attempt: 1,
                outcome: if ok {
                    CallOutcome::Ok
                } else {
                    CallOutcome::Timeout
                },
                elapsed_ms,
                reason: (!ok).then_some(StopReason::TaskTimeout),
            },
            elapsed_ms,
        );
        workers.apply(
            &EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished {
                task: task.into(),
                worker: WORKER.into(),
                status: if ok {
                    TaskStatus::Done
                } else {
                    TaskStatus::Failed
                },
                attempts_used: 1,
                stop_reason: (!ok).then_some(StopReason::TaskTimeout),
                result: None,
            })),
            elapsed_ms,
        );
    }

    /// `tasks` queued; t1..t4 done in 20 to 40 ms, t6 failed at its
    /// timeout; t5 and the last task running.
    fn plan(tasks: usize) -> Workers {
        let mut workers = Workers::default();
        for i in 0..tasks {
            workers.apply(
                &EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskQueued {
                    task: format!("t{i}"),
                    worker: WORKER.into(),
                    critical: false,
                    max_attempts: 1,
                })),
                0,
            );
        }
        for (task, ms) in [("t1", 20), ("t2", 30), ("t3", 35), ("t4", 40)] {
            started(&mut workers, task, 0);
            finished(&mut workers, task, ms, true);
        }
        started(&mut workers, "t6", 0);
        finished(&mut workers, "t6", 2000, false);
        started(&mut workers, "t5", 10);
        started(&mut workers, &format!("t{}", tasks - 1), 10);
        workers
    }

    fn ids(workers: &Workers, order: &[usize]) -> Vec<String> {
        order.iter().map(|i| workers.tasks[*i].id.clone()).collect()
    }

    fn screen(workers: &Workers) -> String {
        let mut terminal = Terminal::new(TestBackend::new(90, 14)).unwrap();
        terminal
            .draw(|frame| {
                let seen = Seen {
                    now_ms: 100,
                    live: true,
                    outcome: None,
                    focused: true,
                    calling: &[],
                    spent: &Default::default(),
                };
                view::draw(frame, frame.area(), workers, &ListView::default(), seen);
            })
            .unwrap();
        let buffer = terminal.backend().buffer();
        (0..buffer.area.height)
            .map(|y| {
                (0..buffer.area.width)
                    .map(|x| buffer[(x, y)].symbol())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_large_plan_lists_running_then_failed_then_waiting_then_done_tasks() {
        let workers = plan(state::LARGE_PLAN + 100);
        let shown = list::shown(&workers, &ListView::default());
        assert_eq!(shown.order.len(), workers.tasks.len());
        assert_eq!(
            ids(&workers, &shown.order[..4]),
            ["t5", "t299", "t6", "t0"],
            "running in plan order, then the failed one, then the first waiting"
        );
        assert_eq!(
            ids(&workers, &shown.order[shown.order.len() - 4..]),
            ["t1", "t2", "t3", "t4"],
            "done last"
        );
        let text = screen(&workers);
        assert!(text.contains("Workers · 300 tasks"), "{text}");
        assert!(text.contains("active first"), "{text}");
        assert!(
            text.contains("5 attempts 20ms ▃█    ▃ 2.0s · p50 ≤50ms · p95 ≤2.0s"),
            "the durations' histogram:\n{text}"
        );
        let rows: Vec<&str> = text.lines().collect();
        assert!(
            rows[3].contains("t5") && rows[3].contains("running"),
            "{text}"
        );
    }

    #[test]
    fn a_short_plan_keeps_plan_order_and_no_histogram() {
        let workers = plan(20);
        let shown = list::shown(&workers, &ListView::default());
        assert_eq!(ids(&workers, &shown.order[..3]), ["t0", "t1", "t2"]);
        let text = screen(&workers);
        assert!(
            !text.contains("active first") && !text.contains("attempts"),
            "{text}"
        );
    }
}
