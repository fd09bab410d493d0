//! Forking a replay, decided without a terminal, an engine or a file: `x`
//! opens the dialog at the gate of the step the replay stands in, Enter
//! asks for the fork's launch with what the dialog changed, Esc asks for
//! nothing, and the fork once started pins its parent and, once finished,
//! asks for its recording to be complete before the comparison.

use super::tests::{events, press};
use super::*;
use crate::bus::{ClockMode, EventKind, RunStatus};
use crate::cassette::GateTarget;
use crate::clock::RunClock;
use crate::engine::ForkRequest;
use crate::record::Recording;
use crate::stop::StopReason;
use crate::tui::effect::{Done, Effect, Started};
use crate::tui::keymap::Action;
use crate::tui::recording::Opened;
use crate::tui::replay::Replay;
use crossterm::event::KeyCode;
use serde_json::json;

const PARENT: &str = "/recordings/parent.jsonl";

/// The app replaying `events` as if read from [`PARENT`], at their start.
pub(crate) fn replaying(events: Vec<Arc<Event>>) -> App {
    let EventKind::RunStarted(started) = &events[0].kind else {
        panic!("a run's start first");
    };
    let scenario = Arc::clone(&started.scenario);
    let (replay, state) = Replay::open(Recording {
        events,
        problems: Vec::new(),
    })
    .unwrap();
    let mut app = App::new(AppOptions::default());
    app.show_replay(Opened {
        path: PathBuf::from(PARENT),
        replay,
        state,
        scenario,
    });
    app
}

pub(super) fn event(seq: u64, value: serde_json::Value) -> Arc<Event> {
    let mut value = value;
    value["run"] = json!(1);
    value["seq"] = json!(seq);
    value["t_ms"] = json!(seq * 100);
    Arc::new(serde_json::from_value(value).unwrap())
}

/// The dialog open, or a panic saying what is open instead.
pub(super) fn dialog(app: &App) -> &crate::tui::overlays::fork::ForkPrompt {
    match &app.overlay {
        Some(Overlay::Fork(prompt)) => prompt,
        _ => panic!("the fork dialog is open; notice: {:?}", app.notice),
    }
}

pub(super) fn round(number: u32) -> GateTarget {
    GateTarget {
        kind: crate::bus::GateKind::Round,
        number,
    }
}

#[test]
fn x_opens_the_dialog_at_the_gate_after_what_the_replay_shows() {
    let mut app = replaying(events("collaboration"));
    // At the run's start: round 1, with nothing served.
    assert_eq!(press(&mut app, KeyCode::Char('x')), Vec::new());
    let prompt = dialog(&app);
    assert_eq!(prompt.gate, round(1));
    assert_eq!((prompt.served.clone(), prompt.again), (vec![], false));
    press(&mut app, KeyCode::Esc);

    // A step goes to the end of round 1: the replay shows round 1 whole,
    // which the fork serves, and goes live at round 2.
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(press(&mut app, KeyCode::Char('x')), Vec::new());
    let prompt = dialog(&app);
    assert_eq!(prompt.gate, round(2));
    assert_eq!(
        (prompt.served.clone(), prompt.again),
        (vec![round(1)], false)
    );
    assert_eq!(prompt.recording, PathBuf::from(PARENT));
    assert_eq!(prompt.flags.len(), 1);
    assert_eq!(
        (prompt.flags[0].name.as_str(), prompt.flags[0].on),
        ("legal", false),
        "the flag as it stood there"
    );
    assert_eq!(prompt.changed_goal(), None, "the parent's goal to start");

    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('>'));
    press(&mut app, KeyCode::Char('x'));
    assert_eq!(dialog(&app).gate, round(2), "at the end, the last gate");
    assert!(dialog(&app).again, "whose round runs again");
}

