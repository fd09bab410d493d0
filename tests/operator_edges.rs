//! The operator's rough edges (issue 43): a partial run compared and shown
//! as partial, an escalated round as escalated, a pause with no gate left,
//! tabs and picker rows that say what they are, and the line that names
//! runs of other tabs needing a person.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::cli::{conclave, result};
use common::screen::of_app;
use conclave::bus::{Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::RoundEvent;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::view;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn screen(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    terminal.backend().buffer().clone()
}

/// The foreground colour of the first cell where `needle` shows.
fn colour_of(buffer: &Buffer, needle: &str) -> Option<Color> {
    let area = buffer.area;
    (0..area.height).find_map(|y| {
        let line: Vec<&str> = (0..area.width).map(|x| buffer[(x, y)].symbol()).collect();
        let joined = line.concat();
        let at = joined.find(needle)?;
        // Columns, not bytes: count the symbols before the match.
        let column = joined[..at].chars().count();
        Some(buffer[(column as u16, y)].fg)
    })
}

fn press(app: &mut App, code: KeyCode) {
    let effects = app.key(KeyEvent::new(code, KeyModifiers::NONE));
    conclave::tui::world::settle(app, effects);
}

/// `scenarios/<file>` recorded headless with `flags` into `dir/<name>`.
fn record(dir: &Path, file: &str, flags: &[&str], name: &str) -> PathBuf {
    let path = dir.join(name);
    let scenario = format!("scenarios/{file}");
    let recording = path.to_str().unwrap().to_string();
    let mut args = vec!["run", scenario.as_str(), "--headless"];
    for flag in flags {
        args.extend(["--flag", flag]);
    }
    args.extend(["--record", recording.as_str()]);
    let output = conclave(&args);
    assert!(
        matches!(output.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    path
}

/// The vendor outage without breakers: the run succeeds with its
/// enrichment tasks failed, and safe mode skipped nothing.
fn partial_recording(dir: &Path, name: &str) -> PathBuf {
    record(dir, "vendor_outage.json", &["breakers=off"], name)
}

#[test]
fn compare_calls_a_run_with_failed_tasks_partial_in_its_json_and_its_view() {
    let dir = tempfile::tempdir().unwrap();
    let a = partial_recording(dir.path(), "a.jsonl");
    let alone = result(&conclave(&["replay", a.to_str().unwrap(), "--headless"]));
    assert_eq!(alone["stop_reason"], "success", "{alone}");
    let output = conclave(&[
        "compare",
        a.to_str().unwrap(),
        a.to_str().unwrap(),
        "--headless",
    ]);
    let compared = result(&output);
    assert_eq!(compared["a"]["partial"], true, "{}", compared["a"]);
    assert_eq!(compared["b"]["partial"], true);

    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_comparison(&mut app, &a, &a).unwrap();
    let drawn = screen(&app, 160, 48);
    let shown = common::screen::text(&drawn);
    assert!(shown.contains("HEALTH GREEN · PARTIAL"), "{shown}");
    assert!(
        shown.contains("tasks failed"),
        "says what it lacks:\n{shown}"
    );
    assert_eq!(
        colour_of(&drawn, "HEALTH GREEN"),
        Some(Color::Yellow),
        "a partial run's outcome is never green"
    );
}

#[tokio::test(start_paused = true)]
async fn a_partial_run_does_not_stop_in_green() {
    let (_, events) = common::run(
        common::shipped("vendor_outage.json"),
        LaunchOptions {
            flags: vec![("breakers".into(), false)],
            ..LaunchOptions::default()
        },
    )
    .await;
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, None).unwrap();
    let drawn = screen(&app, 160, 48);
    let shown = common::screen::text(&drawn);
    assert!(shown.contains("stop: success · PARTIAL"), "{shown}");
    assert_eq!(colour_of(&drawn, "stop: success"), Some(Color::Yellow));
}

/// The deadlocked table asking a person after round 2, run with nobody
/// to answer: its events, the run's finish last.
async fn escalated(dir: &Path) -> Vec<Arc<Event>> {
    let file = common::escalating_deadlock(dir, true);
    let scenario = conclave::scenario::load(Path::new(&file)).unwrap();
    let (_, events) = common::run(Arc::new(scenario), LaunchOptions::default()).await;
    events.into_iter().map(Arc::new).collect()
}

#[tokio::test(start_paused = true)]
async fn a_round_after_which_the_table_asked_a_person_reads_escalated() {
    let dir = tempfile::tempdir().unwrap();
    let events = escalated(dir.path()).await;
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::Pattern(PatternEvent::Round(RoundEvent::EscalatedToHuman {
            round: 2,
            ..
        }))
    )));
    // While the table waits, and once the run has stopped for want of an
    // answer.
    for cut in [events.len() - 1, events.len()] {
        let mut app = App::new(AppOptions::default());
        app.add_from_events(&events[..cut], None).unwrap();
        let shown = of_app(&app, 160, 48);
        let decisions = shown
            .lines()
            .find(|l| l.contains("│decision "))
            .unwrap_or_default()
            .to_string();
        assert!(decisions.contains("? escalated"), "{decisions}\n{shown}");
        assert_eq!(
            decisions.matches("→ next").count(),
            1,
            "round 1 led to round 2; round 2 led to a question:\n{decisions}"
        );
        assert!(!decisions.contains("✗ none"), "{decisions}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_pause_asked_for_in_the_last_round_says_no_gate_is_left() {
    let (_, events) = common::run(
        common::shipped("loyalty_program_deadlock.json"),
        LaunchOptions::default(),
    )
    .await;
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    let rounds = |e: &Event| match &e.kind {
        EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted { round, .. })) => {
            Some(*round)
        }
        _ => None,
    };
    let last = events.iter().filter_map(|e| rounds(e)).max().unwrap();
    assert!(last > 1);
    // In the round before the last, a pause waits for the next gate.
    let second_last = events
        .iter()
        .position(|e| rounds(e) == Some(last - 1))
        .unwrap();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events[..=second_last], None).unwrap();
    press(&mut app, KeyCode::Char(' '));
    assert!(of_app(&app, 160, 48).contains("PAUSING…"));
    // In the last round no gate is ahead: the header says so at once.
    let in_last = events.iter().position(|e| rounds(e) == Some(last)).unwrap();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events[..=in_last], None).unwrap();
    press(&mut app, KeyCode::Char(' '));
    let shown = of_app(&app, 160, 48);
    assert!(!shown.contains("PAUSING…"), "{shown}");
    assert!(shown.contains("NO GATE LEFT"), "{shown}");
    assert!(
        shown.contains("no gate is left"),
        "the footer says why:\n{shown}"
    );
}

