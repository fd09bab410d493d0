//! Escalation to a person in the dashboard: a deadlocked round table asks,
//! the dialog shows each analyst's stance, a choice and a note end the run
//! as the person decided, and a replay of the recording shows the question
//! and the choice.

use crate::common;

use common::pty::{Session, recordings};
use std::path::Path;

fn escalating(dir: &Path) -> String {
    common::escalating_deadlock(dir, true)
}

#[test]
fn the_table_asks_in_a_dialog_and_the_choice_ends_the_run() {
    let home = tempfile::tempdir().unwrap();
    let file = escalating(home.path());
    let mut session = Session::start(&["tui", &file], home.path());
    session.wait_text("The table asks you");
    let asked = session.text();
    for analyst in ["demand_analyst", "finance_analyst", "risk_analyst"] {
        assert!(
            asked.contains(analyst),
            "{analyst} and its stance:\n{asked}"
        );
    }
    assert!(asked.contains("After round 2"), "{asked}");
    assert!(asked.contains("one more round"), "{asked}");
    assert!(
        asked.contains("ASKS YOU"),
        "the header says who waits:\n{asked}"
    );
    // Nothing is chosen for the person: a reflex Enter decides nothing.
    assert!(!asked.contains('▶'), "no answer is preselected:\n{asked}");
    assert!(asked.contains("No answer chosen"), "{asked}");
    session.press("\r");
    session.wait_text("Choose an answer first");
    assert!(
        session.text().contains("The table asks you"),
        "still asking"
    );

    // Esc leaves the run waiting; the Result pane says where it waits and
    // space and s say why they do not pass it.
    session.press("\u{1b}");
    session.wait_for("the dialog closed", |t| !t.contains("The table asks you"));
    let waiting = session.text();
    assert!(
        waiting.contains("The table asks a person after round 2"),
        "{waiting}"
    );
    assert!(
        !waiting.contains("Paused before round"),
        "no round is next until the person answers:\n{waiting}"
    );
    session.press(" ");
    session.wait_text("waits for a person's answer, not a resume");
    session.press("s");
    session.wait_text("waits for a person's answer, not a resume");
    session.press("d");
    session.wait_text("The table asks you");

    // Down three times: no-go; then a note and Enter.
    session.press("\u{1b}[B");
    session.press("\u{1b}[B");
    session.press("\u{1b}[B");
    session.wait_text("▶ no-go");
    session.press("Relaunch after the fraud review.");
    session.press("\r");
    session.wait_text("decided by a person");
    let ended = session.text();
    assert!(ended.contains("NO GO"), "{ended}");
    assert!(
        !ended.contains("The table asks you"),
        "the dialog closed:\n{ended}"
    );
    // The round table's decision row has the person's answer where the
    // table had none, and the note is on screen.
    assert!(ended.contains("person: NO GO"), "{ended}");
    assert!(!ended.contains("✗ none"), "{ended}");
    assert!(
        ended.contains("a person's: Relaunch after the fraud"),
        "the note is shown:\n{ended}"
    );
    session.press("d");
    session.wait_text("this run's table asks nothing now");
    session.press("q");
    session.wait_exit();

    // The recording holds the choice and the note, and its replay shows them.
    let recording = recordings(home.path())
        .into_iter()
        .next()
        .expect("the run was recorded");
    let text = std::fs::read_to_string(&recording).unwrap();
    assert!(text.contains("\"human_decided\""), "{recording:?}");
    // The recording's pause names where the run waited: after round 2, for
    // the decision, not before a round 3 that never came.
    let paused: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "paused")
        .collect();
    assert_eq!(paused.len(), 1, "{paused:?}");
    assert_eq!(
        paused[0]["gate"],
        serde_json::json!({"before": "decision", "round": 2})
    );
    assert!(text.contains("Relaunch after the fraud review."));
    let mut replay = Session::start(&["replay", recording.to_str().unwrap()], home.path());
    replay.wait_text("REPLAY");
    // At the end the replay shows what the live run showed: the answer on
    // the round table and the note, the question closed.
    replay.press(">");
    replay.wait_text("person: NO GO");
    let replayed = replay.text();
    assert!(!replayed.contains("The table asked a person"), "{replayed}");
    assert!(
        replayed.contains("a person's: Relaunch after the fraud"),
        "{replayed}"
    );
    replay.press("q");
    replay.wait_exit();
}

