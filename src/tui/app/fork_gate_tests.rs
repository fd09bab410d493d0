//! The fork dialog's gate and answer rows: `←`/`→` pick any gate the run
//! passed, with the flags as they stood there, and the answer to the
//! question the fork will meet goes with its launch.

use super::fork_tests::{dialog, event, replaying, round};
use super::tests::{events, press};
use super::*;
use crate::bus::EventKind;
use crate::tui::effect::Effect;
use crossterm::event::KeyCode;
use serde_json::json;

/// The run's start, round 1, the flag `legal` turned on, round 2, and
/// (with `asks`) the table asking a person in round 2.
fn turned_then_asked(asks: bool) -> Vec<Arc<Event>> {
    use crate::patterns::events::{PatternEvent, RoundEvent};
    let mut all = events("collaboration");
    let round_2 = all.pop().unwrap();
    all.push(event(
        3,
        json!({"type": "flag_changed", "name": "legal", "on": true}),
    ));
    all.push(Arc::new(Event {
        seq: 4,
        ..(*round_2).clone()
    }));
    if asks {
        all.push(Arc::new(Event {
            run: 1,
            seq: 5,
            t_ms: 500,
            kind: EventKind::Pattern(PatternEvent::Round(RoundEvent::EscalatedToHuman {
                round: 2,
                blocking_rounds: 2,
                conflicts: Vec::new(),
                stances: Vec::new(),
            })),
        }));
    }
    all
}

#[test]
fn left_and_right_on_the_gate_row_pick_any_gate_with_its_flags_as_they_stood() {
    let mut app = replaying(turned_then_asked(false));
    press(&mut app, KeyCode::Char('>'));
    press(&mut app, KeyCode::Char('x'));
    // At the end: round 2 again, the flag on as it stood there.
    assert_eq!(dialog(&app).gate, round(2));
    assert!(dialog(&app).again);
    assert!(dialog(&app).flags[0].at_gate, "turned on before round 2");
    // The focus starts on the flag; the gate row is above it.
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Left);
    let prompt = dialog(&app);
    assert_eq!(prompt.gate, round(1));
    assert_eq!((prompt.served.clone(), prompt.again), (vec![], true));
    assert_eq!(
        (prompt.flags[0].at_gate, prompt.flags[0].on),
        (false, false),
        "the flag as it stood at round 1"
    );
    press(&mut app, KeyCode::Left);
    assert_eq!(dialog(&app).gate, round(1), "no gate before the first");
    // A flag turned for the fork stays turned at another gate.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Right);
    let prompt = dialog(&app);
    assert_eq!(prompt.gate, round(2));
    assert_eq!(prompt.served, vec![round(1)]);
    assert!(prompt.flags[0].on);
    assert_eq!(prompt.changed_flags(), Vec::new(), "on as it stood there");
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Launch { launch, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(launch.fork.as_ref().unwrap().at, "round 2");
    assert_eq!(launch.answer, None, "nothing asked, nothing offered");
}

#[test]
fn the_answer_row_offers_the_question_the_fork_meets_and_forks_with_the_answer() {
    let mut app = replaying(turned_then_asked(true));
    press(&mut app, KeyCode::Char('x'));
    let rows = dialog(&app).rows();
    assert_eq!(rows.last(), Some(&crate::tui::overlays::fork::Row::Answer));
    let answer = dialog(&app).answer.clone().unwrap();
    assert!(answer.recorded, "the run asked it after round 1");
    assert_eq!(answer.picked, None, "a person answers, to start");
    for _ in 0..rows.len() {
        press(&mut app, KeyCode::Down);
    }
    // Right twice: the second option; left once: the first.
    press(&mut app, KeyCode::Right);
    press(&mut app, KeyCode::Right);
    press(&mut app, KeyCode::Left);
    let first = answer.question.options[0].name.clone();
    let screen = super::tests::screen_of(&mut app, 120, 40);
    assert!(screen.contains(&format!("‹ {first} ›")), "{screen}");
    assert!(screen.contains("asked after the gate"), "{screen}");
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Launch { launch, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(
        launch.answer,
        Some(crate::bus::GivenAnswer::new(
            first,
            crate::tui::overlays::fork::ANSWER_FLAG
        ))
    );
}

/// A run that asked nobody, of a scenario whose table may ask a person:
/// the answer row offers the table's question, said as one the scenario
/// may ask, and a gate whose run asks after it says it was asked there.
#[test]
fn where_the_run_asked_nobody_the_answer_row_offers_the_question_the_scenario_may_ask() {
    let mut all = events("collaboration");
    let EventKind::RunStarted(started) = &all[0].kind else {
        panic!("a run's start first");
    };
    let mut started = started.clone();
    let mut scenario = (*started.scenario).clone();
    scenario.budget = serde_json::from_value(json!({"escalate_after_blocking_rounds": 2})).unwrap();
    started.scenario = Arc::new(scenario);
    all[0] = Arc::new(Event {
        kind: EventKind::RunStarted(started),
        ..(*all[0]).clone()
    });
    let mut app = replaying(all);
    press(&mut app, KeyCode::Char('x'));
    let answer = dialog(&app).answer.clone().expect("the table may ask");
    assert!(!answer.recorded, "the run itself asked nothing");
    assert_eq!(answer.picked, None);
    assert!(
        answer.question.options.iter().any(|o| o.name == "go"),
        "{:?}",
        answer.question.options
    );
    let screen = super::tests::screen_of(&mut app, 120, 40);
    assert!(screen.contains("the scenario may ask"), "{screen}");

    // Without a scenario that may ask and a run that asked, no row.
    let mut plain = replaying(events("collaboration"));
    press(&mut plain, KeyCode::Char('x'));
    assert_eq!(dialog(&plain).answer, None);
    assert!(
        !dialog(&plain)
            .rows()
            .contains(&crate::tui::overlays::fork::Row::Answer)
    );
}