#[test]
fn two_replays_of_one_scenario_and_a_fork_say_what_each_tab_is() {
    let dir = tempfile::tempdir().unwrap();
    let a = partial_recording(dir.path(), "first.jsonl");
    let b = partial_recording(dir.path(), "second.jsonl");
    let fork = dir.path().join("forked.jsonl");
    let output = conclave(&[
        "fork",
        a.to_str().unwrap(),
        "--at",
        "wave 2",
        "--flag",
        "breakers=on",
        "--headless",
        "--record",
        fork.to_str().unwrap(),
    ]);
    assert!(
        matches!(output.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_comparison(&mut app, &a, &b).unwrap();
    press(&mut app, KeyCode::Esc);
    conclave::tui::world::open_replay(&mut app, &fork).unwrap();
    let shown = of_app(&app, 200, 48);
    let tabs = shown.lines().find(|l| l.contains("runs")).unwrap();
    assert!(tabs.contains("replay first.jsonl"), "{tabs}");
    assert!(tabs.contains("replay second.jsonl"), "{tabs}");
    assert!(tabs.contains("fork of #1 at wave 2"), "{tabs}");
    // Every tab has a number of its own: the fork ran as run 1 too.
    for number in ["1 ⏸", "2 ⏸", "3 ⏸"] {
        assert_eq!(tabs.matches(number).count(), 1, "{number:?}: {tabs}");
    }
}

#[test]
fn the_picker_names_the_files_of_recordings_that_share_a_title() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("conclave").join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let a = partial_recording(&runs, "morning-one.jsonl");
    std::fs::copy(&a, runs.join("morning-two.jsonl")).unwrap();
    let mut session = common::pty::Session::start(&[], home.path());
    session.wait_text("New run");
    session.press("/");
    session.press("replay");
    session.press("\r");
    session.wait_text("morning-one.jsonl");
    session.wait_text("morning-two.jsonl");
}

#[tokio::test(start_paused = true)]
async fn a_run_of_another_tab_asking_a_person_is_named_across_the_top() {
    let dir = tempfile::tempdir().unwrap();
    let asking: Vec<Arc<Event>> = escalated(dir.path())
        .await
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::RunFinished { .. }))
        .map(|e| {
            Arc::new(Event {
                run: 3,
                ..(**e).clone()
            })
        })
        .collect();
    let (_, other) = common::run(
        common::shipped("vendor_outage.json"),
        LaunchOptions::default(),
    )
    .await;
    let other: Vec<Arc<Event>> = other
        .into_iter()
        .map(|e| Arc::new(Event { run: 4, ..e }))
        .collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&asking, None).unwrap();
    app.add_from_events(&other, None).unwrap();
    assert_eq!(app.runs.selected, 1, "the other run is shown");
    let shown = of_app(&app, 120, 40);
    let top = shown.lines().next().unwrap();
    assert!(
        top.contains("needs attention: run 1 asks a person (E to jump)"),
        "{shown}"
    );
    press(&mut app, KeyCode::Char('E'));
    assert_eq!(app.runs.selected, 0, "E shows the run that asks");
    let shown = of_app(&app, 120, 40);
    // The other run, finished partial with failed tasks, still needs
    // attention; the shown run's own asking is said by its header alone.
    assert!(
        !shown.contains("asks a person (E to jump)") && !shown.contains("run 1 asks"),
        "the shown run's own header says it asks:\n{shown}"
    );
    assert!(
        shown.contains("needs attention: run 2 finished partial"),
        "{shown}"
    );
}