#[test]
fn enter_asks_for_the_fork_with_the_flag_turned_the_goal_and_the_model() {
    let mut app = replaying(events("collaboration"));
    press(&mut app, KeyCode::Char('>'));
    press(&mut app, KeyCode::Char('x'));
    press(&mut app, KeyCode::Char(' '));
    assert!(dialog(&app).flags[0].on, "space turns the flag");
    // Down to the goal: typed at its end, a space included.
    press(&mut app, KeyCode::Down);
    for c in " Fast.".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Tab);
    for c in "gpt-x".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let effects = press(&mut app, KeyCode::Enter);
    // Run 1: the replay's number is its recording's, not the dashboard's.
    let [Effect::Launch { run: 1, launch }] = effects.as_slice() else {
        panic!("one launch, as the dashboard's first run: {effects:?}");
    };
    assert_eq!(
        launch.fork,
        Some(ForkRequest {
            recording: PathBuf::from(PARENT),
            at: "round 2".into(),
            flags: vec![("legal".into(), true)],
            goal: Some("Decide. Fast.".into()),
            seed: None,
            edits: Vec::new(),
        })
    );
    assert_eq!(launch.model.as_deref(), Some("gpt-x"));
    assert!(app.overlay.is_none());
    assert!(app.runs.pinned().is_none(), "pinned once the fork started");
}

/// The dialog offering `output` to edit, as a pane that names a node's
/// output offers it.
fn offering(app: &mut App, output: &str) {
    let Some(Overlay::Fork(prompt)) = app.overlay.take() else {
        panic!("the fork dialog is open");
    };
    app.overlay = Some(Overlay::Fork(Box::new(prompt.with_output(output))));
}

