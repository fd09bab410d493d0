//! The shared reasons' wire strings and sentences, and how a reason no
//! part of this build knows reads and writes back.

use super::*;
use std::collections::HashSet;

/// One reason of every shared kind. `kind` makes the compiler ask for a
/// new kind here.
fn every_reason() -> Vec<StopReason> {
    let worker = || "payments_worker".to_string();
    let reasons = vec![
        StopReason::Success,
        StopReason::Cancelled,
        StopReason::MaxSeconds,
        StopReason::LlmTimeout,
        StopReason::LlmError,
        StopReason::LlmAuth,
        StopReason::LlmBadResponse,
        StopReason::LlmUnavailable,
        StopReason::LlmBadRequest,
        StopReason::LlmUnexpectedStatus,
        StopReason::LlmEmpty,
        StopReason::MaxMessages,
        StopReason::AgentDenied {
            role: "legal_analyst".into(),
        },
        StopReason::MaxDispatches,
        StopReason::TaskTimeout,
        StopReason::WorkerDenied { worker: worker() },
        StopReason::WorkerBadArgs { worker: worker() },
        StopReason::WorkerError { worker: worker() },
        StopReason::WorkerBadResult { worker: worker() },
        StopReason::WorkerMissing { worker: worker() },
        StopReason::MaxLlmCalls,
        StopReason::CircuitOpen {
            tool: "enrichment_worker".into(),
        },
        StopReason::BulkheadFull {
            tool: "model".into(),
        },
        StopReason::RetryBudgetExhausted,
        StopReason::MaxTokens,
        StopReason::MaxCost,
        StopReason::EscalatedToHuman,
        StopReason::CassetteMiss,
        StopReason::ModelOutputCut,
        StopReason::ModelRefused,
        "from_the_future".parse().unwrap(),
    ];
    let kinds: std::collections::BTreeSet<usize> = reasons.iter().map(kind).collect();
    assert_eq!(
        kinds,
        (0..KINDS).collect(),
        "every kind of reason is listed"
    );
    reasons
}

/// How many kinds of reason there are: one past `kind`'s last number.
const KINDS: usize = 31;

fn kind(reason: &StopReason) -> usize {
    match reason {
        StopReason::Success => 0,
        StopReason::Cancelled => 1,
        StopReason::MaxSeconds => 2,
        StopReason::LlmTimeout => 3,
        StopReason::LlmError => 4,
        StopReason::LlmAuth => 5,
        StopReason::LlmBadResponse => 6,
        StopReason::LlmUnavailable => 7,
        StopReason::LlmBadRequest => 8,
        StopReason::LlmUnexpectedStatus => 9,
        StopReason::LlmEmpty => 10,
        StopReason::MaxMessages => 11,
        StopReason::AgentDenied { .. } => 12,
        StopReason::MaxDispatches => 13,
        StopReason::TaskTimeout => 14,
        StopReason::WorkerDenied { .. } => 15,
        StopReason::WorkerBadArgs { .. } => 16,
        StopReason::WorkerError { .. } => 17,
        StopReason::WorkerBadResult { .. } => 18,
        StopReason::WorkerMissing { .. } => 19,
        StopReason::MaxLlmCalls => 20,
        StopReason::CircuitOpen { .. } => 21,
        StopReason::BulkheadFull { .. } => 22,
        StopReason::RetryBudgetExhausted => 23,
        StopReason::MaxTokens => 24,
        StopReason::MaxCost => 25,
        StopReason::EscalatedToHuman => 26,
        StopReason::CassetteMiss => 27,
        StopReason::ModelOutputCut => 28,
        StopReason::ModelRefused => 29,
        StopReason::Pattern(_) => 30,
    }
}

#[test]
fn wire_strings_round_trip() {
    for reason in every_reason() {
        let wire = reason.to_string();
        assert_eq!(wire.parse::<StopReason>().unwrap(), reason, "{wire}");
        let json = serde_json::to_string(&reason).unwrap();
        assert_eq!(json, format!("\"{wire}\""));
        assert_eq!(serde_json::from_str::<StopReason>(&json).unwrap(), reason);
    }
    assert_eq!(
        StopReason::AgentDenied {
            role: "legal_analyst".into()
        }
        .to_string(),
        "agent_denied:legal_analyst"
    );
}