#[test]
fn a_sweep_without_a_price_names_the_model_on_its_cost_chart() {
    use conclave::engine::ProviderChoice;
    use conclave::sweep::{SweepArgs, SweepPlan, prepare, run_local};
    use conclave::tui::keymap::Action;
    use conclave::tui::sweep::{Ended, SweepState};
    let sweep = prepare(SweepArgs {
        scenario: PathBuf::from("scenarios/checkout_v2_launch.json"),
        at: None,
        plan: SweepPlan::new(1..=3, Vec::new()).unwrap(),
        parallel: Some(1),
        provider: ProviderChoice::default(),
        allow_real: false,
        allow_exec: false,
        answer: None,
        otlp: None,
    })
    .unwrap();
    let mut app = App::new(AppOptions::default());
    app.show_sweep(SweepState::new(&sweep));
    let mut results = Vec::new();
    run_local(
        &sweep.scenario,
        Some(&sweep.source),
        sweep.plan.jobs(),
        1,
        |r| results.push(r),
    )
    .unwrap();
    for result in results {
        app.sweep_result(result);
    }
    app.sweep_ended(Ended::Done);
    let cost_chart = |app: &App| of_app(app, 120, 30).contains("what their model calls cost");
    for _ in 0..12 {
        if cost_chart(&app) {
            break;
        }
        app.update(Action::Right);
    }
    let shown = of_app(&app, 120, 30);
    assert!(cost_chart(&app), "{shown}");
    assert!(shown.contains("done · 3/3 runs"), "{shown}");
    assert!(!shown.contains("No runs have finished yet"), "{shown}");
    assert!(shown.contains("the model sim has no price"), "{shown}");
}

