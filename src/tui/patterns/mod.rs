//! Each pattern's part of the dashboard, one folder a pattern: its fold
//! over the run's events, its pane's selection, the keys it adds, its
//! drawing, its wanted height, its details and its result lines, behind
//! `PatternUnit`. This is the one place the dashboard looks at which
//! pattern a run is; adding a pattern is a folder and a line here.

pub(crate) mod chain;
mod doing;
pub(crate) mod fold;
pub(crate) mod folding;
pub(crate) mod graph;
pub mod research;
pub(crate) mod round_table;
pub(crate) mod seen;
pub(crate) mod unit;
pub(crate) mod watched;
pub mod workers;

use crate::patterns::events::PatternEvent;
use crate::scenario::PatternKind;
use unit::PatternUnit;

/// The dashboard's part for a run of `pattern` started from `source`
/// (`RunStarted.source`): a watched run's (`conclave watch`) is its own,
/// whatever pattern it is seated as.
pub(crate) fn unit_for(pattern: PatternKind, source: Option<&str>) -> &'static dyn PatternUnit {
    if source.is_some_and(|s| s.starts_with(crate::watch::translate::WATCH_SOURCE)) {
        return &watched::WatchedUnit;
    }
    unit(pattern)
}

/// The dashboard's part for runs of `pattern`.
pub(crate) fn unit(pattern: PatternKind) -> &'static dyn PatternUnit {
    match pattern {
        PatternKind::Collaboration => &round_table::RoundTableUnit,
        PatternKind::Orchestrator => &workers::WorkersUnit,
        PatternKind::Swarm => &chain::SwarmUnit,
        PatternKind::Coordinator => &chain::CoordinatorUnit,
        PatternKind::Research => &research::ResearchUnit,
        PatternKind::Graph => &graph::GraphUnit,
    }
}

/// The colour of a pattern's event in the event log, by the pattern whose
/// event it is (a run's log holds its member teams' events too).
pub(crate) fn log_style(event: &PatternEvent) -> ratatui::style::Style {
    match event {
        PatternEvent::Round(event) => round_table::log::style(event),
        PatternEvent::Tasks(event) => workers::log::style(event),
        PatternEvent::Team(event) => chain::log::style(event),
        PatternEvent::Research(event) => research::log::style(event),
        PatternEvent::Graph(event) => graph::log::style(event),
    }
}