#[test]
fn an_offered_output_is_edited_and_forked_with_and_a_bad_one_keeps_the_dialog() {
    let mut app = replaying(events("collaboration"));
    press(&mut app, KeyCode::Char('>'));
    press(&mut app, KeyCode::Char('x'));
    offering(&mut app, "review:/verdict=\"revise\"");
    // Past the flag, the goal and the model to the output, its text
    // cleared and typed again.
    for _ in 0..3 {
        press(&mut app, KeyCode::Down);
    }
    for _ in 0.."review:/verdict=\"revise\"".len() {
        press(&mut app, KeyCode::Backspace);
    }
    for c in "review/verdict=approve".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    assert_eq!(press(&mut app, KeyCode::Enter), Vec::new());
    let notice = app.notice.clone().unwrap();
    assert!(notice.contains("expected NODE:/POINTER=VALUE"), "{notice}");
    assert!(
        dialog(&app).output.is_some(),
        "the dialog stays open to mend it"
    );

    for _ in 0.."review/verdict=approve".len() {
        press(&mut app, KeyCode::Backspace);
    }
    for c in "review:/verdict=approve".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Launch { launch, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    let edits = &launch.fork.as_ref().unwrap().edits;
    assert_eq!(
        edits,
        &vec![
            "review:/verdict=approve"
                .parse::<crate::cassette::OutputEdit>()
                .unwrap()
        ]
    );
}

#[test]
fn esc_forks_nothing() {
    let mut app = replaying(events("collaboration"));
    press(&mut app, KeyCode::Char('s'));
    press(&mut app, KeyCode::Char('x'));
    press(&mut app, KeyCode::Char(' '));
    assert_eq!(press(&mut app, KeyCode::Esc), Vec::new());
    assert!(app.overlay.is_none());
    assert_eq!(app.notice.as_deref(), Some("not forked"));
    assert_eq!(app.take_queued(), Vec::new());
}

#[test]
fn a_recording_made_before_cassettes_says_it_cannot_be_forked() {
    let mut all = events("collaboration");
    all.push(event(
        4,
        json!({"type": "call_finished", "call": 1, "tool": "model", "attempt": 1,
               "latency_ms": 5, "outcome": "ok"}),
    ));
    let mut app = replaying(all);
    press(&mut app, KeyCode::Char('>'));
    assert_eq!(press(&mut app, KeyCode::Char('x')), Vec::new());
    assert!(app.overlay.is_none());
    let notice = app.notice.clone().unwrap();
    assert!(notice.contains("made before cassettes"), "{notice}");
}

#[test]
fn a_started_fork_pins_its_parent_and_once_finished_waits_for_its_recording() {
    let mut app = replaying(events("collaboration"));
    press(&mut app, KeyCode::Char('>'));
    press(&mut app, KeyCode::Char('x'));
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Launch { launch, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    app.done(Done::Started(Started {
        run: 1,
        in_place_of: None,
        scenario: Arc::clone(&launch.scenario),
        source: launch.source.clone(),
        recording: Some(PathBuf::from("/runs/fork.jsonl")),
        clock: RunClock::start_on(ClockMode::Virtual),
        forked_from: Some(PathBuf::from(PARENT)),
    }));
    assert_eq!(app.runs.pinned(), Some(0), "the parent's replay");
    assert_eq!(app.runs.selected, 1, "the fork, selected");

    app.apply(Arc::new(Event {
        run: 1,
        seq: 1,
        t_ms: 0,
        kind: EventKind::RunFinished {
            status: RunStatus::Ok,
            stop_reason: StopReason::Success,
            phase: None,
            result: Arc::new(json!({"status": "ok"}).into()),
            summary: Box::default(),
            error: None,
        },
    }));
    assert_eq!(
        app.take_queued(),
        vec![Effect::AwaitRecording { run: 1 }],
        "the comparison waits for the fork's recording to be complete"
    );
    app.done(Done::Recorded {
        run: 1,
        failed: Some("disk full".into()),
    });
    assert_eq!(
        app.notice.as_deref(),
        Some("the fork's recording failed: disk full")
    );
    assert!(app.overlay.is_none());
}

#[test]
fn the_recorded_goal_shows_without_escapes_and_left_alone_is_the_parents() {
    let mut all = events("collaboration");
    let EventKind::RunStarted(started) = &all[0].kind else {
        panic!("a run's start first");
    };
    let mut started = started.clone();
    started.goal = "Decide\u{1b}[2J now.\nQuickly.".into();
    all[0] = Arc::new(Event {
        kind: EventKind::RunStarted(started),
        ..(*all[0]).clone()
    });
    let mut app = replaying(all);
    press(&mut app, KeyCode::Char('>'));
    press(&mut app, KeyCode::Char('x'));
    let shown = dialog(&app).goal.lines().join("\n");
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
    assert!(
        shown.contains("now.") && shown.contains("Quickly."),
        "{shown:?}"
    );
    assert_eq!(dialog(&app).changed_goal(), None);
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Launch { launch, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(launch.fork.as_ref().unwrap().goal, None, "the parent's own");
}

#[test]
fn a_finished_fork_leaves_an_open_overlay_alone_and_says_how_to_compare() {
    let mut app = replaying(events("collaboration"));
    press(&mut app, KeyCode::Char('>'));
    press(&mut app, KeyCode::Char('x'));
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Launch { launch, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    app.done(Done::Started(Started {
        run: 1,
        in_place_of: None,
        scenario: Arc::clone(&launch.scenario),
        source: launch.source.clone(),
        recording: Some(PathBuf::from("/runs/fork.jsonl")),
        clock: RunClock::start_on(ClockMode::Virtual),
        forked_from: Some(PathBuf::from(PARENT)),
    }));
    press(&mut app, KeyCode::Char('?'));
    app.done(Done::Recorded {
        run: 1,
        failed: None,
    });
    assert!(matches!(app.overlay, Some(Overlay::Help { .. })));
    assert_eq!(
        app.notice.as_deref(),
        Some("run 1 finished: c compares it with its parent (pinned)")
    );
    assert_eq!(app.fork_watch, None, "compared once at most");
}

/// Another framework's run is not changed here, but its replay still
/// plays again from the start (`r`); out of a replay, `r` (a restart) is
/// refused too. Its `x` asks its recording whether it is a launched run
/// that forks at a model call (src/tui/app/program_fork_tests.rs).
#[test]
fn a_watched_runs_replay_plays_again_from_the_start_and_forks_only_from_its_recording() {
    let (events, _) = crate::watch::translate::tests::told("pydantic_ai").remove(0);
    let events: Vec<Arc<crate::bus::Event>> = events.into_iter().map(Arc::new).collect();
    let mut app = replaying(events.clone());
    for action in [Action::Flags, Action::EditGoal] {
        let why = app.unavailable(action);
        assert!(
            why.is_some_and(|w| w.contains("another framework's")),
            "{action:?}: {why:?}"
        );
    }
    assert_eq!(app.unavailable(Action::Restart), None);
    let effects = press(&mut app, KeyCode::Char('x'));
    assert!(
        app.overlay.is_none(),
        "no gate's fork dialog for a watched run"
    );
    assert!(
        matches!(effects.as_slice(), [Effect::OfferProgramFork { recording, .. }] if recording == std::path::Path::new(PARENT)),
        "{effects:?}"
    );
    let loaded = super::tests::app_with(&events);
    assert!(loaded.run().is_some_and(|r| r.replay.is_none()));
    assert!(loaded.unavailable(Action::Restart).is_some());
}
