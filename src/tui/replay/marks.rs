//! What a replay finds in one look at its recording's events: where its
//! gate units begin, where stepping stops for a person, where breakers
//! move, the gates a fork can go live at.

use crate::bus::{BreakerState, Event, EventKind};
use crate::cassette::GateTarget;

/// Where a recording's gate units begin and its breakers move, found in
/// one look at its events.
#[derive(Default)]
pub(super) struct Marks {
    /// Positions where a gate unit begins (before round N, before wave N).
    pub(super) units: Vec<usize>,
    pub(super) stops: Vec<usize>,
    pub(super) breaker_moves: Vec<(usize, BreakerState)>,
    pub(super) gates: Vec<(usize, GateTarget)>,
    pub(super) unrecorded_calls: bool,
}

impl Marks {
    pub(super) fn see(&mut self, index: usize, event: &Event) {
        if crate::bus::describe::opens_step(&event.kind) {
            self.units.push(index);
        }
        if let Some((kind, number)) = crate::bus::describe::opened_gate(&event.kind) {
            self.gates.push((index, GateTarget { kind, number }));
        }
        let asks = match &event.kind {
            EventKind::Pattern(pattern) => pattern.asks_a_person(),
            kind => matches!(kind, EventKind::HumanDecided { .. }),
        };
        if asks {
            self.stops.push(index + 1);
        }
        if let EventKind::CallFinished { record: None, .. } = &event.kind {
            self.unrecorded_calls = true;
        }
        if let EventKind::BreakerTransition { to, .. } = &event.kind {
            self.breaker_moves.push((index + 1, *to));
        }
    }
}
