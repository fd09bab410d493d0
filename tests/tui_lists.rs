//! Lists an operator can follow and move through: the workers list keeps
//! the running tasks on screen while nobody moves it, stays where the user
//! put it, and follows again on `G`; every list and the details take the
//! same keys to page, jump and search; the picker narrows as one types and
//! lists recordings by how their run ended. Drawn from real runs of the
//! shipped scenarios on the virtual clock into ratatui's TestBackend.

use crate::common;

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
    let mut app = App::new(AppOptions::default());
    app.add_from_events(events, Some("scenarios/test.json".into()))
        .expect("events start with run_started");
    app
}

/// Draw the app at `width` × `height` (remembering the screen's size, as
/// the dashboard does) and return the screen's text.
fn screen(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    app.screen = Rect::new(0, 0, width, height);
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
    // A replay read from its file asks the loop to read its moves.
    let reads = effects.iter().all(|e| {
        matches!(
            e,
            conclave::tui::effect::Effect::Seek { .. }
                | conclave::tui::effect::Effect::ReadAhead { .. }
        )
    });
    assert!(reads, "{code:?} asks nothing else of the world");
    conclave::tui::world::settle(app, effects);
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

#[tokio::test(start_paused = true)]
async fn the_workers_pane_says_what_the_plan_and_the_brief_cost() {
    let events = full_run("morning_ops_report.json").await;
    let mut app = app_with(&events);
    let mut summary = |width| {
        let text = screen(&mut app, width, 50);
        let line = text.lines().find(|l| l.contains(" running · "));
        line.unwrap_or_else(|| panic!("the summary line:\n{text}"))
            .to_string()
    };
    // The sim's model estimates its tokens: `~`; the workers are tools.
    let wide = summary(240);
    assert!(wide.contains("plan ~254 tok · brief ~"), "{wide}");
    // Narrower, the counts go first (each row shows its task's state):
    // what the model spent is read after the health.
    let narrower = summary(120);
    assert!(
        narrower.contains("health YELLOW · plan ~254 tok · brief ~210 tok · "),
        "{narrower}"
    );
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

/// Write `events` as a recording at `path`.
fn record(path: &std::path::Path, events: &[Arc<Event>]) {
    let lines: Vec<String> = events
        .iter()
        .map(|e| serde_json::to_string(&**e).unwrap())
        .collect();
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// `events` as if their run had started at `ms` (Unix milliseconds), so
/// the picker's start times are known.
fn started_at(events: &[Arc<Event>], ms: u64) -> Vec<Arc<Event>> {
    let mut events = events.to_vec();
    let mut first = (*events[0]).clone();
    let conclave::bus::EventKind::RunStarted(started) = &mut first.kind else {
        panic!("a run's first event is its start");
    };
    started.started_at_ms = ms;
    events[0] = Arc::new(first);
    events
}

/// The picker's start time for `ms`, in this machine's zone.
fn local(ms: u64) -> String {
    jiff::Timestamp::from_millisecond(ms as i64)
        .unwrap()
        .to_zoned(jiff::tz::TimeZone::system())
        .strftime("%m-%d %H:%M:%S")
        .to_string()
}

/// Make `path` look `age_s` seconds old, so recordings list in order.
fn aged(path: &std::path::Path, age_s: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(age_s);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn the_picker_lists_recordings_by_outcome_and_narrows_as_one_types() {
    let dir = tempfile::tempdir().unwrap();
    // Two runs of one scenario are told apart by when they started.
    let (early, late) = (1_764_000_000_000, 1_764_000_095_000);
    let outage = started_at(&full_run("vendor_outage.json").await, early);
    record(&dir.path().join("a.jsonl"), &outage);
    aged(&dir.path().join("a.jsonl"), 30);
    let deadlock = full_run("loyalty_program_deadlock.json").await;
    record(&dir.path().join("b.jsonl"), &started_at(&deadlock, early));
    aged(&dir.path().join("b.jsonl"), 20);
    // A run killed half way: no finish.
    let cut = started_at(&deadlock[..deadlock.len() / 2], late);
    record(&dir.path().join("c.jsonl"), &cut);
    aged(&dir.path().join("c.jsonl"), 10);
    // The snapshot holds the times in UTC's words, whatever this
    // machine's zone.
    let utc = |text: String| {
        text.replace(&local(early), "11-24 16:00:00")
            .replace(&local(late), "11-24 16:01:35")
    };

    let mut app = App::new(AppOptions {
        recordings_dir: Some(dir.path().to_path_buf()),
        scenarios_dir: dir.path().join("no scenarios here"),
        ..AppOptions::default()
    });
    // The loop scans the folders the picker lists.
    let scan = app.key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
    conclave::tui::world::settle(&mut app, scan);
    // The recordings' paths differ from run to run: shown by file name.
    for entry in &mut app.catalog {
        if let Some(name) = entry
            .origin
            .strip_prefix(&format!("{}/", dir.path().display()))
        {
            entry.origin = format!("runs/{name}");
        }
    }
    press(&mut app, KeyCode::End);
    let listed = utc(screen(&mut app, 100, 30));
    assert!(listed.contains("replay loyalty_program_deadlock · 11-24 16:01:35 · seed"));
    insta::assert_snapshot!("picker_with_recordings_100x30", listed);

    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "deadlock");
    let text = utc(screen(&mut app, 100, 30));
    insta::assert_snapshot!("picker_filtered_100x30", text);
    assert!(!text.contains("vendor_outage"), "{text}");

    // Enter keeps the filter; the first match is selected, the newest
    // recording of the run next; Enter replays it.
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('j'));
    let effects = app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(
        effects,
        vec![conclave::tui::effect::Effect::OpenRecording {
            job: 1,
            path: dir.path().join("c.jsonl")
        }],
    );
    // The loop reads it meanwhile; Esc abandons that first.
    press(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_some(), "the picker stays");
    // v keeps the failed runs; Esc clears the filter, then closes.
    press(&mut app, KeyCode::Char('v'));
    press(&mut app, KeyCode::Char('v'));
    let text = screen(&mut app, 100, 30);
    assert!(text.contains("failed only"), "{text}");
    press(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_some(), "the first Esc clears the filter");
    press(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
}

#[tokio::test(start_paused = true)]
async fn esc_clears_the_log_filter_and_the_details_page_search_and_end() {
    let events = full_run("vendor_outage.json").await;
    let mut app = app_with(&events);
    screen(&mut app, 100, 30);

    press(&mut app, KeyCode::Char('3'));
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "breaker");
    press(&mut app, KeyCode::Enter);
    let filtered = screen(&mut app, 100, 30);
    assert!(filtered.contains("matching \"breaker\""), "{filtered}");
    press(&mut app, KeyCode::Esc);
    let text = screen(&mut app, 100, 30);
    assert!(
        !text.contains("matching"),
        "Esc cleared the filter:\n{text}"
    );
    assert_eq!(app.run().unwrap().ui.log.filter, None);

    // The result's JSON: the end in one key, a search that finds what is
    // far down, Esc clearing the search and then closing.
    press(&mut app, KeyCode::Char('4'));
    press(&mut app, KeyCode::Enter);
    let top = screen(&mut app, 100, 30);
    assert!(top.contains("Details · rows 1–"), "{top}");
    press(&mut app, KeyCode::End);
    let end = screen(&mut app, 100, 30);
    let last = app_details(&app).lines().last().unwrap().trim().to_string();
    assert!(
        end.contains(&last),
        "the last line {last:?} is shown:\n{end}"
    );
    press(&mut app, KeyCode::Char('g'));
    press(&mut app, KeyCode::PageDown);
    let paged = screen(&mut app, 100, 30);
    assert!(
        paged.contains("rows 29–56 "),
        "a page is the 28 rows inside the frame:\n{paged}"
    );

    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "degraded");
    let found = screen(&mut app, 100, 30);
    assert!(found.contains("\"degraded\""), "{found}");
    assert!(found.contains("match 1 of"), "{found}");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Esc);
    assert!(
        matches!(&app.overlay, Some(Overlay::Details(d)) if d.query.is_empty()),
        "the first Esc clears the search"
    );
    press(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
}

fn app_details(app: &App) -> String {
    match &app.overlay {
        Some(Overlay::Details(details)) => details.text(),
        _ => panic!("the details are open"),
    }
}

#[tokio::test(start_paused = true)]
async fn the_runs_bar_follows_the_selected_run_past_the_sixth() {
    let events = full_run("support_swarm.json").await;
    let mut app = App::new(AppOptions::default());
    for run in 1..=12 {
        let numbered: Vec<Arc<Event>> = events
            .iter()
            .map(|e| {
                Arc::new(Event {
                    run,
                    ..(**e).clone()
                })
            })
            .collect();
        app.add_from_events(&numbered, None).unwrap();
    }
    press(&mut app, KeyCode::Char('1'));
    press(&mut app, KeyCode::Home);
    let runs_line = |app: &mut App| screen(app, 80, 24).lines().nth(2).unwrap().to_string();
    let first = runs_line(&mut app);
    assert!(first.contains(" 1 ✓ support_swarm"), "{first}");
    assert!(first.ends_with('›'), "more to the right: {first}");
    for _ in 0..8 {
        press(&mut app, KeyCode::Right);
    }
    assert_eq!(app.runs.selected, 8);
    let ninth = runs_line(&mut app);
    assert!(ninth.contains(" 9 ✓ support_swarm"), "{ninth}");
    assert!(ninth.contains('‹'), "hidden runs to the left: {ninth}");
    press(&mut app, KeyCode::End);
    let last = runs_line(&mut app);
    assert!(last.contains(" 12 ✓ support_swarm"), "{last}");
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "3 ");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.runs.selected, 2, "run 3 found");
    assert!(runs_line(&mut app).contains(" 3 ✓ support_swarm"));
}

