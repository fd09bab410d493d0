//! Snapshots of the dashboard drawn into ratatui's TestBackend, at 80×24 and
//! 160×48, for the moments a user looks at: a run mid round 2, a paused run,
//! the flags and help overlays, a finished run and a stopped one. The states
//! come from real runs of the shipped scenarios on the virtual clock.

use crate::common;
use conclave::patterns::events::PatternEvent;

use conclave::bus::{Event, EventKind, Hub};
use conclave::engine::{self, LaunchOptions};
use conclave::patterns::events::{RoundEvent, TaskEvent};
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::Action;
use conclave::tui::panes;
use conclave::tui::patterns::workers::state::Workers;
use conclave::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use std::sync::Arc;
use std::time::Duration;

fn app_with(events: &[Arc<Event>]) -> App {
    let mut app = App::new(AppOptions::default());
    app.add_from_events(events, Some("scenarios/test.json".into()))
        .expect("events start with run_started");
    app
}

async fn full_run(file: &str, flags: Vec<(String, bool)>) -> Vec<Arc<Event>> {
    let (_, events) = common::run(
        common::shipped(file),
        LaunchOptions {
            flags,
            ..LaunchOptions::default()
        },
    )
    .await;
    events.into_iter().map(Arc::new).collect()
}

/// The checkout run up to the moment finance is asked in round 2.
async fn mid_round_2() -> Vec<Arc<Event>> {
    let events = full_run("checkout_v2_launch.json", vec![]).await;
    let cut = events
        .iter()
        .position(|e| {
            matches!(&e.kind, EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested { round: 2, agent })) if agent == "finance_analyst")
        })
        .unwrap();
    events[..=cut].to_vec()
}

/// The checkout run stepped through round 1 and paused before round 2.
async fn paused() -> Vec<Arc<Event>> {
    let hub = Hub::new(4096);
    let mut sub = hub.subscribe();
    let handle = engine::launch(
        common::shipped("checkout_v2_launch.json"),
        &hub,
        LaunchOptions {
            start_paused: true,
            ..LaunchOptions::default()
        },
    )
    .unwrap();
    handle.controller.step().unwrap();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let events: Vec<Arc<Event>> = common::drain(&mut sub).into_iter().map(Arc::new).collect();
    handle.controller.cancel();
    handle.finish().await.unwrap();
    assert!(matches!(
        events.last().unwrap().kind,
        EventKind::Paused { .. }
    ));
    events
}

fn screen(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    terminal.backend().buffer().clone()
}

fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn snap_screens(name: &str, app: &App) {
    for (width, height) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(
            format!("{name}_{width}x{height}"),
            text(&screen(app, width, height))
        );
    }
}

/// The selected run's pattern pane.
fn pattern_pane(frame: &mut ratatui::Frame, area: Rect, app: &App, focused: bool) {
    let run = app.run().unwrap().view();
    panes::pattern::draw(
        frame, area, run.unit, run.state, run.ui, run.now_ms, focused,
    );
}

/// The selected run's result pane.
fn result_pane(frame: &mut ratatui::Frame, area: Rect, app: &App) {
    let run = app.run().unwrap().view();
    panes::result::draw(frame, area, &run, run.ui.result_scroll, false);
}

/// Draw one pane alone into a `width` × `height` buffer.
fn pane(width: u16, height: u16, draw: impl FnOnce(&mut ratatui::Frame, Rect)) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| draw(frame, frame.area())).unwrap();
    text(terminal.backend().buffer())
}

#[tokio::test(start_paused = true)]
async fn a_run_mid_round_2() {
    let app = app_with(&mid_round_2().await);
    snap_screens("mid_round_2", &app);
    let run = app.run().unwrap().view();
    insta::assert_snapshot!(
        "pane_header",
        pane(120, 2, |f, a| panes::header::draw(f, a, Some(&run), None))
    );
    insta::assert_snapshot!(
        "pane_runs",
        pane(80, 1, |f, a| panes::run_list::draw(
            f, a, &app.runs, false, None
        ))
    );
    insta::assert_snapshot!(
        "pane_round_table",
        pane(90, 14, |f, a| pattern_pane(f, a, &app, true))
    );
    insta::assert_snapshot!(
        "pane_event_log",
        pane(100, 12, |f, a| panes::event_log::draw(
            f,
            a,
            run.state,
            &run.ui.log,
            false,
            None
        ))
    );
    insta::assert_snapshot!(
        "pane_result_running",
        pane(60, 8, |f, a| result_pane(f, a, &app))
    );
    insta::assert_snapshot!(
        "pane_footer",
        pane(160, 1, |f, a| panes::footer::draw(f, a, &app))
    );
}

