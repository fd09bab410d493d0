//! A launched run's replay forked at a model call, decided without a
//! terminal or a program: `x` asks the world for what the recording
//! offers, the dialog lists its calls at the first after what the replay
//! shows, ←/→ and ↑/↓ move, Enter asks for the fork's launch at the call
//! chosen, Esc asks for nothing, and a refusal is the footer's notice.

use super::fork_tests::replaying;
use super::tests::press;
use super::*;
use crate::launch::fork_offer::ForkOffer;
use crate::tui::effect::{Done, Effect};
use crate::tui::keymap::Action;
use crossterm::event::KeyCode;

const PARENT: &str = "/recordings/parent.jsonl";

/// A replay of a watched (launched) run, at its start.
fn watched() -> App {
    let (events, _) = crate::watch::translate::tests::told("pydantic_ai").remove(0);
    replaying(events.into_iter().map(Arc::new).collect())
}

fn offered(calls: u64) -> ForkOffer {
    ForkOffer {
        recording: PathBuf::from(PARENT),
        ..ForkOffer::sample(calls, 1000, ("responses", "gpt-test"))
    }
}

fn dialog(app: &App) -> &crate::tui::overlays::program_fork::ProgramForkPrompt {
    match &app.overlay {
        Some(Overlay::ProgramFork(prompt)) => prompt,
        _ => panic!(
            "the launched run's fork dialog is open; notice: {:?}",
            app.notice
        ),
    }
}

#[test]
fn x_asks_the_recording_and_the_dialog_lists_its_calls_after_what_the_replay_shows() {
    let mut app = watched();
    assert_eq!(app.unavailable(Action::Fork), None, "x is offered");
    let effects = press(&mut app, KeyCode::Char('x'));
    let at_ms = app.run().unwrap().state.t_ms;
    assert_eq!(
        effects,
        vec![Effect::OfferProgramFork {
            recording: PathBuf::from(PARENT),
            at_ms,
        }]
    );
    // The replay shows the run up to 1.5 s: call 2 is the first after.
    app.done(Done::ProgramForkOffered {
        offer: Ok(offered(3)),
        at_ms: 1500,
    });
    let prompt = dialog(&app);
    assert_eq!((prompt.chosen, prompt.at()), (1, 2));
    assert_eq!(
        prompt.plan_words(),
        "call 1 served from the recording, call 2 and later live against http://127.0.0.1:9/v1"
    );
    press(&mut app, KeyCode::Right);
    assert_eq!(dialog(&app).at(), 3);
    press(&mut app, KeyCode::Down);
    assert_eq!(dialog(&app).at(), 3, "the last call stays");
    assert_eq!(
        dialog(&app).plan_words(),
        "calls 1–2 served from the recording, call 3 and later live against http://127.0.0.1:9/v1"
    );
    press(&mut app, KeyCode::Left);
    press(&mut app, KeyCode::Up);
    assert_eq!(dialog(&app).at(), 1);
    assert!(dialog(&app).plan_words().starts_with("no call served"));
    press(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
    assert_eq!(app.notice.as_deref(), Some("not forked"));

    // At the replay's end every call is before: call 1.
    app.done(Done::ProgramForkOffered {
        offer: Ok(offered(3)),
        at_ms: 60_000,
    });
    assert_eq!(dialog(&app).at(), 1);
}

#[test]
fn enter_asks_for_the_fork_at_the_call_chosen_as_a_new_run() {
    let mut app = watched();
    app.done(Done::ProgramForkOffered {
        offer: Ok(offered(2)),
        at_ms: 0,
    });
    press(&mut app, KeyCode::Right);
    let run = app.runs.next_run();
    let effects = press(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        vec![Effect::ForkProgram {
            run,
            recording: PathBuf::from(PARENT),
            at: 2,
        }]
    );
    assert!(app.overlay.is_none());
    assert_eq!(app.notice.as_deref(), Some("forking at model call 2…"));
}

#[test]
fn a_recording_that_cannot_fork_is_the_footers_notice_and_nothing_starts() {
    let mut app = watched();
    let why =
        "holds no program to start again (watch_started has no `launch`): it was recorded before";
    app.done(Done::ProgramForkOffered {
        offer: Err(format!("{PARENT}: {why}\nmore")),
        at_ms: 0,
    });
    assert!(app.overlay.is_none());
    assert_eq!(
        app.notice.as_deref(),
        Some(why),
        "the file on screen not named"
    );
    // A watched run's other changes stay refused.
    assert!(app.unavailable(Action::EditGoal).is_some());
    assert!(app.unavailable(Action::Flags).is_some());
}
