//! The replay's tests.

use super::*;
use crate::bus::{ClockMode, EventKind, GatePoint, RunStarted};
use crate::patterns::events::PatternEvent;
use crate::patterns::events::{Conflict, RoundEvent, Stance};
use crate::scenario::Scenario;
use crate::tui::patterns::round_table::state::RoundTable;
use serde_json::json;

/// How many rounds the state's round table has met.
fn rounds(state: &RunState) -> usize {
    state
        .pattern
        .get::<RoundTable>()
        .map_or(0, |t| t.rounds.len())
}

/// A round table's recording of `rounds` rounds, 3,003 events each.
pub(crate) fn recording(rounds: u32) -> Recording {
    let scenario: Arc<Scenario> = Arc::new(
        serde_json::from_value(json!({
            "name": "t", "pattern": "collaboration", "goal": "g", "context": {},
            "team": {"roles": {"a": {}}, "sequence": ["a"]},
            "provider": {"kind": "sim", "responses": {"a": "{}"}}
        }))
        .unwrap(),
    );
    let mut kinds = vec![EventKind::RunStarted(RunStarted {
        pattern: scenario.pattern,
        seed: 0,
        goal: "g".into(),
        clock: ClockMode::Virtual,
        flags: vec![],
        source: None,
        started_at_ms: 0,
        model: None,
        scenario,
        forked_from: None,
    })];
    for round in 1..=rounds {
        kinds.push(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::RoundStarted {
                round,
                speakers: vec!["a".into()],
            },
        )));
        for _ in 0..3000 {
            kinds.push(EventKind::Stepped {
                gate: GatePoint::Round { round },
            });
        }
        kinds.push(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::ContributionAccepted {
                round,
                agent: "a".into(),
                stance: Stance::Caution,
                confidence: 0.5,
                summary: format!("round {round}"),
                actions: vec![],
            },
        )));
        kinds.push(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::RoundFinished {
                round,
                conflicts: vec![Conflict::NoContributions],
                decision: None,
            },
        )));
    }
    Recording {
        events: kinds
            .into_iter()
            .enumerate()
            .map(|(i, kind)| {
                Arc::new(Event {
                    run: 1,
                    seq: i as u64 + 1,
                    t_ms: i as u64,
                    kind,
                })
            })
            .collect(),
        problems: vec![],
    }
}

#[test]
fn every_position_reached_by_jumping_equals_folding_from_the_start() {
    let recording = recording(5);
    let events = recording.events.clone();
    let (mut replay, _) = Replay::open(recording).unwrap();
    for position in [0, 1, 2, 3001, 4096, 4097, 9000, 12_000, events.len()] {
        let jumped = replay.seek(position);
        let folded = RunState::from_events(1, &events[..position]);
        assert_eq!(jumped, folded, "at {position}");
    }
}

#[test]
fn checkpoints_thin_out_as_the_recording_grows_and_jumps_still_equal_folding() {
    // 40 rounds of 3,003 events: about 120,000.
    let recording = recording(40);
    let events = recording.events.clone();
    let (mut replay, _) = Replay::open(recording).unwrap();
    assert_eq!(
        replay.seeker.checkpoints.lock().len(),
        1,
        "nothing folded ahead at open"
    );
    // Going to the end places them all, once.
    let end = replay.seek(events.len());
    assert_eq!(end, RunState::from_events(1, &events));
    let at: Vec<usize> = replay
        .seeker
        .checkpoints
        .lock()
        .iter()
        .map(|(at, _)| *at)
        .collect();
    replay.seek(events.len());
    assert_eq!(
        replay.seeker.checkpoints.lock().len(),
        at.len(),
        "placed once"
    );
    for pair in at.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap >= CHECKPOINT_EVERY && gap >= pair[1] / CHECKPOINT_SHARE,
            "{pair:?}"
        );
        assert!(gap <= CHECKPOINT_EVERY.max(pair[1] / CHECKPOINT_SHARE + 1));
    }
    assert!(
        at.len() < 35,
        "geometric, not one every 4,096 events: {at:?}"
    );
    let last = *at.last().unwrap();
    for position in [last - 1, last, last + 1, events.len() - 1, events.len()] {
        let jumped = replay.seek(position);
        let folded = RunState::from_events(1, &events[..position]);
        assert_eq!(jumped, folded, "at {position}");
    }
}

#[test]
fn steps_move_by_rounds_and_back_again() {
    let recording = recording(4);
    let all = RunState::from_events(1, &recording.events);
    let (mut replay, _) = Replay::open(recording).unwrap();
    let mut forward = vec![replay.step_forward()];
    assert_eq!(replay.unit(), (1, 4), "stepped to the end of round 1");
    forward.extend((0..3).map(|_| replay.step_forward()));
    assert!(replay.at_end());
    assert_eq!(rounds(&forward[0]), 1);
    let end = replay.seek(replay.len());
    assert_eq!(end, all);
    let back: Vec<RunState> = (0..3).map(|_| replay.step_back()).collect();
    assert_eq!(
        back[2], forward[0],
        "three steps back from the end is the end of round 1"
    );
    for _ in 0..4 {
        replay.step_forward();
    }
    assert_eq!(
        replay.seek(replay.position()),
        all,
        "and forward again to the end"
    );
    assert_eq!(rounds(&replay.jump_to_unit(2)), 2);
}

#[test]
fn playback_follows_the_run_clock_at_its_speed() {
    let (mut replay, mut state) = Replay::open(recording(1)).unwrap();
    replay.playing = true;
    replay.speed = Speed::X10;
    assert!(replay.tick(100.0, &mut state));
    assert_eq!(
        replay.position(),
        1001,
        "t_ms 0..=1000 are due after 1 s of run time"
    );
    replay.speed = Speed::Instant;
    replay.tick(1.0, &mut state);
    assert!(replay.at_end() && !replay.playing);
    assert_eq!(Speed::X1.slower(), Speed::X1);
    assert_eq!(Speed::X10.faster(), Speed::Instant);
}
