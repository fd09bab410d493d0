//! Two round tables compared: what diverges, what is only a roster or a
//! time, what the comparison of any two runs holds.

use super::*;
use crate::bus::{ClockMode, FlagState, RunStarted};
use crate::compare::{Comparison, Side, compare, short};
use crate::patterns::events::PatternEvent;
use crate::scenario::{PatternKind, Scenario};
use serde_json::json;

fn scenario(name: &str) -> Arc<Scenario> {
    Arc::new(
        serde_json::from_value(json!({
            "name": name, "pattern": "collaboration", "goal": "g", "context": {},
            "team": {"roles": {"a": {}, "b": {}, "legal": {}}, "sequence": ["a", "b"]},
            "flags": {"legal": {"default": false, "roles": ["legal"], "joins": true}},
            "provider": {"kind": "sim"}
        }))
        .unwrap(),
    )
}

fn started(name: &str, legal: bool) -> EventKind {
    EventKind::RunStarted(RunStarted {
        pattern: PatternKind::Collaboration,
        seed: 7,
        goal: "g".into(),
        clock: ClockMode::Virtual,
        flags: vec![FlagState {
            name: "legal".into(),
            on: legal,
        }],
        source: None,
        started_at_ms: 0,
        model: None,
        scenario: scenario(name),
        forked_from: None,
    })
}

fn said(agent: &str, stance: Stance) -> EventKind {
    EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionAccepted {
        round: 1,
        agent: agent.into(),
        stance,
        confidence: 0.8,
        summary: format!("{agent} speaks"),
        actions: vec![],
    }))
}

fn round(speakers: &[&str]) -> EventKind {
    EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
        round: 1,
        speakers: speakers.iter().map(|s| s.to_string()).collect(),
    }))
}

fn call(latency_ms: u64) -> EventKind {
    EventKind::CallFinished {
        call: 1,
        tool: "model".into(),
        attempt: 1,
        latency_ms,
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
    }
}

/// `kinds` as a run's events, `step_ms` apart.
fn run(kinds: Vec<EventKind>, step_ms: u64) -> Vec<Arc<Event>> {
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| {
            Arc::new(Event {
                run: 1,
                seq: i as u64 + 1,
                t_ms: i as u64 * step_ms,
                kind,
            })
        })
        .collect()
}

fn compared(a: &[Arc<Event>], b: &[Arc<Event>]) -> Comparison {
    compare(
        Side::new("a", a).unwrap(),
        Side::new("b", b).unwrap(),
        crate::patterns::compare_rules,
    )
}

#[test]
fn times_and_latencies_are_not_a_divergence_and_a_stance_is() {
    let a = run(
        vec![
            started("t", false),
            round(&["a"]),
            call(100),
            said("a", Stance::Go),
        ],
        10,
    );
    let slower = run(
        vec![
            started("t", false),
            round(&["a"]),
            call(900),
            said("a", Stance::Go),
        ],
        70,
    );
    let comparison = compared(&a, &slower);
    assert_eq!(comparison.first_divergence, None);
    let whats: Vec<&str> = comparison
        .differences
        .iter()
        .map(|d| d.what.as_str())
        .collect();
    assert_eq!(whats, ["duration_ms"]);
    assert!(comparison.identical, "wall time is no divergence");

    let blocked = run(
        vec![
            started("t", false),
            round(&["a"]),
            call(100),
            said("a", Stance::Block),
        ],
        10,
    );
    let divergence = compared(&a, &blocked).first_divergence.unwrap();
    assert_eq!(divergence.a.as_ref().unwrap().seq, 4);
    assert_eq!(divergence.b.unwrap().kind, "contribution_accepted");
}

#[test]
fn a_roster_alone_is_not_where_runs_diverge_but_a_new_voice_is() {
    let a = run(
        vec![started("t", false), round(&["a"]), said("a", Stance::Go)],
        10,
    );
    let b = run(
        vec![
            started("t", true),
            round(&["a", "legal"]),
            said("a", Stance::Go),
            said("legal", Stance::Caution),
        ],
        10,
    );
    let comparison = compared(&a, &b);
    let divergence = comparison.first_divergence.unwrap();
    assert_eq!(divergence.a, None, "A ended where B's legal spoke");
    assert_eq!(divergence.b.unwrap().seq, 4);
    assert!(comparison.alignment.is_some(), "a round table");
    let rounds = align(&a, &b);
    let legal = rounds.agents.iter().find(|r| r.agent == "legal").unwrap();
    assert_eq!(legal.only_in, Some(Which::B));
}

