//! Lists an operator can follow and move through: the workers list keeps
//! the running tasks on screen while nobody moves it, stays where the user
//! put it, and follows again on `G`; every list and the details take the
//! same keys to page, jump and search; the picker narrows as one types and
//! lists recordings by how their run ended. Drawn from real runs of the
//! shipped scenarios on the virtual clock into ratatui's TestBackend.

mod common;

use conclave::bus::{Event, Hub};
use conclave::engine::LaunchOptions;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::Action;
use conclave::tui::patterns::workers::state::{TaskState, Workers};
use conclave::tui::view;
use conclave::tui::view_state::Overlay;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

fn app_with(events: &[Arc<Event>]) -> App {
    let mut app = App::new(Hub::new(16), AppOptions::default());
    app.add_from_events(events, Some("scenarios/test.json".into()))
        .expect("events start with run_started");
    app
}

/// Draw the app at `width` × `height` (remembering the panes' sizes, as
/// the dashboard does) and return the screen's text.
fn screen(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    let area = Rect::new(0, 0, width, height);
    app.drawn_at(area, view::areas(app, area));
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        let mut line = String::new();
        for x in 0..width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn press(app: &mut App, code: KeyCode) {
    let effects = app.key(KeyEvent::new(code, KeyModifiers::NONE));
    assert!(effects.is_empty(), "{code:?} asks nothing of the world");
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

async fn full_run(file: &str) -> Vec<Arc<Event>> {
    let (_, events) = common::run(common::shipped(file), LaunchOptions::default()).await;
    events.into_iter().map(Arc::new).collect()
}

/// The events up to run time `t_ms`.
fn until(events: &[Arc<Event>], t_ms: u64) -> Vec<Arc<Event>> {
    events.iter().filter(|e| e.t_ms <= t_ms).cloned().collect()
}

fn workers(app: &App) -> &Workers {
    app.run().unwrap().state.pattern.get().unwrap()
}

/// The ids of the tasks running or waiting to retry.
fn active(app: &App) -> Vec<String> {
    workers(app)
        .tasks
        .iter()
        .filter(|t| {
            matches!(
                t.state,
                TaskState::Running { .. } | TaskState::Retrying { .. }
            )
        })
        .map(|t| t.id.clone())
        .collect()
}

/// The row of the workers pane for task `id`, if it is on screen.
fn task_row<'a>(text: &'a str, id: &str) -> Option<&'a str> {
    text.lines().find(|line| {
        line.trim_start_matches(['│', '!', ' '])
            .split_whitespace()
            .next()
            == Some(id)
    })
}

#[tokio::test(start_paused = true)]
async fn the_vendor_outage_keeps_its_running_tasks_on_screen_at_100x30() {
    let events = full_run("vendor_outage.json").await;
    let mut app = app_with(&until(&events, 3_000));
    let text = screen(&mut app, 100, 30);
    let running = active(&app);
    assert!(!running.is_empty(), "tasks run at 3 s");
    for id in &running {
        assert!(task_row(&text, id).is_some(), "{id} is on screen:\n{text}");
    }
    insta::assert_snapshot!("vendor_outage_follows_at_3s_100x30", text);

    let mut app = app_with(&until(&events, 6_500));
    let text = screen(&mut app, 100, 30);
    insta::assert_snapshot!("vendor_outage_follows_at_6_5s_100x30", text);

    // From 3 s to the end, every half second: what runs is on screen.
    let end = events.last().unwrap().t_ms;
    for t_ms in (3_000..=end).step_by(500) {
        let mut app = app_with(&until(&events, t_ms));
        let text = screen(&mut app, 100, 30);
        for id in active(&app) {
            assert!(
                task_row(&text, &id).is_some(),
                "{id} runs at {t_ms} ms and is on screen:\n{text}"
            );
        }
    }
}

/// The task the details open on: the selected one.
fn selected_task(app: &mut App) -> String {
    app.update(Action::Details);
    let details = match &app.overlay {
        Some(Overlay::Details(details)) => details.text(),
        _ => panic!("Enter opens the selected task"),
    };
    app.update(Action::Close);
    let task: serde_json::Value = serde_json::from_str(&details).unwrap();
    task["task"].as_str().unwrap().to_string()
}