#[tokio::test(start_paused = true)]
async fn a_replay_shows_its_pause_and_leaves_the_list_keys_to_the_lists() {
    let events = full_run("vendor_outage.json").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("outage.jsonl");
    record(&file, &events);
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_replay(&mut app, &file).unwrap();
    let runs_line = |app: &mut App| screen(app, 100, 30).lines().nth(2).unwrap().to_string();
    let paused = runs_line(&mut app);
    assert!(paused.contains("⏸") && !paused.contains('▶'), "{paused}");
    press(&mut app, KeyCode::Char(' '));
    assert!(runs_line(&mut app).contains('▶'), "playing");
    press(&mut app, KeyCode::Char(' '));

    // The replay's own keys: end, start, step, step back, jump.
    let seq = |app: &App| app.run().unwrap().replay.as_ref().unwrap().seq();
    press(&mut app, KeyCode::Char('>'));
    assert_eq!(seq(&app), events.len() as u64);
    press(&mut app, KeyCode::Char('<'));
    assert_eq!(seq(&app), 1);
    press(&mut app, KeyCode::Char('.'));
    let stepped = seq(&app);
    assert!(stepped > 1);
    press(&mut app, KeyCode::Char(','));
    assert!(seq(&app) < stepped);
    press(&mut app, KeyCode::Char(':'));
    type_text(&mut app, "3");
    press(&mut app, KeyCode::Enter);
    let at_wave_3 = seq(&app);
    assert!(at_wave_3 > 1);

    // g, End, ← and → reach the workers list, not the replay.
    press(&mut app, KeyCode::Char('>'));
    screen(&mut app, 100, 30);
    let tasks: Vec<String> = workers(&app).tasks.iter().map(|t| t.id.clone()).collect();
    press(&mut app, KeyCode::End);
    assert_eq!(selected_task(&mut app), tasks[39]);
    press(&mut app, KeyCode::Char('g'));
    assert_eq!(selected_task(&mut app), tasks[0]);
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Left);
    assert_eq!(
        seq(&app),
        events.len() as u64,
        "the replay stayed at its end"
    );
}

