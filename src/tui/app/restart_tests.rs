//! Starting a run again: from a finished run with what was changed for
//! it, from a live run only when asked twice, never for an attached run.

use super::tests::{app_with, events, finished, press};
use crate::tui::effect::Effect;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[test]
fn a_finished_run_restarts_with_its_seed_its_pending_flags_and_its_edited_goal() {
    let mut app = app_with(&finished("collaboration"));
    assert!(
        press(&mut app, KeyCode::Char(' ')).is_empty(),
        "nothing to pause"
    );
    assert_eq!(app.notice.as_deref(), Some("the run has finished"));

    press(&mut app, KeyCode::Char('f'));
    assert!(
        press(&mut app, KeyCode::Enter).is_empty(),
        "a finished run keeps the flag for its restart"
    );
    assert_eq!(app.run().unwrap().ui.pending_flag("legal"), Some(true));
    press(&mut app, KeyCode::Esc);

    press(&mut app, KeyCode::Char('e'));
    for c in " Now.".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    app.key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL));
    assert!(app.overlay.is_none());

    // With a flag changed the run starts again beside the old one, which
    // stays pinned to compare with.
    let effects = press(&mut app, KeyCode::Char('r'));
    let [Effect::Launch { run: 2, launch }] = effects.as_slice() else {
        panic!("r starts run 1 again, as run 2: {effects:?}");
    };
    assert_eq!(app.runs.pinned(), Some(0));
    assert_eq!(launch.seed, 7, "the seed it ran with, not the scenario's 3");
    assert_eq!(launch.flags, vec![("legal".to_string(), true)]);
    assert_eq!(launch.goal.as_deref(), Some("Decide. Now."));
    assert_eq!(launch.source.as_deref(), Some("t.json"));
}

#[test]
fn r_on_a_live_run_asks_first_and_only_r_confirms() {
    let mut app = app_with(&events("collaboration"));
    assert!(
        press(&mut app, KeyCode::Char('r')).is_empty(),
        "asked, not done"
    );
    assert!(
        app.notice
            .as_deref()
            .is_some_and(|n| n.contains("r again cancels it")),
        "{:?}",
        app.notice
    );
    // Any other key keeps the run, and the next r asks again.
    press(&mut app, KeyCode::Char('x'));
    assert!(press(&mut app, KeyCode::Char('r')).is_empty());
    let effects = press(&mut app, KeyCode::Char('r'));
    assert!(
        matches!(effects[..], [Effect::Restart { old: 1, run: 2, .. }]),
        "{effects:?}"
    );
}

#[test]
fn an_attached_run_is_not_restarted_here_even_once_it_ended() {
    let mut app = app_with(&finished("collaboration"));
    app.runs.selected_mut().unwrap().attached = true;
    assert!(press(&mut app, KeyCode::Char('r')).is_empty());
    assert_eq!(
        app.notice.as_deref(),
        Some("an attached run is restarted on its own engine")
    );
    assert!(press(&mut app, KeyCode::Char('e')).is_empty());
}