#[tokio::test(start_paused = true)]
async fn a_paused_run_and_its_overlays() {
    let events = paused().await;
    let mut app = app_with(&events);
    snap_screens("paused", &app);

    app.update(Action::Flags);
    snap_screens("flags_overlay", &app);
    app.update(Action::Close);

    app.update(Action::Help);
    snap_screens("help_overlay", &app);
}

#[tokio::test(start_paused = true)]
async fn a_finished_run_goes_with_caution() {
    let app = app_with(
        &full_run(
            "checkout_v2_launch.json",
            vec![("legal_analyst".into(), true)],
        )
        .await,
    );
    snap_screens("finished_go_with_caution", &app);
    insta::assert_snapshot!(
        "pane_result_finished",
        pane(60, 12, |f, a| result_pane(f, a, &app))
    );

    // Stances carry their colours.
    let buffer = screen(&app, 160, 48);
    let colour_of = |glyph: &str| {
        buffer
            .content()
            .iter()
            .find(|c| c.symbol() == glyph)
            .map(|c| c.fg)
            .unwrap_or_else(|| panic!("no {glyph} on screen"))
    };
    assert_eq!(colour_of("●"), Color::Green);
    assert_eq!(colour_of("▲"), Color::Yellow);
    assert_eq!(colour_of("■"), Color::Red);
}

#[tokio::test(start_paused = true)]
async fn a_stopped_run_says_why() {
    let app = app_with(&full_run("legal_review_required.json", vec![]).await);
    snap_screens("stopped_agent_denied", &app);
    insta::assert_snapshot!(
        "pane_result_stopped",
        pane(60, 8, |f, a| result_pane(f, a, &app))
    );
    insta::assert_snapshot!(
        "pane_round_table_stopped",
        pane(90, 12, |f, a| pattern_pane(f, a, &app, true))
    );
}

#[tokio::test(start_paused = true)]
async fn nothing_overflows_or_panics_at_any_size() {
    let events = mid_round_2().await;
    let mut app = app_with(&events);
    for (width, height) in [
        (1, 1),
        (20, 5),
        (40, 10),
        (79, 23),
        (80, 24),
        (200, 60),
        (300, 5),
        (5, 100),
    ] {
        let buffer = screen(&app, width, height);
        assert_eq!(buffer.area, Rect::new(0, 0, width, height));
    }
    app.update(Action::Help);
    let _ = screen(&app, 20, 5);
    app.update(Action::Close);
    app.update(Action::Flags);
    let _ = screen(&app, 20, 5);
}

/// An orchestrator run caught with one task done, one failed, one retrying
/// and one running, built event by event.
fn workers_mid_run() -> Vec<Arc<Event>> {
    use conclave::bus::{BudgetKind, CallOutcome, ClockMode, RunStarted};
    use conclave::patterns::events::{PlannedTask, TaskStatus};
    use conclave::stop::StopReason;
    let scenario = common::shipped("morning_ops_report.json");
    let args = serde_json::json!({"report_date": "2026-02-26", "region": "US"});
    let planned: Vec<PlannedTask> = [
        ("t1", "sales_worker", true),
        ("t2", "payments_worker", true),
        ("t3", "inventory_worker", false),
        ("t4", "sales_worker", false),
    ]
    .into_iter()
    .map(|(id, worker, critical)| PlannedTask {
        id: id.into(),
        worker: worker.into(),
        args: args.clone(),
        critical,
    })
    .collect();
    let mut kinds: Vec<(u64, EventKind)> = vec![
        (
            0,
            EventKind::RunStarted(RunStarted {
                pattern: scenario.pattern,
                seed: 1,
                goal: scenario.goal.clone(),
                clock: ClockMode::Virtual,
                flags: vec![],
                source: None,
                started_at_ms: 0,
                model: None,
                scenario: Arc::clone(&scenario),
                forked_from: None,
            }),
        ),
        (
            300,
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::PlanAccepted {
                tasks: planned.clone().into(),
            })),
        ),
    ];
    for task in &planned {
        kinds.push((
            300,
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskQueued {
                task: task.id.clone(),
                worker: task.worker.clone(),
                critical: task.critical,
                max_attempts: 2,
            })),
        ));
    }
    let start = |t: u64, task: &str, worker: &str, attempt: u32| {
        (
            t,
            EventKind::AttemptStarted {
                task: task.into(),
                worker: worker.into(),
                attempt,
                max_attempts: 2,
                timeout_ms: 2000,
            },
        )
    };
    let finish =
        |t: u64, task: &str, worker: &str, outcome, elapsed_ms, reason: Option<StopReason>| {
            (
                t,
                EventKind::AttemptFinished {
                    task: task.into(),
                    worker: worker.into(),
                    attempt: 1,
                    outcome,
                    elapsed_ms,
                    reason,
                },
            )
        };
    kinds.extend([
        start(300, "t1", "sales_worker", 1),
        start(300, "t2", "payments_worker", 1),
        start(300, "t3", "inventory_worker", 1),
        finish(700, "t1", "sales_worker", CallOutcome::Ok, 400, None),
        (
            700,
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished {
                task: "t1".into(),
                worker: "sales_worker".into(),
                status: TaskStatus::Done,
                attempts_used: 1,
                stop_reason: None,
                result: Some(serde_json::json!({"gross_sales_usd": 182450.0, "orders": 4820})),
            })),
        ),
        start(700, "t4", "sales_worker", 1),
        finish(
            800,
            "t3",
            "inventory_worker",
            CallOutcome::Error,
            500,
            Some("worker_error:inventory_worker".parse().unwrap()),
        ),
        (
            800,
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished {
                task: "t3".into(),
                worker: "inventory_worker".into(),
                status: TaskStatus::Failed,
                attempts_used: 1,
                stop_reason: Some("worker_error:inventory_worker".parse().unwrap()),
                result: None,
            })),
        ),
        finish(
            2300,
            "t2",
            "payments_worker",
            CallOutcome::Timeout,
            2000,
            Some("task_timeout".parse().unwrap()),
        ),
        (
            2300,
            EventKind::RetryScheduled {
                tool: "payments_worker".into(),
                task: Some("t2".into()),
                attempt: 2,
                delay_ms: 250,
                after: "task_timeout".parse().unwrap(),
            },
        ),
        (
            2400,
            EventKind::BudgetConsumed {
                budget: BudgetKind::Dispatches,
                used: 4,
                limit: 8,
            },
        ),
    ]);
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, (t_ms, kind))| {
            Arc::new(Event {
                run: 1,
                seq: i as u64 + 1,
                t_ms,
                kind,
            })
        })
        .collect()
}