/// `file` run to its end with every model priced at $1 and $2 a million
/// input and output tokens.
async fn priced_run(file: &str) -> Vec<Arc<Event>> {
    let dir = tempfile::tempdir().unwrap();
    let prices = dir.path().join("prices.json");
    std::fs::write(&prices, r#"{"sim": {"input": 1.0, "output": 2.0}}"#).unwrap();
    let (_, events) = common::run(
        common::shipped(file),
        LaunchOptions {
            provider: conclave::engine::ProviderChoice {
                pricing: Some(conclave::scenario::load_prices(&prices).unwrap()),
                ..Default::default()
            },
            ..LaunchOptions::default()
        },
    )
    .await;
    events.into_iter().map(Arc::new).collect()
}

#[tokio::test(start_paused = true)]
async fn priced_member_cards_and_the_orchestrators_plan_and_brief_show_their_cost() {
    let events = priced_run("launch_coordinator.json").await;
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, None).unwrap();
    for (width, height) in [(120, 40), (160, 48)] {
        let shown = of_app(&app, width, height);
        for cost in ["~$0.000142", "~$0.000351", "~$0.000148"] {
            assert!(
                shown.contains(cost),
                "each member card its cost {cost}:\n{shown}"
            );
        }
    }
    let events = priced_run("morning_ops_report.json").await;
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, None).unwrap();
    for (width, height) in [(80, 24), (120, 40), (160, 48)] {
        let shown = of_app(&app, width, height);
        let summary = shown.lines().find(|l| l.contains("health YELLOW")).unwrap();
        assert!(summary.contains("plan ~$0.000339"), "{summary}");
        assert!(summary.contains("brief ~$0.000291"), "{summary}");
    }
}

#[test]
fn stepping_a_replay_stops_at_the_question_to_a_person_and_at_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let file = common::escalating_deadlock(dir.path(), true);
    let recording = dir.path().join("asked.jsonl");
    let output = conclave(&[
        "run",
        &file,
        "--headless",
        "--decide",
        "go_with_caution",
        "--record",
        recording.to_str().unwrap(),
    ]);
    assert!(
        matches!(output.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_replay(&mut app, &recording).unwrap();
    let mut screens = Vec::new();
    for _ in 0..12 {
        press(&mut app, KeyCode::Char('s'));
        screens.push(of_app(&app, 120, 40));
    }
    let asked = screens
        .iter()
        .position(|s| s.contains("The table asked a person") && s.contains("Waiting for a person…"))
        .unwrap_or_else(|| panic!("no step stops at the question:\n{}", screens.join("\n")));
    assert!(
        screens[asked].contains("After round 2"),
        "{}",
        screens[asked]
    );
    let answered = &screens[asked + 1];
    assert!(
        answered.contains("A person answered: go with caution"),
        "the next step stops at the answer:\n{answered}"
    );
    assert!(
        !screens[asked + 2].contains("The table asked a person"),
        "a step later the question is behind:\n{}",
        screens[asked + 2]
    );
}

/// The words inside the box titled `title` on `shown`, row after row: what
/// the box shows, whatever is drawn beside it.
fn words_in(shown: &str, title: &str) -> String {
    let rows: Vec<Vec<char>> = shown.lines().map(|l| l.chars().collect()).collect();
    let Some((top, at)) = rows.iter().enumerate().find_map(|(y, row)| {
        let line: String = row.iter().collect();
        let byte = line.find(title)?;
        Some((y, line[..byte].chars().count()))
    }) else {
        return String::new();
    };
    let left = (0..at).rev().find(|&x| rows[top][x] == '┌').unwrap_or(0);
    let right = (at..rows[top].len())
        .find(|&x| rows[top][x] == '┐')
        .unwrap_or(rows[top].len());
    let mut inside = Vec::new();
    for row in &rows[top + 1..] {
        if row.get(left) == Some(&'└') {
            break;
        }
        let end = right.min(row.len());
        if left + 1 < end {
            inside.push(row[left + 1..end].iter().collect::<String>());
        }
    }
    inside
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test(start_paused = true)]
async fn the_goal_editor_wraps_a_long_goal_so_all_of_it_shows() {
    let (_, events) = common::run(
        common::shipped("loyalty_program_deadlock.json"),
        LaunchOptions::default(),
    )
    .await;
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, None).unwrap();
    press(&mut app, KeyCode::Char('e'));
    let typed: Vec<String> = (1..=30).map(|n| format!("word{n}")).collect();
    for c in format!(" {}", typed.join(" ")).chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let shown = words_in(&of_app(&app, 120, 40), "Goal");
    assert!(shown.starts_with("Decide whether to relaunch"), "{shown}");
    assert!(shown.contains(&typed.join(" ")), "{shown}");
}

