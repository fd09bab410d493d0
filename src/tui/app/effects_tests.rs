//! The update decides and the loop acts: keys yield effects and change
//! nothing outside the app, and what the loop says came of an effect shows
//! on the screen. No runtime, no engine and no file is touched here (an
//! engine launched without a tokio runtime would panic).

use super::tests::{events, finished, press, scenario};
use super::*;
use crate::clock::RunClock;
use crate::control::Control;
use crate::tui::effect::{Done, Effect, Started};
use crate::tui::keymap::OverlayKind;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What the loop says when the engine of `launch` started as run `run`.
fn started(run: crate::bus::RunId, launch: &Launch, old: Option<crate::bus::RunId>) -> Done {
    Done::Started(Started {
        run,
        in_place_of: old,
        scenario: Arc::clone(&launch.scenario),
        source: launch.source.clone(),
        recording: None,
        clock: RunClock::start_on(crate::bus::ClockMode::Virtual),
        forked_from: None,
    })
}

/// The app after `n`, on the picker's first scenario.
fn picking() -> App {
    let mut app = App::new(AppOptions::default());
    let scan = press(&mut app, KeyCode::Char('n'));
    crate::tui::world::settle(&mut app, scan);
    assert!(matches!(app.overlay, Some(Overlay::Picker(_))));
    app
}

#[test]
fn enter_in_the_picker_asks_for_a_launch_and_the_run_shows_once_it_started() {
    let mut app = picking();
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Launch { run: 1, launch }] = effects.as_slice() else {
        panic!("one launch, as run 1: {effects:?}");
    };
    assert!(
        app.runs.is_empty(),
        "nothing shows before the engine started"
    );
    assert!(!app.live_runs());

    app.focus = PaneId::Log;
    app.done(started(1, launch, None));
    let slot = app.run().expect("the run shows, selected");
    assert_eq!(slot.state.run, 1);
    assert!(slot.has_local_engine() && slot.is_live());
    assert_eq!(app.focus, PaneId::Pattern, "on its pattern's pane");
    assert!(app.live_runs(), "quitting now asks first");
    assert_eq!(press(&mut app, KeyCode::Char('q')), Vec::new());
    assert!(matches!(app.overlay, Some(Overlay::Quit { .. })));
}

#[test]
fn a_launch_that_fails_says_why_and_leaves_its_number_to_the_next() {
    let mut app = picking();
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Launch { run, launch }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    app.done(Done::NotStarted {
        run: *run,
        name: launch.scenario.name.clone(),
        in_place_of: None,
        why: "cannot create the runs folder".into(),
    });
    assert_eq!(
        app.notice,
        Some(format!(
            "cannot launch {}: cannot create the runs folder",
            launch.scenario.name
        ))
    );
    assert!(app.runs.is_empty());
    press(&mut app, KeyCode::Char('n'));
    assert!(matches!(
        press(&mut app, KeyCode::Enter).as_slice(),
        [Effect::Launch { run: 1, .. }]
    ));
}

#[test]
fn a_restart_replaces_the_run_once_its_new_engine_started() {
    let mut app = app_with(&finished("collaboration"));
    app.runs.pin(0);
    let effects = press(&mut app, KeyCode::Char('r'));
    let [
        Effect::Restart {
            old: 1,
            run: 2,
            launch,
        },
    ] = effects.as_slice()
    else {
        panic!("{effects:?}");
    };
    assert_eq!(app.run().unwrap().state.run, 1, "run 1 shows until then");
    app.done(Done::NotStarted {
        run: 2,
        name: "t".into(),
        in_place_of: Some(1),
        why: "the provider is gone".into(),
    });
    assert_eq!(
        app.notice.as_deref(),
        Some("cannot restart: the provider is gone")
    );
    app.focus = PaneId::Log;
    app.done(started(2, launch, Some(1)));
    assert_eq!(app.focus, PaneId::Log, "the pane shown stays");
    assert_eq!(app.runs.len(), 1, "in place");
    assert_eq!(app.run().unwrap().state.run, 2);
    assert_eq!(app.runs.pinned(), None, "the pinned run is gone");
}

#[test]
fn a_flag_turned_on_a_live_run_is_pending_until_its_engine_refuses_it() {
    let mut app = App::new(AppOptions::default());
    let launch = Launch::of(scenario("collaboration"), None, Overrides::default());
    app.done(started(1, &launch, None));
    for event in events("collaboration") {
        app.apply(event);
    }
    press(&mut app, KeyCode::Char('f'));
    let effects = press(&mut app, KeyCode::Enter);
    let command = Control::SetFlag {
        name: "legal".into(),
        on: true,
    };
    assert_eq!(
        effects,
        vec![Effect::Control {
            run: 1,
            command: command.clone()
        }]
    );
    assert_eq!(app.run().unwrap().ui.pending_flag("legal"), Some(true));
    app.done(Done::Refused {
        run: 1,
        command,
        why: "too many commands are waiting for the next gate".into(),
    });
    assert_eq!(app.run().unwrap().ui.pending_flag("legal"), None);
    assert_eq!(
        app.notice.as_deref(),
        Some("too many commands are waiting for the next gate")
    );
}

