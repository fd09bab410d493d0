use super::*;
use crate::bus::EventKind;
use crate::patterns::events::PatternEvent;
use crate::patterns::events::RoundEvent;
use std::sync::Arc;

fn round(seq: u64, round: u32) -> Arc<Event> {
    Arc::new(Event {
        run: 1,
        seq,
        t_ms: 0,
        kind: EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
            round,
            speakers: Vec::new(),
        })),
    })
}

fn other(seq: u64) -> Arc<Event> {
    Arc::new(Event {
        run: 1,
        seq,
        t_ms: 0,
        kind: EventKind::FlagChanged {
            name: "f".into(),
            on: true,
            gate: None,
        },
    })
}

fn events() -> Vec<(u64, GateTarget)> {
    gates(&[
        other(1),
        round(2, 1),
        other(3),
        round(4, 2),
        other(5),
        round(6, 3),
    ])
}

fn gates(events: &[Arc<Event>]) -> Vec<(u64, GateTarget)> {
    events
        .iter()
        .filter_map(|e| GateTarget::opened_by(e))
        .collect()
}

#[test]
fn names_and_event_numbers_find_their_gate() {
    let at = |given| GateTarget::resolve(given, &events()).map(|g| g.to_string());
    assert_eq!(at("round 2").unwrap(), "round 2");
    assert_eq!(at("Round  3").unwrap(), "round 3");
    assert_eq!(
        at("5").unwrap(),
        "round 2",
        "rounded down to the gate before"
    );
    assert_eq!(at("#4").unwrap(), "round 2");
    assert_eq!(at("event 9").unwrap(), "round 3");
}

#[test]
fn a_gate_the_run_never_passed_is_refused_with_what_it_did_pass() {
    let error = GateTarget::resolve("round 7", &events()).unwrap_err();
    assert!(error.to_string().contains("round 1 to round 3"), "{error}");
    let error = GateTarget::resolve("turn 2", &events()).unwrap_err();
    assert!(error.to_string().contains("gates are rounds"), "{error}");
    let error = GateTarget::resolve("1", &events()).unwrap_err();
    assert!(
        error.to_string().contains("before the run's first gate"),
        "{error}"
    );
    let error = GateTarget::resolve("soon", &events()).unwrap_err();
    assert!(
        error.to_string().contains("expected a gate such as"),
        "{error}"
    );
    let error = GateTarget::resolve("round 1", &gates(&[other(1)])).unwrap_err();
    assert!(error.to_string().contains("passed no gate"), "{error}");
}

#[test]
fn matches_the_engine_gate_of_its_kind_and_number() {
    let target = GateTarget {
        kind: GateKind::Turn,
        number: 3,
    };
    assert!(target.matches(&GatePoint::Turn {
        turn: 3,
        agent: "a".into()
    }));
    assert!(!target.matches(&GatePoint::Turn {
        turn: 2,
        agent: "a".into()
    }));
    assert!(!target.matches(&GatePoint::Round { round: 3 }));
}
