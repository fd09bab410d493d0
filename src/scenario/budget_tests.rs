//! Which pattern reads which `budget` key, as the patterns declare it in
//! `patterns::declared`: every key the format has is read by one.

use super::types::Budget;
use crate::patterns::declared::{PATTERNS, budget_readers as readers};
use crate::scenario::PatternKind;

#[test]
fn every_budget_key_is_read_by_some_pattern_as_the_patterns_declare() {
    let every = Budget {
        max_rounds: Some(1),
        max_messages: Some(1),
        max_seconds: Some(1.0),
        min_go_votes: Some(1),
        escalate_after_blocking_rounds: Some(1),
        max_tasks: Some(1),
        max_parallel: Some(1),
        max_retries_per_task: Some(1),
        max_dispatches: Some(1),
        task_timeout_seconds: Some(1.0),
        max_llm_calls: Some(1),
        max_steps: Some(1),
        max_tokens: Some(1),
        max_cost_usd: Some(1.0),
    };
    let keys = every.keys_set();
    assert_eq!(keys.len(), 14);
    for key in keys {
        assert!(
            !readers(key, Budget::SHARED_KEYS).is_empty(),
            "{key} is read by no pattern"
        );
    }
    assert_eq!(
        readers("max_llm_calls", Budget::SHARED_KEYS),
        [PatternKind::Swarm, PatternKind::Coordinator]
    );
    assert_eq!(readers("max_tokens", Budget::SHARED_KEYS), PATTERNS);
    assert_eq!(
        readers("max_rounds", Budget::SHARED_KEYS),
        [PatternKind::Collaboration]
    );
}