#[test]
fn identical_runs_say_so() {
    let a = run(
        vec![started("t", false), round(&["a"]), said("a", Stance::Go)],
        10,
    );
    let comparison = compared(&a, &a);
    assert!(comparison.identical);
    assert!(comparison.differences.is_empty());
    assert_eq!(
        comparison.notes,
        [
            "A has no finish: compared as far as it went",
            "B has no finish: compared as far as it went"
        ]
    );
}

#[test]
fn other_scenarios_are_compared_by_their_facts_only() {
    let a = run(vec![started("one", false), round(&["a"])], 10);
    let b = run(vec![started("two", false), round(&["b"])], 10);
    let comparison = compared(&a, &b);
    assert!(!comparison.aligned);
    assert_eq!(comparison.alignment, None);
    assert_eq!(comparison.first_divergence, None);
    assert!(comparison.notes[0].starts_with("different scenarios (one and two)"));
    assert_eq!(comparison.differences[0].what, "scenario");
}

#[test]
fn events_without_the_runs_start_are_refused_with_their_name() {
    let a = run(vec![started("t", false), round(&["a"])], 10);
    assert_eq!(
        Side::new("x.jsonl", &a[1..]).unwrap_err().to_string(),
        "x.jsonl: the events do not start with the run's start (seq 2)"
    );
    assert_eq!(
        Side::new("run 3", &[]).unwrap_err().to_string(),
        "run 3: no events yet"
    );
}

#[test]
fn values_read_as_short_text() {
    assert_eq!(short(&json!(null)), "—");
    assert_eq!(short(&json!(["x", "y"])), "x, y");
    assert_eq!(short(&json!([])), "none");
    assert_eq!(
        short(&json!({"state": "accepted", "stance": "go", "confidence": 0.5, "reason": null})),
        "accepted go 0.5"
    );
}

#[test]
fn token_sums_past_the_largest_count_are_held_not_wrapped() {
    let using = |input: u64| {
        let mut kind = call(100);
        if let EventKind::CallFinished { usage, .. } = &mut kind {
            *usage = Some(crate::bus::TokenUsage {
                input,
                output: 1,
                ..crate::bus::TokenUsage::default()
            });
        }
        kind
    };
    let huge = run(
        vec![
            started("t", false),
            using(u64::MAX - 1),
            using(u64::MAX - 1),
        ],
        10,
    );
    let small = run(vec![started("t", false), using(1), using(1)], 10);
    let comparison = compared(&huge, &small);
    let input = comparison
        .differences
        .iter()
        .find(|d| d.what == "tokens.input")
        .expect("the inputs differ");
    assert_eq!(input.a, serde_json::json!(u64::MAX));
    assert_eq!(input.b, serde_json::json!(2));
}

#[test]
fn a_fork_served_up_to_its_gate_does_what_its_parent_did() {
    let finished = |usage: serde_json::Value| EventKind::RunFinished {
        status: crate::bus::RunStatus::Ok,
        stop_reason: crate::stop::StopReason::Success,
        phase: None,
        result: Arc::new(crate::bus::ResultDoc::from_value(
            &json!({"final_decision": "go", "usage": usage}),
        )),
        summary: Box::default(),
        error: None,
    };
    let parent = run(
        vec![
            started("t", false),
            round(&["a"]),
            call(100),
            said("a", Stance::Go),
            finished(json!({"input_tokens": 10, "output_tokens": 5})),
        ],
        0,
    );
    let mut fork_start = started("t", false);
    if let EventKind::RunStarted(started) = &mut fork_start {
        started.forked_from = Some(crate::bus::cassette::ForkedFrom {
            file: "parent.jsonl".into(),
            run: 1,
            gate: "round 1".into(),
            model: None,
            edited: Vec::new(),
        });
    }
    let mut served = call(100);
    if let EventKind::CallFinished { served, .. } = &mut served {
        *served = true;
    }
    let fork = run(
        vec![
            fork_start,
            round(&["a"]),
            EventKind::WentLive {
                gate: crate::bus::GatePoint::Round { round: 1 },
            },
            served,
            said("a", Stance::Go),
            finished(json!({"input_tokens": 10, "output_tokens": 5,
                "served": {"calls": 1, "input_tokens": 4, "output_tokens": 2, "cost_usd": null}})),
        ],
        0,
    );
    let comparison = compared(&parent, &fork);
    assert!(comparison.identical, "{comparison:#?}");
    assert_eq!(comparison.first_divergence, None);
    let document = serde_json::to_value(&comparison).unwrap();
    assert!(document["a"].get("forked_from").is_none(), "{document}");
    assert_eq!(
        document["b"]["forked_from"],
        json!({"file": "parent.jsonl", "run": 1, "gate": "round 1"})
    );
}
