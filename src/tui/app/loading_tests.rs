//! The app reads no file: a recording picked to replay, or two runs to
//! compare, become effects the loop carries out; their progress and their
//! result come back as messages, the footer shows how far the reading
//! has come, keys still work meanwhile, and Esc abandons the wait.

use super::tests::{app_with, events, finished, press};
use super::*;
use crate::record::Recording;
use crate::tui::catalog::{Item, Recorded};
use crate::tui::effect::{Done, Effect, SideEvents, Unit};
use crate::tui::overlays::picker::PickerView;
use crate::tui::recording::Opened;
use crate::tui::replay::Replay;
use crossterm::event::KeyCode;

/// The screen's text at 100×30.
fn screen(app: &mut App) -> String {
    super::tests::screen_of(app, 100, 30)
}

/// The picker on one recording, at `path` (which need not exist: the
/// update never looks).
fn picker_on(path: &str) -> App {
    let mut app = App::new(AppOptions::default());
    app.catalog.push(Entry {
        origin: path.into(),
        item: Item::Recording(Recorded {
            path: path.into(),
            start: None,
            finish: None,
        }),
    });
    app.overlay = Some(Overlay::Picker(PickerView::new(0)));
    app
}

/// A recording read, as the loop hands it back: held in memory here.
fn opened(path: &str) -> Box<Opened> {
    let (replay, state) = Replay::open(Recording {
        events: finished("collaboration"),
        problems: Vec::new(),
    })
    .unwrap();
    let scenario = super::tests::scenario("collaboration");
    Box::new(Opened {
        path: path.into(),
        replay,
        state,
        scenario,
    })
}

#[test]
fn picking_a_recording_asks_the_loop_to_read_it_and_its_result_opens_the_replay() {
    let mut app = picker_on("runs/big.jsonl");
    let effects = press(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        vec![Effect::OpenRecording {
            job: 1,
            path: "runs/big.jsonl".into()
        }],
        "the read is an effect"
    );
    assert!(app.runs.is_empty(), "nothing read in the update");
    assert!(app.loading.is_some());

    app.done(Done::Opened {
        job: 1,
        opened: Ok(opened("runs/big.jsonl")),
    });
    assert_eq!(app.runs.len(), 1, "the replay is shown");
    assert!(app.run().unwrap().replay.is_some());
    assert!(app.overlay.is_none() && app.loading.is_none());
}

#[test]
fn a_big_read_shows_its_progress_keys_still_work_and_esc_abandons_it() {
    let mut app = picker_on("runs/big.jsonl");
    press(&mut app, KeyCode::Enter);
    app.done(Done::Progress {
        job: 1,
        read: 45_000_000,
        total: 200_000_000,
        unit: Unit::Bytes,
    });
    let shown = screen(&mut app);
    assert!(
        shown.contains("reading recording runs/big.jsonl… 45 MB of 200 MB"),
        "{shown}"
    );
    // The picker still narrows as one types while the file loads.
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Char('b'));
    let Some(Overlay::Picker(picker)) = &app.overlay else {
        panic!("the picker stays open");
    };
    assert_eq!(picker.filter, "b");

    press(&mut app, KeyCode::Esc);
    assert!(app.loading.is_none(), "Esc abandons the read");
    assert_eq!(
        app.notice.as_deref(),
        Some("stopped reading recording runs/big.jsonl")
    );
    assert!(!screen(&mut app).contains("45 MB"));
    // What the abandoned read comes to is let go.
    app.done(Done::Opened {
        job: 1,
        opened: Ok(opened("runs/big.jsonl")),
    });
    assert!(app.runs.is_empty());
}

#[test]
fn c_asks_the_loop_to_compare_and_the_comparison_opens_when_it_comes_back() {
    let mut app = app_with(&events("collaboration"));
    app.add_from_events(&finished("collaboration"), Some("b.json".into()));
    app.runs.pin(0);
    let effects = press(&mut app, KeyCode::Char('c'));
    let [Effect::Compare { job, a, b }] = effects.as_slice() else {
        panic!("c asks the loop to compare: {effects:?}");
    };
    assert!(matches!(a.events, SideEvents::Held(_)));
    assert!(matches!(b.events, SideEvents::Held(_)));
    assert!(app.overlay.is_none(), "nothing compared in the update");
    let waiting = app.waiting_line().unwrap_or_default();
    assert!(waiting.contains("to compare"), "{waiting}");

    let job = *job;
    crate::tui::world::settle(&mut app, effects);
    assert!(
        matches!(app.overlay, Some(Overlay::Compare { .. })),
        "{:?}",
        app.notice
    );
    assert!(app.loading.is_none());
    // A late answer to a reading no longer awaited changes nothing.
    app.overlay = None;
    app.done(Done::Compared {
        job,
        comparison: Err("late".into()),
    });
    assert!(app.notice.is_none());
}

#[test]
fn the_picker_opens_at_once_and_lists_what_the_loop_scanned() {
    let mut app = App::new(AppOptions::default());
    assert!(app.catalog.is_empty(), "nothing read at start");
    let effects = press(&mut app, KeyCode::Char('n'));
    assert_eq!(
        effects,
        vec![Effect::ScanCatalog {
            scenarios: std::path::PathBuf::new(),
            recordings: None,
        }]
    );
    assert!(matches!(app.overlay, Some(Overlay::Picker(_))));
    crate::tui::world::settle(&mut app, effects);
    assert_eq!(
        app.catalog.len(),
        crate::tui::catalog::built_in().len(),
        "a folder without scenarios lists the built-in ones"
    );
}