#[tokio::test(start_paused = true)]
async fn q_asks_before_cancelling_a_live_run() {
    use conclave::tui::effect::Effect;
    let hub = Hub::new(1024);
    let mut bus = hub.subscribe();
    let mut world = conclave::tui::world::World::new(
        hub,
        conclave::tui::world::LaunchSettings {
            start_paused: true,
            clock: Some(conclave::clock::ClockMode::Virtual),
            ..Default::default()
        },
    );
    let mut app = App::new(AppOptions::default());
    let effects = app.launch(common::shipped("checkout_v2_launch.json"), None);
    common::carry(&mut world, &mut app, effects);
    assert!(app.live_runs());
    let q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
    assert!(app.key(q).is_empty(), "q asks first");
    let text = screen(&mut app, 80, 24);
    assert!(text.contains("Quit?") && text.contains("y quits"), "{text}");
    press(&mut app, KeyCode::Char('n'));
    assert!(app.overlay.is_none(), "any other key stays");
    assert!(app.notice.is_some());
    assert!(app.key(q).is_empty());
    assert_eq!(
        app.key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE)),
        vec![Effect::Quit]
    );
    // The loop quits: the world cancels the run, and its end reaches the
    // app as any event does.
    for handle in world.take_handles() {
        handle.finish().await.unwrap();
    }
    for event in common::drain(&mut bus) {
        app.apply(Arc::new(event));
    }
    assert!(!app.live_runs());
    assert!(app.runs.iter().all(|s| !s.has_engine()));
}