#[test]
fn y_copies_through_the_terminal_and_w_writes_a_file_only_as_effects() {
    let mut app = app_with(&finished("collaboration"));
    press(&mut app, KeyCode::Char('4'));
    let effects = press(&mut app, KeyCode::Char('y'));
    let [Effect::Copy(sequence)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert!(sequence.starts_with("\u{1b}]52;c;"), "{sequence:?}");
    assert!(
        app.notice
            .as_deref()
            .is_some_and(|n| n.starts_with("copied "))
    );

    press(&mut app, KeyCode::Char('w'));
    let Some(Overlay::Export(prompt)) = &mut app.overlay else {
        panic!("w asks where: {:?}", app.notice);
    };
    let path = std::env::temp_dir()
        .join("conclave-never-written")
        .join("result.json");
    prompt.path = path.display().to_string();
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Write { path: to, contents }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(to, &path);
    assert!(contents.contains("stopped"), "{contents}");

    app.done(Done::NotWritten {
        path: path.clone(),
        why: "permission denied".into(),
    });
    assert_eq!(
        app.notice,
        Some(format!(
            "cannot write {}: permission denied",
            path.display()
        ))
    );
    app.done(Done::Wrote { path, bytes: 12 });
    assert!(
        app.notice
            .as_deref()
            .is_some_and(|n| n.starts_with("wrote 12 bytes to "))
    );
}

#[test]
fn a_run_of_another_engine_is_shown_at_once_and_followed_by_the_loop() {
    let scenario = scenario("collaboration");
    let live = crate::nats::watch::LiveRun {
        id: crate::nats::subjects::RemoteRunId::new("e1", 4),
        pattern: scenario.pattern,
        scenario,
        events: 0,
    };
    let mut app = App::new(AppOptions::default());
    assert!(app.attach(&live).is_empty());
    assert_eq!(app.notice.as_deref(), Some("not attached to a NATS server"));

    let mut app = App::new(AppOptions {
        attach: true,
        ..AppOptions::default()
    });
    assert_eq!(
        app.attach(&live),
        vec![Effect::Follow {
            run: 1,
            id: live.id.clone()
        }]
    );
    assert_eq!(app.run().unwrap().remote(), Some(&live.id));
    assert!(
        app.attach(&live).is_empty(),
        "shown already: selected again"
    );
    assert_eq!(app.runs.len(), 1);
}

fn app_with(events: &[Arc<crate::bus::Event>]) -> App {
    super::tests::app_with(events)
}

#[test]
fn ctrl_c_quits_from_any_dialog_and_staying_goes_back_to_it() {
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    // No run: out at once, from a dialog that takes text as from any.
    let mut app = picking();
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(
        app.overlay.as_ref().map(Overlay::kind),
        Some(OverlayKind::Search)
    );
    assert_eq!(app.key(ctrl_c), vec![Effect::Quit]);
    let mut app = App::new(AppOptions::default());
    press(&mut app, KeyCode::Char('?'));
    assert_eq!(app.key(ctrl_c), vec![Effect::Quit]);

    // A live run: asked first over each dialog, which staying brings back.
    let mut app = picking();
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Launch { run: 1, launch }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    app.done(started(1, launch, None));
    app.focus = PaneId::Log;
    for (opens, kind) in [
        (KeyCode::Char('?'), OverlayKind::Help),
        (KeyCode::Char('e'), OverlayKind::Goal),
        (KeyCode::Char('/'), OverlayKind::Filter),
        (KeyCode::Char('n'), OverlayKind::Picker),
    ] {
        press(&mut app, opens);
        assert_eq!(
            app.overlay.as_ref().map(Overlay::kind),
            Some(kind),
            "{:?}",
            app.notice
        );
        assert_eq!(app.key(ctrl_c), Vec::new(), "{kind:?}: asked first");
        let Some(Overlay::Quit { under: Some(under) }) = &app.overlay else {
            panic!("{kind:?}: {:?}", app.overlay.as_ref().map(Overlay::kind));
        };
        assert_eq!(under.kind(), kind);
        assert_eq!(press(&mut app, KeyCode::Char('x')), Vec::new());
        assert_eq!(app.overlay.as_ref().map(Overlay::kind), Some(kind));
        assert_eq!(app.notice.as_deref(), Some("not quitting: the runs go on"));
        assert_eq!(app.key(ctrl_c), Vec::new());
        assert_eq!(app.key(ctrl_c), vec![Effect::Quit], "{kind:?}: twice quits");
        press(&mut app, KeyCode::Char('x'));
        press(&mut app, KeyCode::Esc);
        assert!(app.overlay.is_none(), "{kind:?} closes on Esc");
    }
}
