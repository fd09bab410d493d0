//! Each pattern's part of the dashboard, one folder a pattern: its fold
//! over the run's events, its pane's selection, the keys it adds, its
//! drawing, its wanted height, its details and its result lines, behind
//! `PatternUnit`. This is the one place the dashboard looks at which
//! pattern a run is; adding a pattern is a folder and a line here.

pub(crate) mod chain;
pub(crate) mod fold;
pub(crate) mod folding;
pub mod research;
pub(crate) mod round_table;
pub(crate) mod unit;
pub mod workers;

use crate::scenario::PatternKind;
use unit::PatternUnit;

/// The dashboard's part for runs of `pattern`.
pub(crate) fn unit(pattern: PatternKind) -> &'static dyn PatternUnit {
    match pattern {
        PatternKind::Collaboration => &round_table::RoundTableUnit,
        PatternKind::Orchestrator => &workers::WorkersUnit,
        PatternKind::Swarm => &chain::SwarmUnit,
        PatternKind::Coordinator => &chain::CoordinatorUnit,
        PatternKind::Research => &research::ResearchUnit,
    }
}
