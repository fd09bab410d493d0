//! The run view's tests.

use super::*;
use crate::bus::{FlagState, RunStarted, RunStatus};
use crate::patterns::events::PatternEvent;
use crate::patterns::events::{Conflict, RoundEvent, Stance};
use crate::stop::StopReason;
use crate::tui::patterns::round_table::state::{Cell, RoundTable};
use serde_json::json;

fn table(state: &RunState) -> &RoundTable {
    state
        .pattern
        .get()
        .expect("a collaboration run seats a round table")
}

fn event(seq: u64, t_ms: u64, kind: EventKind) -> Arc<Event> {
    Arc::new(Event {
        run: 1,
        seq,
        t_ms,
        kind,
    })
}

fn scenario() -> Arc<Scenario> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "t", "pattern": "collaboration", "goal": "g", "context": {},
            "team": {"roles": {"a": {}, "b": {}, "legal": {}}, "sequence": ["a", "b"]},
            "flags": {"legal": {"default": false, "description": "Seat legal", "roles": ["legal"], "joins": true}},
            "provider": {"kind": "sim"}
        }))
        .unwrap(),
    )
}

fn recorded() -> Vec<Arc<Event>> {
    let scenario = scenario();
    let started = EventKind::RunStarted(RunStarted {
        pattern: scenario.pattern,
        seed: 7,
        goal: "g".into(),
        clock: ClockMode::Virtual,
        flags: vec![FlagState {
            name: "legal".into(),
            on: false,
        }],
        source: None,
        started_at_ms: 0,
        model: None,
        scenario,
        forked_from: None,
    });
    let accepted = |round, agent: &str, stance| {
        EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionAccepted {
            round,
            agent: agent.into(),
            stance,
            confidence: 0.5,
            summary: format!("{agent} in {round}"),
            actions: vec!["act".into()],
        }))
    };
    let kinds = vec![
        started,
        EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
            round: 1,
            speakers: vec!["a".into(), "b".into()],
        })),
        EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested {
            round: 1,
            agent: "a".into(),
        })),
        accepted(1, "a", Stance::Go),
        accepted(1, "b", Stance::Block),
        EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
            round: 1,
            conflicts: vec![Conflict::BlockingVsNonBlock],
            decision: None,
        })),
        EventKind::Paused {
            gate: GatePoint::Round { round: 2 },
        },
        EventKind::FlagChanged {
            name: "legal".into(),
            on: true,
            gate: None,
        },
        EventKind::Resumed {
            gate: GatePoint::Round { round: 2 },
        },
        EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
            round: 2,
            speakers: vec!["a".into(), "b".into(), "legal".into()],
        })),
        accepted(2, "a", Stance::Go),
        EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested {
            round: 2,
            agent: "b".into(),
        })),
    ];
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| event(i as u64 + 1, i as u64 * 100, kind))
        .collect()
}

#[test]
fn a_recorded_sequence_folds_to_the_expected_state() {
    let state = RunState::from_events(1, &recorded());
    assert_eq!(state.activity, Activity::Running);
    assert_eq!(state.t_ms, 1100);
    assert_eq!(state.last_seq, 12);
    assert_eq!(state.missed, 0);
    assert!(state.flags[0].on);
    assert_eq!(state.flags[0].description.as_deref(), Some("Seat legal"));
    assert_eq!(
        table(&state).roles,
        vec!["a", "b", "legal"],
        "legal joins in round 2"
    );
    assert_eq!(table(&state).rounds.len(), 2);
    let round_1 = &table(&state).rounds[0];
    assert!(round_1.finished);
    assert_eq!(round_1.conflicts, vec![Conflict::BlockingVsNonBlock]);
    assert!(
        matches!(table(&state).cell(1, 0), Some(Cell::Accepted(c)) if c.stance == Stance::Block)
    );
    assert_eq!(
        table(&state).cell(2, 0),
        None,
        "legal did not sit in round 1"
    );
    assert_eq!(table(&state).cell(1, 1), Some(&Cell::Waiting));
    assert_eq!(state.log.len(), 12);
}

#[test]
fn folding_twice_from_scratch_gives_equal_states() {
    let events = recorded();
    assert_eq!(
        RunState::from_events(1, &events),
        RunState::from_events(1, &events)
    );
}

#[test]
fn the_finish_clears_what_was_pending_and_keeps_the_outcome() {
    let mut events = recorded();
    events.push(event(
        13,
        1200,
        EventKind::RunFinished {
            status: RunStatus::Stopped,
            stop_reason: StopReason::Cancelled,
            phase: Some("round_2:b".into()),
            result: std::sync::Arc::new(json!({"status": "stopped"}).into()),
            summary: Box::default(),
            error: None,
        },
    ));
    let state = RunState::from_events(1, &events);
    assert_eq!(state.activity, Activity::Finished);
    assert_eq!(table(&state).cell(1, 1), None);
    assert_eq!(state.outcome.unwrap().stop_reason, StopReason::Cancelled);
}

#[test]
fn gaps_in_seq_count_as_missed() {
    let events = recorded();
    let mut state = RunState::new(1);
    for event in events.iter().filter(|e| e.seq != 4 && e.seq != 5) {
        state.apply(Arc::clone(event));
    }
    assert_eq!(state.missed, 2);
}

#[test]
fn calls_in_flight_are_kept_until_each_finishes() {
    let mut events = recorded();
    let started = |call, tool: &str| EventKind::CallStarted {
        call,
        tool: tool.into(),
        attempt: 1,
        label: format!("x · {tool}"),
        agent: None,
    };
    events.push(event(13, 1200, started(10, "orders_worker")));
    events.push(event(14, 1200, started(11, "vendor_worker")));
    events.push(event(
        15,
        1300,
        EventKind::CallFinished {
            call: 10,
            tool: "orders_worker".into(),
            attempt: 1,
            latency_ms: 100,
            outcome: crate::bus::CallOutcome::Ok,
            usage: None,
            error: None,
            http_status: None,
            first_token_ms: None,
            tokens_per_s: None,
            reasoning: None,
            record: None,
            served: false,
            extracted: None,
            fallback: false,
        },
    ));
    let state = RunState::from_events(1, &events);
    let calling: Vec<&str> = state.calling.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(calling, ["vendor_worker"], "the finished one left");
}

#[test]
fn spend_kept_apart_stays_bounded_whatever_a_recording_names() {
    use crate::bus::{CallOutcome, EventKind, TokenUsage};
    let mut state = RunState::new(1);
    let calls = MAX_SPENDERS as u64 + 500;
    let mut seq = 0;
    let mut event = |kind| {
        seq += 1;
        Arc::new(Event {
            run: 1,
            seq,
            t_ms: seq,
            kind,
        })
    };
    for call in 0..calls {
        state.apply(event(EventKind::CallStarted {
            call,
            tool: "model".into(),
            attempt: 1,
            label: format!("label {call}"),
            agent: None,
        }));
        state.apply(event(EventKind::CallFinished {
            call,
            tool: "model".into(),
            attempt: 1,
            latency_ms: 1,
            outcome: CallOutcome::Ok,
            usage: Some(TokenUsage {
                input: 1,
                output: 1,
                ..TokenUsage::default()
            }),
            error: None,
            http_status: None,
            first_token_ms: None,
            tokens_per_s: None,
            reasoning: None,
            record: None,
            served: false,
            extracted: None,
            fallback: false,
        }));
    }
    assert_eq!(state.spend_by_agent.len(), MAX_SPENDERS);
    assert_eq!(
        state.spend.tokens(),
        2 * calls,
        "the run's total counts every call"
    );
}