#[test]
fn a_reason_no_part_knows_reads_as_a_pattern_s_and_writes_back() {
    for wire in [
        "from_the_future",
        "invalid_plan:from_the_future",
        "max_handoffs",
        "member_timeout:launch/research_team",
        "a:b:c: d",
        "",
    ] {
        let reason: StopReason =
            serde_json::from_str(&serde_json::to_string(wire).unwrap()).expect("any string reads");
        assert!(matches!(reason, StopReason::Pattern(_)), "{wire}");
        assert_eq!(reason.to_string(), wire);
        assert_eq!(
            serde_json::to_string(&reason).unwrap(),
            serde_json::to_string(wire).unwrap()
        );
    }
}

#[test]
fn a_pattern_reason_s_kind_is_read_from_its_head() {
    let read = |wire: &str| wire.parse::<StopReason>().unwrap();
    assert!(read("invalid_contribution:stance").is_answer_failure());
    assert!(read("invalid_turn").is_answer_failure());
    assert!(!read("invalid_turn").is_timeout());
    assert!(read("node_timeout:billing").is_timeout());
    assert!(read("member_timeout:launch/research_team").is_timeout());
    assert!(!read("verification_failed:invalid_quote").is_answer_failure());
    assert!(!read("no_reliable_sources").is_answer_failure());
    assert!(!read("no_reliable_sources").is_timeout());
    assert!(read("task_timeout").is_timeout());
    assert!(!read("max_seconds").is_timeout());
    assert!(read("model_refused").is_answer_failure());
}

#[test]
fn every_shared_reason_has_its_own_sentence() {
    let facts = StopFacts {
        rounds: Some(3),
        budget: Some((12, 12)),
        elapsed_ms: 40_000,
        tokens: Some((1250, 1000)),
        dollars: Some((0.0123, 0.01)),
    };
    let mut seen = HashSet::new();
    for reason in every_reason() {
        let words = reason.explain(&facts);
        assert!(!words.is_empty(), "{reason}");
        assert_ne!(words, reason.to_string(), "{reason} is more than its name");
        let wire = reason.to_string();
        let head = wire.split(':').next().unwrap_or_default();
        if head.contains('_') && !matches!(reason, StopReason::Pattern(_)) {
            assert!(
                !words.contains(head),
                "{reason}: {words:?} says more than its name"
            );
        }
        assert!(seen.insert(words.clone()), "{reason}: {words:?} said twice");
    }
}

#[test]
fn sentences_quote_the_run_s_figures() {
    let facts = StopFacts {
        rounds: Some(3),
        budget: Some((8, 8)),
        elapsed_ms: 25_040,
        tokens: Some((12_345, 10_000)),
        dollars: Some((0.04213, 0.04)),
    };
    assert_eq!(
        StopReason::MaxDispatches.explain(&facts),
        "the dispatch budget ran out (8 of 8 used)"
    );
    assert_eq!(
        StopReason::MaxTokens.explain(&facts),
        "the token budget ran out (12,345 of 10,000 tokens used)"
    );
    assert_eq!(
        StopReason::MaxCost.explain(&facts),
        "the dollar budget ran out ($0.0421 of $0.04 spent)"
    );
    assert_eq!(
        StopReason::MaxCost.explain(&StopFacts::default()),
        "the dollar budget ran out"
    );
    assert_eq!(
        StopReason::MaxSeconds.explain(&facts),
        "out of time: the run's time limit was reached at 25.0s"
    );
    assert_eq!(
        StopReason::AgentDenied {
            role: "legal_analyst".into()
        }
        .explain(&StopFacts::default()),
        "legal_analyst is in the speaking order but not allowed to run (flag off?)"
    );
    assert_eq!(
        "from_the_future"
            .parse::<StopReason>()
            .unwrap()
            .explain(&facts),
        "stopped for a reason this version does not know (from_the_future)"
    );
}