mod in_process {
    use conclave::bus::{Delivery, EventKind, Hub, Subscription};
    use conclave::patterns::events::{PatternEvent, RoundEvent};
    use conclave::scenario;
    use conclave::tui::app::{App, AppOptions};
    use conclave::tui::effect::Effect;
    use conclave::tui::keymap::Action;
    use conclave::tui::view_state::Overlay;
    use conclave::tui::world::World;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use std::sync::Arc;

    fn screen(app: &App) -> String {
        super::common::screen::of_app(app, 120, 40)
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    /// Fold the hub's events into `app` until one `stop` accepts.
    async fn until(
        app: &mut App,
        bus: &mut Subscription,
        stop: impl Fn(&EventKind) -> bool,
    ) -> Arc<conclave::bus::Event> {
        loop {
            if let Delivery::Event(event) = bus.next().await {
                let done = stop(&event.kind);
                app.apply(Arc::clone(&event));
                if done {
                    return event;
                }
            }
        }
    }

    /// The escalating table launched as the dashboard launches a run.
    fn launched(dir: &std::path::Path) -> (App, World, Subscription) {
        let file = super::escalating(dir);
        let scenario = Arc::new(scenario::load(std::path::Path::new(&file)).unwrap());
        let hub = Hub::default();
        let bus = hub.subscribe();
        let mut world = crate::common::world(hub.clone());
        let mut app = App::new(AppOptions::default());
        let effects = app.launch(scenario, Some(file));
        crate::common::carry(&mut world, &mut app, effects);
        (app, world, bus)
    }

    fn escalated(kind: &EventKind) -> bool {
        matches!(
            kind,
            EventKind::Pattern(PatternEvent::Round(RoundEvent::EscalatedToHuman { .. }))
        )
    }

    #[tokio::test(start_paused = true)]
    async fn the_dialog_opens_on_the_escalation_and_closes_on_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let (mut app, mut world, mut bus) = launched(dir.path());
        // The round table alone: the other panes chart the wall clock.
        app.update(Action::Focus(2));
        app.update(Action::Zoom);
        until(&mut app, &mut bus, escalated).await;
        assert!(matches!(app.overlay, Some(Overlay::Decide(_))), "it asks");
        insta::assert_snapshot!("escalation_dialog", screen(&app));

        // Enter before a choice sends nothing and keeps asking.
        assert!(app.key(key(KeyCode::Enter)).is_empty(), "nothing chosen");
        assert!(matches!(app.overlay, Some(Overlay::Decide(_))));
        // ↓ ↓ ↓: no-go; a note; Enter sends it to the run's engine.
        app.key(key(KeyCode::Down));
        app.key(key(KeyCode::Down));
        app.key(key(KeyCode::Down));
        for c in "Later.".chars() {
            app.key(key(KeyCode::Char(c)));
        }
        let effects = app.key(key(KeyCode::Enter));
        let [Effect::Control { run: 1, command }] = effects.as_slice() else {
            panic!("one command to run 1: {effects:?}");
        };
        assert_eq!(
            format!("{command:?}"),
            r#"Answer { option: "no_go", note: Some("Later."), question: None, by: Dashboard }"#
        );
        assert!(app.overlay.is_none());
        crate::common::carry(&mut world, &mut app, effects);
        until(&mut app, &mut bus, |k| {
            matches!(k, EventKind::RunFinished { .. })
        })
        .await;
        app.update(Action::Unzoom);
        app.update(Action::Focus(4));
        app.update(Action::Zoom);
        let decided = screen(&app);
        assert!(decided.contains("NO GO · decided by a person"), "{decided}");
        insta::assert_snapshot!("escalation_decided", decided);
        for handle in world.take_handles() {
            handle.finish().await.unwrap();
        }
    }