/// The rows of the resilience strip under its title, without the mark of
/// a tool that got sicker or better in place.
fn tool_rows(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("[5] Resilience"))
        .skip(1)
        .take_while(|l| !l.starts_with('┌'))
        .map(|l| l.trim_start_matches(['▲', '▼', ' ']).to_string())
        .collect()
}

fn selected_tool(app: &mut App) -> String {
    app.update(Action::Details);
    let details: serde_json::Value = serde_json::from_str(&app_details(app)).unwrap();
    app.update(Action::Close);
    details["tool"].as_str().unwrap().to_string()
}

#[tokio::test(start_paused = true)]
async fn the_tools_list_follows_the_sick_sorts_filters_and_searches() {
    let events = full_run("vendor_outage.json").await;
    let mut app = app_with(&until(&events, 3_000));
    press(&mut app, KeyCode::Char('5'));
    screen(&mut app, 100, 30);
    assert_eq!(
        selected_tool(&mut app),
        "enrichment_worker",
        "its breaker is open"
    );

    for _ in 0..3 {
        press(&mut app, KeyCode::Char('o'));
    }
    let text = screen(&mut app, 100, 30);
    assert!(
        text.contains("Resilience · 3 tools · sort attempts"),
        "{text}"
    );
    let rows = tool_rows(&text);
    assert!(
        rows[0].starts_with("orders_worker"),
        "the most calls first: {rows:#?}"
    );
    assert_eq!(
        selected_tool(&mut app),
        "enrichment_worker",
        "still followed"
    );

    press(&mut app, KeyCode::Char('v'));
    let text = screen(&mut app, 100, 30);
    assert!(text.contains("sick only"), "{text}");
    let rows = tool_rows(&text);
    assert!(
        rows.iter()
            .all(|r| !r.starts_with("orders_worker") && !r.starts_with("model")),
        "{rows:#?}"
    );

    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "model");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_tool(&mut app), "model");
    assert!(screen(&mut app, 100, 30).contains("G follows"));
    press(&mut app, KeyCode::Char('G'));
    assert_eq!(selected_tool(&mut app), "enrichment_worker");
}