#[test]
fn the_workers_pane_mid_run() {
    let app = app_with(&workers_mid_run());
    snap_screens("workers_mid_run", &app);
    insta::assert_snapshot!(
        "pane_workers",
        pane(110, 12, |f, a| pattern_pane(f, a, &app, true))
    );
}

#[tokio::test(start_paused = true)]
async fn a_plan_of_forty_tasks_scrolls_to_the_selected_one() {
    let events = full_run("regional_ops_sweep.json", vec![]).await;
    let mut app = app_with(&events);
    app.focus = conclave::tui::keymap::PaneId::Pattern;
    for _ in 0..39 {
        app.update(Action::Down);
    }
    let workers: &Workers = app.run().unwrap().state.pattern.get().unwrap();
    let last = &workers.tasks[39].id;
    let text = text(&screen(&app, 80, 24));
    assert!(
        text.contains(last.as_str()),
        "the last task is in view:\n{text}"
    );
    for (width, height) in [(20, 5), (40, 10), (200, 60)] {
        let _ = screen(&app, width, height);
    }
}

/// A replay of the checkout run at its end, forked with `x` and the legal
/// analyst turned on: the dialog names the gate, the recording, the flag
/// as it stood and as the fork sets it, and the goal and model fields.
#[tokio::test(start_paused = true)]
async fn the_fork_dialog_of_a_replay() {
    let events = full_run("checkout_v2_launch.json", vec![]).await;
    // A short folder of fixed length beside the project, named the same
    // in every snapshot.
    let dir = tempfile::tempdir_in(".").unwrap();
    let folder = std::path::Path::new(".").join(dir.path().file_name().unwrap());
    let parent = folder.join("p.jsonl");
    let lines: Vec<String> = events
        .iter()
        .map(|e| serde_json::to_string(&**e).unwrap())
        .collect();
    std::fs::write(&parent, lines.join("\n") + "\n").unwrap();
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_replay(&mut app, &parent).unwrap();
    let press = |app: &mut App, code| {
        let effects = app.key(crossterm::event::KeyEvent::new(
            code,
            crossterm::event::KeyModifiers::NONE,
        ));
        conclave::tui::world::settle(app, effects);
    };
    use crossterm::event::KeyCode;
    press(&mut app, KeyCode::Char('>'));
    press(&mut app, KeyCode::Char('x'));
    press(&mut app, KeyCode::Char(' '));
    let shown = folder.display().to_string();
    for (width, height) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(
            format!("fork_dialog_{width}x{height}"),
            text(&screen(&app, width, height)).replace(&shown, "./.tmp000000")
        );
    }
}
