//! What each pattern declares to the floors below the runners: the figures
//! its runs report (its `figures.rs`) and the `budget` keys it reads (its
//! `scenario.rs`). One match a declaration, each with no wildcard arm, so a
//! new pattern that forgets its entry does not compile. Data only: it
//! imports the declarations and the pattern kinds, nothing else, so that
//! the scenario and the sweep may read it.

use super::collaboration::scenario as round_table;
use super::orchestrator::scenario as orchestrator;
use super::research::scenario as research;
use super::team::scenario as team;
use crate::bus::figures::Figures;
use crate::scenario::pattern_kind::PatternKind;
use strum::VariantArray;

/// Every pattern, in the order of their kinds (and of the format).
pub(crate) const PATTERNS: &[PatternKind] = PatternKind::VARIANTS;

/// The figures `pattern`'s runs report.
pub(crate) fn figures_of(pattern: PatternKind) -> &'static Figures {
    match pattern {
        PatternKind::Collaboration => &super::collaboration::figures::FIGURES,
        PatternKind::Orchestrator => &super::orchestrator::figures::FIGURES,
        PatternKind::Swarm => &super::team::figures::SWARM,
        PatternKind::Coordinator => &super::team::figures::COORDINATOR,
        PatternKind::Research => &super::research::figures::FIGURES,
        PatternKind::Graph => &super::graph::figures::FIGURES,
    }
}

/// The `budget` keys of `pattern`'s own, beside the shared ones
/// (`Budget::SHARED_KEYS`).
fn own_keys(pattern: PatternKind) -> &'static [&'static str] {
    match pattern {
        PatternKind::Collaboration => round_table::BUDGET_KEYS,
        PatternKind::Orchestrator => orchestrator::BUDGET_KEYS,
        PatternKind::Swarm | PatternKind::Coordinator => team::BUDGET_KEYS,
        PatternKind::Research => research::BUDGET_KEYS,
        // The graph's bounds are its section's own (`max_steps`,
        // `max_visits`): it reads only the shared budget keys.
        PatternKind::Graph => &[],
    }
}

/// The patterns that read the `budget` key `key`, in the format's order:
/// the scenario's checks refuse a key set on a scenario whose pattern does
/// not read it.
pub(crate) fn budget_readers(key: &str, shared: &[&str]) -> Vec<PatternKind> {
    PATTERNS
        .iter()
        .copied()
        .filter(|p| shared.contains(&key) || own_keys(*p).contains(&key))
        .collect()
}