#[tokio::test(start_paused = true)]
async fn a_moved_selection_stays_put_and_g_follows_again() {
    let events = full_run("vendor_outage.json").await;
    let at_3s = until(&events, 3_000);
    let mut app = app_with(&at_3s);
    screen(&mut app, 100, 30);
    let running = active(&app);
    assert_eq!(
        selected_task(&mut app),
        running[0],
        "follows the first running"
    );

    press(&mut app, KeyCode::Char('k'));
    let moved = selected_task(&mut app);
    assert_ne!(moved, running[0]);
    for event in &events[at_3s.len()..] {
        if event.t_ms > 6_500 {
            break;
        }
        app.apply(Arc::clone(event));
    }
    let text = screen(&mut app, 100, 30);
    assert_eq!(
        selected_task(&mut app),
        moved,
        "stays on the task it was moved to"
    );
    assert!(task_row(&text, &moved).is_some(), "and in view:\n{text}");
    assert!(text.contains("G follows"), "{text}");
    assert!(
        active(&app).iter().all(|id| task_row(&text, id).is_none()),
        "the running tasks have moved on, out of the window it keeps:\n{text}"
    );

    press(&mut app, KeyCode::Char('G'));
    let text = screen(&mut app, 100, 30);
    assert_eq!(selected_task(&mut app), active(&app)[0], "G follows again");
    for id in active(&app) {
        assert!(task_row(&text, &id).is_some(), "{id}:\n{text}");
    }
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Char('F'));
    assert_eq!(selected_task(&mut app), active(&app)[0], "and so does F");
}

#[tokio::test(start_paused = true)]
async fn the_workers_list_pages_jumps_sorts_filters_and_searches() {
    let events = full_run("vendor_outage.json").await;
    let mut app = app_with(&until(&events, 3_000));
    screen(&mut app, 100, 30);
    let tasks: Vec<String> = workers(&app).tasks.iter().map(|t| t.id.clone()).collect();

    press(&mut app, KeyCode::Home);
    assert_eq!(selected_task(&mut app), tasks[0]);
    press(&mut app, KeyCode::PageDown);
    let text = screen(&mut app, 100, 30);
    assert_eq!(
        selected_task(&mut app),
        tasks[9],
        "a page is the rows shown"
    );
    assert!(text.contains("2–10 of 40"), "{text}");
    press(&mut app, KeyCode::End);
    assert_eq!(selected_task(&mut app), tasks[39]);
    press(&mut app, KeyCode::Char('g'));
    assert_eq!(selected_task(&mut app), tasks[0]);

    // Sorted by state, the running tasks come first.
    press(&mut app, KeyCode::Char('G'));
    press(&mut app, KeyCode::Char('o'));
    let text = screen(&mut app, 100, 30);
    assert!(text.contains("sort state"), "{text}");
    let rows: Vec<&str> = text.lines().skip(5).take(3).collect();
    assert!(rows.iter().all(|r| r.contains("running")), "{rows:#?}");

    // Failed only, then all again with Esc.
    press(&mut app, KeyCode::Char('v'));
    press(&mut app, KeyCode::Char('v'));
    let text = screen(&mut app, 100, 30);
    assert!(text.contains("failed only"), "{text}");
    assert!(!text.contains("queued   0/3"), "{text}");
    press(&mut app, KeyCode::Esc);
    let text = screen(&mut app, 100, 30);
    assert!(!text.contains("failed only"), "{text}");
    assert!(text.contains("sort state"), "Esc keeps the sort");

    // Search: the first match as it is typed, the next on Tab, kept on
    // Enter; `/` then Enter goes on to the next.
    press(&mut app, KeyCode::Char('o'));
    press(&mut app, KeyCode::Char('o'));
    press(&mut app, KeyCode::Char('o'));
    press(&mut app, KeyCode::Char('o'));
    press(&mut app, KeyCode::Char('o'));
    assert!(
        !screen(&mut app, 100, 30).contains("· sort "),
        "round to plan order"
    );
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "jp-");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_task(&mut app), "jp-orders");
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_task(&mut app), "jp-enrich");
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_task(&mut app), "jp-orders", "round the end");
    let text = screen(&mut app, 100, 30);
    assert!(task_row(&text, "jp-orders").is_some(), "{text}");
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "zz");
    assert_eq!(app.notice.as_deref(), Some("no match for \"jp-zz\""));
    press(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
}