#[test]
fn the_fork_dialog_shows_the_whole_goal() {
    let dir = tempfile::tempdir().unwrap();
    let recording = record(
        dir.path(),
        "loyalty_program_deadlock.json",
        &[],
        "loyalty.jsonl",
    );
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_replay(&mut app, &recording).unwrap();
    press(&mut app, KeyCode::Char('s'));
    press(&mut app, KeyCode::Char('s'));
    press(&mut app, KeyCode::Char('x'));
    let shown = words_in(&of_app(&app, 120, 40), "Fork at");
    assert!(
        shown.contains(
            "Decide whether to relaunch the loyalty programme with double points in Q2. Return one aligned decision."
        ),
        "{shown}"
    );
}

#[tokio::test(start_paused = true)]
async fn every_line_of_help_can_be_read_whole_at_160x40_and_80x24() {
    let (_, events) = common::run(
        common::shipped("checkout_v2_launch.json"),
        LaunchOptions::default(),
    )
    .await;
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    for (width, height) in [(160, 40), (80, 24)] {
        let mut app = App::new(AppOptions::default());
        app.add_from_events(&events, None).unwrap();
        app.screen = ratatui::layout::Rect::new(0, 0, width, height);
        press(&mut app, KeyCode::Char('?'));
        let first = of_app(&app, width, height);
        assert!(first.contains("more lines below"), "{first}");
        let mut seen = String::new();
        let mut last = String::new();
        for _ in 0..400 {
            let shown = of_app(&app, width, height);
            if shown == last {
                break;
            }
            seen.push_str(&words_in(&shown, "Keys"));
            seen.push(' ');
            last = shown;
            press(&mut app, KeyCode::Char('j'));
        }
        assert!(
            of_app(&app, width, height).contains("Esc closes"),
            "the help is still open"
        );
        for (group, keys) in conclave::tui::key_table() {
            assert!(seen.contains(group), "{group} at {width}x{height}");
            if group.starts_with("Pattern pane") {
                // With the keys of the run's pattern only (the table's).
                continue;
            }
            for (_, help) in keys {
                let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(seen.contains(&help), "{help:?} at {width}x{height}");
            }
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_swarm_transfers_details_hold_its_agents_tool_calls_whole() {
    let (_, events) = common::run(
        common::shipped("support_swarm.json"),
        LaunchOptions::default(),
    )
    .await;
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, None).unwrap();
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Enter);
    let shown = of_app(&app, 120, 40);
    assert!(shown.contains("\"from\": \"billing\""), "{shown}");
    assert!(shown.contains("\"tool\": \"invoice_lookup\""), "{shown}");
    assert!(shown.contains("\"order_id\": \"A-1042\""), "{shown}");
    assert!(
        shown.contains("\"duplicate\": true"),
        "the result too:\n{shown}"
    );
    assert!(shown.contains("\"message\": \""), "its message:\n{shown}");
    // The last transfer holds what its receiver did after it.
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::End);
    press(&mut app, KeyCode::Enter);
    let shown = of_app(&app, 120, 40);
    assert!(shown.contains("\"then\": {"), "{shown}");
    assert!(shown.contains("\"holder\": \""), "{shown}");
}

#[tokio::test(start_paused = true)]
async fn a_pause_asked_for_in_the_research_synthesis_says_no_gate_is_left() {
    use conclave::patterns::events::{ResearchEvent, ResearchPhase};
    let (_, events) = common::run(
        common::shipped("payments_incident_research.json"),
        LaunchOptions::default(),
    )
    .await;
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    let step = |e: &Event| match &e.kind {
        EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepStarted(s))) => {
            Some(s.phase)
        }
        _ => None,
    };
    for (phase, said) in [
        (ResearchPhase::Verify, "PAUSING…"),
        (ResearchPhase::Synthesize, "NO GATE LEFT"),
    ] {
        let at = events.iter().position(|e| step(e) == Some(phase)).unwrap();
        let mut app = App::new(AppOptions::default());
        app.add_from_events(&events[..=at], None).unwrap();
        press(&mut app, KeyCode::Char(' '));
        let shown = of_app(&app, 160, 48);
        assert!(shown.contains(said), "{phase:?}:\n{shown}");
    }
}

