//! Forks in the dashboard, through the real binary in a pseudo-terminal:
//! `x` in a replay forks it at the first gate after what it shows, with a flag
//! turned in the dialog, and the comparison with its parent opens once the
//! fork has finished, diverging where the turned flag takes effect;
//! `conclave fork` without `--headless` opens the dashboard with the fork
//! running, and `run --cassette` serves the dashboard's run.

use crate::common;

use common::cli::conclave;
use common::pty::Session;
use std::path::Path;

/// A headless run of the checkout launch (two rounds; `legal_analyst`
/// off), recorded to `path`.
fn record_parent(path: &Path) {
    let output = conclave(&[
        "run",
        "scenarios/checkout_v2_launch.json",
        "--headless",
        "--record",
        path.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The screen's words, borders left out, one space between them.
fn words(text: &str) -> String {
    text.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_replay_forked_with_the_legal_analyst_seated_diverges_from_its_parent_in_that_round() {
    let home = tempfile::tempdir().unwrap();
    let parent = home.path().join("parent.jsonl");
    record_parent(&parent);
    let mut session = Session::start(&["replay", parent.to_str().unwrap()], home.path());
    session.wait_text("round 0/2");
    // One step, to the end of round 1: the fork serves what the replay
    // shows and goes live at the next gate, round 2.
    session.press("s");
    session.wait_text("round 1/2");
    session.press("x");
    session.wait_text("Fork at round 2");
    session.wait_for("the flag as it stood at the gate", |t| {
        words(t).contains("[off] legal_analyst")
    });
    session.press(" ");
    session.wait_for("the flag turned for the fork", |t| {
        words(t).contains("[on ] legal_analyst (was off: turned at the gate)")
    });
    session.press("\r");
    session.wait_text("First divergence");
    let text = words(&session.text());
    assert!(text.contains("Compare · A:"), "{text}");
    // The parent closes round 2 where the fork asks the analyst who
    // joined at its gate.
    assert!(
        text.contains("A #35") && text.contains("round 2: go_vs_caution → go_with_caution"),
        "{text}"
    );
    assert!(
        text.contains("B #37") && text.contains("round 2 · legal_analyst asked"),
        "{text}"
    );
    // Going live and the flag turned are the fork's control, not
    // divergences.
    assert!(text.contains("legal_analyst on"), "{text}");
    assert!(
        text.contains("live from here on (before round 2)"),
        "{text}"
    );
    let forks = common::pty::recordings(home.path());
    assert_eq!(forks.len(), 1, "the fork is recorded like any run");
    let fork = std::fs::read_to_string(&forks[0]).unwrap();
    assert!(fork.contains("\"forked_from\""), "{fork}");
    assert!(
        fork.contains("\"type\":\"run_finished\""),
        "complete: {fork}"
    );
    session.press("\x1b");
    session.wait_for("the comparison closed", |t| !t.contains("First divergence"));
    session.press("q");
    assert!(session.wait_exit().success());
}

#[test]
fn fork_without_headless_opens_the_dashboard_with_the_fork_running() {
    let home = tempfile::tempdir().unwrap();
    let parent = home.path().join("parent.jsonl");
    record_parent(&parent);
    let mut session = Session::start(
        &[
            "fork",
            parent.to_str().unwrap(),
            "--at",
            "round 2",
            "--flag",
            "legal_analyst=on",
        ],
        home.path(),
    );
    session.wait_text("served ok");
    session.wait_text("live from here on (before round 2)");
    session.wait_for("the analyst who joined at the gate", |t| {
        t.contains("legal_analyst")
    });
    session.press("q");
    // The run may still go: quitting asks first.
    session.press("y");
    assert!(session.wait_exit().success());
    assert_eq!(common::pty::recordings(home.path()).len(), 1);
}

#[test]
fn fork_without_headless_says_what_is_wrong_with_the_gate_before_the_screen_opens() {
    let home = tempfile::tempdir().unwrap();
    let parent = home.path().join("parent.jsonl");
    record_parent(&parent);
    let output = conclave(&["fork", parent.to_str().unwrap(), "--at", "round 7"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("round 1 to round 2, not round 7"),
        "{stderr}"
    );
}

#[test]
fn run_with_a_cassette_in_the_dashboard_serves_its_calls() {
    let home = tempfile::tempdir().unwrap();
    let parent = home.path().join("parent.jsonl");
    record_parent(&parent);
    let mut session = Session::start(
        &[
            "run",
            "scenarios/checkout_v2_launch.json",
            "--cassette",
            parent.to_str().unwrap(),
            "--no-record",
        ],
        home.path(),
    );
    session.wait_text("served ok");
    session.press("q");
    session.press("y");
    assert!(session.wait_exit().success());
}

/// A key as the terminal gives it.
fn key(code: crossterm::event::KeyCode) -> crossterm::event::KeyEvent {
    crossterm::event::KeyEvent::new(code, crossterm::event::KeyModifiers::NONE)
}

#[test]
fn the_fork_dialog_keeps_the_round_the_replay_shows_and_goes_live_at_the_next() {
    use conclave::tui::app::{App, AppOptions};
    use crossterm::event::KeyCode;

    let home = tempfile::tempdir().unwrap();
    let parent = home.path().join("parent.jsonl");
    record_parent(&parent);
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_replay(&mut app, &parent).unwrap();
    // One step: the replay shows round 1 whole, and round 2 not yet.
    let effects = app.key(key(KeyCode::Char('s')));
    conclave::tui::world::settle(&mut app, effects);
    let effects = app.key(key(KeyCode::Char('x')));
    conclave::tui::world::settle(&mut app, effects);
    let screen = words(&common::screen::of_app(&app, 160, 40));
    assert!(screen.contains("Fork at round 2"), "{screen}");
    assert!(
        screen.contains("served: round 1 (as the replay shows it) · live: round 2 on"),
        "{screen}"
    );
    assert!(!screen.contains("Fork at round 1"), "{screen}");

    // At the run's end no gate comes after: the last round runs again,
    // and the dialog says so.
    let effects = app.key(key(KeyCode::Esc));
    conclave::tui::world::settle(&mut app, effects);
    let effects = app.key(key(KeyCode::Char('>')));
    conclave::tui::world::settle(&mut app, effects);
    let effects = app.key(key(KeyCode::Char('x')));
    conclave::tui::world::settle(&mut app, effects);
    let screen = words(&common::screen::of_app(&app, 160, 40));
    assert!(screen.contains("Fork at round 2"), "{screen}");
    assert!(
        screen.contains("served: round 1 · live: round 2 on, which the replay has shown"),
        "{screen}"
    );
}

/// From the start of a replay whose table asked a person (and stopped,
/// nobody answering headless), the dialog forks at round 1 and offers the
/// table's question; the answer picked there answers it in the fork,
/// which then decides where its parent stopped.
#[test]
fn the_fork_dialog_forks_at_round_1_with_the_answer_to_the_question_it_will_meet() {
    let home = tempfile::tempdir().unwrap();
    let parent = home.path().join("asked.jsonl");
    let output = conclave(&[
        "run",
        "scenarios/loyalty_program_asks_a_person.json",
        "--headless",
        "--record",
        parent.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(3), "stopped: nobody answered");
    let mut session = Session::start(&["replay", parent.to_str().unwrap()], home.path());
    session.wait_text("round 0/");
    session.press("x");
    session.wait_text("Fork at round 1");
    session.wait_for("the gate row and the answer offered", |t| {
        let t = words(t);
        t.contains("gate ‹ round 1 ›")
            && t.contains("served: nothing · live: round 1 on")
            && t.contains("answer ‹ a person answers (the dashboard asks) ›")
            && t.contains("asked after the gate")
    });
    // Down to the answer row, the last; right once: the first option.
    for _ in 0..8 {
        session.press("\x1b[B");
    }
    session.press("\x1b[C");
    session.wait_for("the first option picked", |t| {
        words(t).contains("answer ‹ go ›")
    });
    session.press("\r");
    session.wait_text("First divergence");
    let forks = common::pty::recordings(home.path());
    assert_eq!(forks.len(), 1, "the fork is recorded like any run");
    let fork = std::fs::read_to_string(&forks[0]).unwrap();
    assert!(fork.contains("\"type\":\"human_decided\""), "{fork}");
    assert!(fork.contains("\"stop_reason\":\"success\""), "{fork}");
    session.press("\x1b");
    session.wait_for("the comparison closed", |t| !t.contains("First divergence"));
    session.press("q");
    assert!(session.wait_exit().success());
}