/// Esc peels back one thing at a time: a zoomed list's search or the
/// log's filter first, then the zoom.
#[tokio::test(start_paused = true)]
async fn esc_clears_a_zoomed_panes_search_before_it_unzooms() {
    let events = full_run("vendor_outage.json").await;
    let mut app = app_with(&events);
    screen(&mut app, 100, 30);

    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Char('z'));
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "jp-en");
    press(&mut app, KeyCode::Enter);
    let searched = screen(&mut app, 100, 30);
    assert!(app.zoomed && searched.contains("jp-enrich"), "{searched}");
    press(&mut app, KeyCode::Esc);
    assert!(app.zoomed, "the first Esc clears the search");
    press(&mut app, KeyCode::Esc);
    assert!(!app.zoomed, "the second unzooms");

    press(&mut app, KeyCode::Char('3'));
    press(&mut app, KeyCode::Char('z'));
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "breaker");
    press(&mut app, KeyCode::Enter);
    assert!(app.run().unwrap().ui.log.filter.is_some());
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.run().unwrap().ui.log.filter, None);
    assert!(app.zoomed, "the first Esc clears the filter");
    press(&mut app, KeyCode::Esc);
    assert!(!app.zoomed, "the second unzooms");
    assert_eq!(app.notice, None);
}

/// The log's rows between its title and its bottom border, as drawn.
fn log_rows(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.contains("[3] Event log"))
        .expect("the log pane is drawn");
    lines[top + 1..]
        .iter()
        .take_while(|l| !l.trim_start().starts_with('└'))
        .map(|l| l.to_string())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_log_scrolled_to_its_oldest_is_full_of_its_oldest_events() {
    let events = full_run("vendor_outage.json").await;
    let mut app = app_with(&events);
    screen(&mut app, 100, 30);
    press(&mut app, KeyCode::Char('3'));
    for keys in [
        &[KeyCode::Char('g')][..],
        &[KeyCode::Home][..],
        &[KeyCode::PageUp; 200][..],
    ] {
        press(&mut app, KeyCode::Char('G'));
        for key in keys {
            press(&mut app, *key);
        }
        let text = screen(&mut app, 100, 30);
        let rows = log_rows(&text);
        assert!(rows.len() > 3, "{text}");
        assert!(
            rows.iter().all(|row| row.contains('#')),
            "{keys:?}: every row of the pane holds an event:\n{text}"
        );
        assert!(
            rows[0].contains("#1 "),
            "{keys:?}: the first row is the run's first event:\n{text}"
        );
    }
}

/// With more entries than rows at 100×30 (the shipped scenarios, the
/// three graph ones among them, and recordings), the list scrolls and the
/// dashboard's key line stays under the picker.
#[tokio::test(start_paused = true)]
async fn the_picker_keeps_the_key_line_in_sight_and_scrolls_its_list_at_100x30() {
    let dir = tempfile::tempdir().unwrap();
    let outage = full_run("vendor_outage.json").await;
    for i in 0..8u64 {
        let name = format!("run{i}.jsonl");
        record(
            &dir.path().join(&name),
            &started_at(&outage, 1_764_000_000_000 + i * 60_000),
        );
        aged(&dir.path().join(&name), 100 - i);
    }
    let mut app = App::new(AppOptions {
        recordings_dir: Some(dir.path().to_path_buf()),
        scenarios_dir: dir.path().join("no scenarios here"),
        ..AppOptions::default()
    });
    let scan = app.key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
    conclave::tui::world::settle(&mut app, scan);
    assert!(
        app.catalog.len() > 27,
        "more entries than the picker has rows"
    );
    let rows = |text: &str| text.lines().map(String::from).collect::<Vec<_>>();

    let top = rows(&screen(&mut app, 100, 30));
    assert_eq!(top.len(), 30);
    let keys = &top[29];
    assert!(
        keys.contains("j/↓ next") && keys.contains("Enter launch"),
        "{top:#?}"
    );
    assert!(
        top[28].contains("└ j/k select"),
        "the picker ends above it: {top:#?}"
    );
    let graphs = top.iter().filter(|l| l.contains("│graph ")).count();
    assert_eq!(graphs, 3, "the three graph scenarios listed: {top:#?}");

    press(&mut app, KeyCode::End);
    let bottom = rows(&screen(&mut app, 100, 30));
    assert_eq!(&bottom[29], keys, "{bottom:#?}");
    assert!(bottom[28].contains("└ j/k select"), "{bottom:#?}");
    let recordings = bottom
        .iter()
        .filter(|l| l.contains("replay vendor_outage"))
        .count();
    assert_eq!(
        recordings, 8,
        "the recordings, last, are scrolled into sight: {bottom:#?}"
    );
    let origin = &app.catalog.last().unwrap().origin;
    let file = origin.rsplit('/').next().unwrap();
    assert!(
        bottom.iter().any(|l| l.contains(file)),
        "the last entry is the one selected: {bottom:#?}"
    );
    assert!(
        !bottom.iter().any(|l| l.contains("Checkout v2 launch")),
        "the list scrolled: {bottom:#?}"
    );
}

