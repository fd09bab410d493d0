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
pub(crate) const PATTERNS: [PatternKind; 5] = [
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
