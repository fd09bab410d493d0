//! The patterns' lines as the event log shows them: each pattern words
//! its own events, and the log cleans them like any text.

use super::*;
use crate::patterns::events::{
    Conflict, Decision, MemberTeam, PatternEvent, RoundEvent, Stance, TeamEvent,
};

#[test]
fn a_member_team_is_told_apart_by_its_pattern_and_path() {
    let call = EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallStarted {
        turn: 1,
        member: "support_swarm".into(),
        task: "Support \u{1b}[2Jload".into(),
        deadline_ms: None,
        team: Some(MemberTeam {
            name: "support_swarm".into(),
            pattern: "swarm".into(),
            entry: "triage".into(),
            path: "launch/support_swarm".into(),
        }),
    }));
    assert_eq!(
        describe(&call),
        "turn 1 · calls support_swarm, a swarm team of its own (launch/support_swarm/…): Support load"
    );
}

#[test]
fn lines_read_as_sentences_and_are_clean() {
    let accepted = EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionAccepted {
        round: 2,
        agent: "risk_analyst".into(),
        stance: Stance::Caution,
        confidence: 0.71,
        summary: "watch\u{1b}[2J it".into(),
        actions: vec![],
    }));
    assert_eq!(
        describe(&accepted),
        "round 2 · risk_analyst: caution 0.71 — watch it"
    );
    let finished = EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
        round: 1,
        conflicts: vec![Conflict::BlockingVsNonBlock],
        decision: None,
    }));
    assert_eq!(
        describe(&finished),
        "round 1: blocking_vs_non_block → next round"
    );
    let decided = EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
        round: 2,
        conflicts: vec![],
        decision: Some(Decision::Go),
    }));
    assert_eq!(describe(&decided), "round 2: no conflicts → go");
    assert_eq!(kind_name(&decided), "round_finished");
}

/// A nested team's agents read by their path in the tree, and a
/// hostile name in a path is cleaned like any text.
#[test]
fn nested_agents_read_by_path_and_are_clean() {
    let handed = EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
        from: "launch/support_swarm/triage".into(),
        to: "launch/support_swarm/bill\u{1b}]52;c;eA==\u{7}ing".into(),
        handoffs: 1,
        window: vec![],
        deadline_ms: None,
    }));
    assert_eq!(
        describe(&handed),
        "launch/support_swarm/triage → launch/support_swarm/billing (handoff 1)"
    );
}

#[test]
fn a_table_that_asks_after_one_blocking_round_says_round() {
    let asked = |blocking_rounds| {
        EventKind::Pattern(PatternEvent::Round(RoundEvent::EscalatedToHuman {
            round: 3,
            blocking_rounds,
            conflicts: vec![],
            stances: vec![],
        }))
    };
    assert_eq!(
        describe(&asked(1)),
        "round 3: a blocking stance 1 round in a row; asking a person"
    );
    assert_eq!(
        describe(&asked(2)),
        "round 3: a blocking stance 2 rounds in a row; asking a person"
    );
}