/// The first event number on each of the log's rows.
fn log_seqs(text: &str) -> Vec<u64> {
    log_rows(text)
        .iter()
        .filter_map(|row| {
            let after = &row[row.find('#')? + 1..];
            after.split_whitespace().next()?.parse().ok()
        })
        .collect()
}

/// A scrolled log holds still while events arrive, after `Home`, `k` or a
/// page up alike; it follows again on `G`, or once the user scrolls back
/// down to the newest.
#[tokio::test(start_paused = true)]
async fn a_scrolled_log_holds_still_while_events_arrive() {
    let events = full_run("regional_ops_sweep.json").await;
    let at = until(&events, 1_500);
    assert!(events.len() > at.len() + 100, "events arrive after 1.5 s");
    for keys in [
        &[KeyCode::Home][..],
        &[KeyCode::Char('k'); 3][..],
        &[KeyCode::PageUp][..],
    ] {
        let mut app = app_with(&at);
        screen(&mut app, 160, 48);
        press(&mut app, KeyCode::Char('3'));
        for key in keys {
            press(&mut app, *key);
        }
        let before = log_seqs(&screen(&mut app, 160, 48));
        if keys[0] == KeyCode::Home {
            assert_eq!(before[0], 1, "Home shows the run's first event");
        }
        for event in &events[at.len()..at.len() + 100] {
            app.apply(Arc::clone(event));
        }
        let text = screen(&mut app, 160, 48);
        assert_eq!(log_seqs(&text), before, "{keys:?}: the view held:\n{text}");
        assert!(text.contains("G follows"), "{text}");
        press(&mut app, KeyCode::Char('G'));
        let text = screen(&mut app, 160, 48);
        let newest = newest_line(&events[..at.len() + 100]);
        assert_eq!(log_seqs(&text).last(), Some(&newest), "G follows:\n{text}");
    }

    // Scrolled down to the newest, the log follows again by itself.
    let mut app = app_with(&at);
    screen(&mut app, 160, 48);
    press(&mut app, KeyCode::Char('3'));
    press(&mut app, KeyCode::Char('k'));
    for event in &events[at.len()..at.len() + 5] {
        app.apply(Arc::clone(event));
    }
    for _ in 0..6 {
        press(&mut app, KeyCode::Char('j'));
    }
    for event in &events[at.len() + 5..at.len() + 20] {
        app.apply(Arc::clone(event));
    }
    let text = screen(&mut app, 160, 48);
    assert!(text.contains("following"), "{text}");
    let newest = newest_line(&events[..at.len() + 20]);
    assert_eq!(log_seqs(&text).last(), Some(&newest));
}

/// The newest event that is a line of the log (a call's deltas are not).
fn newest_line(events: &[Arc<Event>]) -> u64 {
    let line = |e: &&Arc<Event>| !matches!(e.kind, conclave::bus::EventKind::CallDelta { .. });
    events.iter().rev().find(line).expect("a line").seq
}
