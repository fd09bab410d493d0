//! Which `budget` keys each pattern reads, as the patterns declare them:
//! the scenario's checks refuse a key set on a scenario whose pattern does
//! not read it. The match names every pattern, so a new one says its keys.
//! Data only: the scenario floor imports this file.

use super::collaboration::scenario as round_table;
use super::orchestrator::scenario as orchestrator;
use super::research::scenario as research;
use super::team::scenario as team;
use crate::scenario::pattern_kind::PatternKind;

/// Every pattern, in the order the format lists them.
const PATTERNS: [PatternKind; 5] = [
    PatternKind::Collaboration,
    PatternKind::Orchestrator,
    PatternKind::Swarm,
    PatternKind::Coordinator,
    PatternKind::Research,
];

/// The `budget` keys of `pattern`'s own, beside the shared ones
/// (`Budget::SHARED_KEYS`).
fn own_keys(pattern: PatternKind) -> &'static [&'static str] {
    match pattern {
        PatternKind::Collaboration => round_table::BUDGET_KEYS,
        PatternKind::Orchestrator => orchestrator::BUDGET_KEYS,
        PatternKind::Swarm | PatternKind::Coordinator => team::BUDGET_KEYS,
        PatternKind::Research => research::BUDGET_KEYS,
    }
}

/// The patterns that read the `budget` key `key`, in the format's order.
pub(crate) fn readers(key: &str, shared: &[&str]) -> Vec<PatternKind> {
    PATTERNS
        .into_iter()
        .filter(|p| shared.contains(&key) || own_keys(*p).contains(&key))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Budget;

    #[test]
    fn every_budget_key_is_read_by_some_pattern() {
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
}