/// The orchestrator's gates are its waves and its retries: while a task may
/// still retry, a pause waits for that gate; once the retried task runs
/// its last attempt and no task waits to start, none is left.
#[tokio::test(start_paused = true)]
async fn a_pause_asked_for_at_the_orchestrators_last_retry_says_no_gate_is_left() {
    let (_, events) = common::run(
        common::shipped("morning_ops_report.json"),
        LaunchOptions::default(),
    )
    .await;
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    let attempt_of_payments = |e: &Event| match &e.kind {
        EventKind::AttemptStarted {
            worker, attempt, ..
        } if worker == "payments_worker" => Some(*attempt),
        _ => None,
    };
    for (attempt, said) in [(1, "PAUSING…"), (2, "NO GATE LEFT")] {
        let at = events
            .iter()
            .position(|e| attempt_of_payments(e) == Some(attempt))
            .unwrap();
        let mut app = App::new(AppOptions::default());
        app.add_from_events(&events[..=at], None).unwrap();
        press(&mut app, KeyCode::Char(' '));
        let shown = of_app(&app, 160, 48);
        assert!(shown.contains(said), "attempt {attempt}:\n{shown}");
    }
}

/// A run that stopped on a failed model call in another tab is named
/// across the top until the user has shown it once.
#[tokio::test(start_paused = true)]
async fn a_stopped_run_leaves_the_attention_line_once_it_was_shown() {
    use conclave::bus::RunStatus;
    let (_, events) = common::run(
        common::shipped("checkout_v2_launch.json"),
        LaunchOptions::default(),
    )
    .await;
    let run = |run: u32| {
        events
            .iter()
            .map(move |e| Arc::new(Event { run, ..e.clone() }))
    };
    let (finished, before): (Vec<Arc<Event>>, Vec<Arc<Event>>) =
        run(3).partition(|e| matches!(e.kind, EventKind::RunFinished { .. }));
    let mut stopped = (*finished[0]).clone();
    let EventKind::RunFinished {
        status,
        stop_reason,
        error,
        ..
    } = &mut stopped.kind
    else {
        unreachable!()
    };
    *status = RunStatus::Stopped;
    *stop_reason = serde_json::from_value(serde_json::json!("llm_unavailable")).unwrap();
    *error = Some("the endpoint answered 503".into());
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&before, None).unwrap();
    app.add_from_events(&run(4).collect::<Vec<_>>(), None)
        .unwrap();
    app.apply(Arc::new(stopped));
    let top = |app: &App| of_app(app, 120, 40).lines().next().unwrap().to_string();
    assert!(
        top(&app).contains("needs attention: run 1 stopped: llm_unavailable"),
        "{}",
        top(&app)
    );
    press(&mut app, KeyCode::Char('E'));
    assert_eq!(app.runs.selected, 0, "E shows the stopped run");
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(app.runs.selected, 1);
    assert!(
        !of_app(&app, 120, 40).contains("needs attention"),
        "seen once, the stop no longer calls:\n{}",
        of_app(&app, 120, 40)
    );
}

/// Two runs of one scenario say what tells them apart: their seeds, and
/// `live` only while a run goes on.
#[tokio::test(start_paused = true)]
async fn twin_tabs_say_their_seeds_and_live_only_while_running() {
    let run = |seed: u64| async move {
        let (_, events) = common::run(
            common::shipped("checkout_v2_launch.json"),
            LaunchOptions {
                seed: Some(seed),
                ..LaunchOptions::default()
            },
        )
        .await;
        events
            .into_iter()
            .map(Arc::new)
            .collect::<Vec<Arc<Event>>>()
    };
    let (first, second) = (run(7).await, run(8).await);
    let running: Vec<Arc<Event>> = second
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::RunFinished { .. }))
        .map(|e| {
            Arc::new(Event {
                run: 2,
                ..(**e).clone()
            })
        })
        .collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&first, None).unwrap();
    app.add_from_events(&running, None).unwrap();
    let shown = of_app(&app, 200, 40);
    let tabs = shown.lines().find(|l| l.contains("runs")).unwrap();
    assert!(tabs.contains("1 ✓ checkout_v2_launch · seed 7 │"), "{tabs}");
    assert!(
        tabs.contains("2 ▶ checkout_v2_launch · seed 8 · live │"),
        "{tabs}"
    );
}