    /// The keys stay the user's while a run asks: Ctrl-C quits from the
    /// dialog that takes text (staying brings it back as it was), and a
    /// question closed does not open again by itself when the run's events
    /// raise it again (a publisher on an attached run's subject can repeat
    /// them), until it was answered.
    #[tokio::test(start_paused = true)]
    async fn ctrl_c_leaves_the_question_and_a_closed_question_stays_closed_until_answered() {
        let dir = tempfile::tempdir().unwrap();
        let (mut app, mut world, mut bus) = launched(dir.path());
        let asking = until(&mut app, &mut bus, escalated).await;
        assert!(matches!(app.overlay, Some(Overlay::Decide(_))), "it asks");
        for c in "q to quit".chars() {
            app.key(key(KeyCode::Char(c)));
        }
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);

        // The run is live: Ctrl-C asks first, any other key stays, and the
        // question is back with its note.
        assert!(app.key(ctrl_c).is_empty());
        assert!(
            matches!(&app.overlay, Some(Overlay::Quit { under: Some(under) }) if matches!(**under, Overlay::Decide(_))),
            "asked over the question"
        );
        assert!(screen(&app).contains("Quit?"));
        assert!(app.key(key(KeyCode::Char('n'))).is_empty());
        assert!(matches!(app.overlay, Some(Overlay::Decide(_))), "back");
        assert!(screen(&app).contains("q to quit"), "{}", screen(&app));
        // A second Ctrl-C quits.
        assert!(app.key(ctrl_c).is_empty());
        assert_eq!(app.key(ctrl_c), vec![Effect::Quit]);
        app.key(key(KeyCode::Char('n')));
        assert!(matches!(app.overlay, Some(Overlay::Decide(_))), "back");

        // Closed, the question stays closed when raised again, and q quits
        // (after asking, the run being live).
        app.key(key(KeyCode::Esc));
        app.apply(Arc::clone(&asking));
        assert!(app.overlay.is_none(), "a repeated question stays closed");
        app.key(key(KeyCode::Char('q')));
        assert!(matches!(app.overlay, Some(Overlay::Quit { under: None })));
        app.key(key(KeyCode::Char('n')));
        // `d` still opens it; an answer, then a new question, opens it by
        // itself again.
        app.key(key(KeyCode::Char('d')));
        assert!(matches!(app.overlay, Some(Overlay::Decide(_))));
        app.key(key(KeyCode::Esc));
        let answered: conclave::bus::Event = serde_json::from_value(serde_json::json!({
            "run": asking.run, "seq": asking.seq + 1, "t_ms": asking.t_ms,
            "type": "human_decided", "choice": "one_more_round",
        }))
        .unwrap();
        app.apply(Arc::new(answered));
        let mut again = (*asking).clone();
        again.seq += 2;
        app.apply(Arc::new(again));
        assert!(
            matches!(app.overlay, Some(Overlay::Decide(_))),
            "a question asked after an answer opens by itself"
        );
        // Answered (elsewhere) while the user is asked whether to quit:
        // staying does not bring back a question already answered.
        app.key(ctrl_c);
        let answered_again: conclave::bus::Event = serde_json::from_value(serde_json::json!({
            "run": asking.run, "seq": asking.seq + 3, "t_ms": asking.t_ms,
            "type": "human_decided", "choice": "go",
        }))
        .unwrap();
        app.apply(Arc::new(answered_again));
        app.key(key(KeyCode::Char('n')));
        assert!(app.overlay.is_none(), "the answered question is gone");
        for handle in world.take_handles() {
            handle.finish().await.unwrap();
        }
    }
}

#[test]
fn decide_on_the_command_line_answers_in_the_dashboard_too() {
    let home = tempfile::tempdir().unwrap();
    let file = escalating(home.path());
    let mut session = Session::start(&["run", &file, "--decide", "no_go"], home.path());
    session.wait_text("decided by a person");
    let ended = session.text();
    assert!(ended.contains("person: NO GO"), "{ended}");
    assert!(
        !ended.contains("The table asks you"),
        "answered in advance, nothing is asked:\n{ended}"
    );
    session.press("q");
    session.wait_exit();
}
