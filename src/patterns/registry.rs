//! The bus's registry of the patterns (`bus::pattern::Registry`): the
//! patterns' events' type, a step gate's phase and every pattern's
//! figures, given here so that the bus and the floors below the patterns
//! name none of them. Apart from `declared`, which the scenario reads: the
//! events are not the scenario's business.

use super::declared::{PATTERNS, figures_of};
use super::events::PatternEvent;
use super::research::events::ResearchPhase;
use crate::bus::figures::Figures;
use crate::bus::pattern::{Patterns, Registry};

impl Registry for Patterns {
    type Event = PatternEvent;
    type StepPhase = ResearchPhase;

    fn figures() -> impl Iterator<Item = &'static Figures> {
        PATTERNS.iter().map(|p| figures_of(*p))
    }

    fn summary_order() -> &'static (Vec<&'static str>, Vec<&'static str>) {
        super::figures::summary_order()
    }
}
