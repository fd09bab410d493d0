//! What a recorded run measured on its clock around its calls, given back
//! to the same measures of a run served from it: a member call's latency,
//! a research step's run time. Served calls end at their recorded run
//! times, but the work between them took time on the recorded run's clock
//! and none on the served run's, so the served run's own readings would
//! be off by that much.

pub(crate) use crate::bus::cassette::Measure;
use crate::bus::{Event, EventKind};
use std::collections::{HashMap, VecDeque};

/// Each measure's recorded values, in recorded order (a member called
/// twice in one turn is measured twice).
#[derive(Debug, Default)]
pub(crate) struct Measures(HashMap<Measure, VecDeque<u64>>);

impl Measures {
    /// Keep what `event` measured, if it measured anything.
    pub(super) fn read(&mut self, event: &Event) {
        let EventKind::Pattern(pattern) = &event.kind else {
            return;
        };
        let Some((measure, value)) = pattern.measured(event.t_ms) else {
            return;
        };
        self.0.entry(measure).or_default().push_back(value);
    }

    /// The recorded value of `measure`'s next reading.
    pub(super) fn take(&mut self, measure: &Measure) -> Option<u64> {
        self.0.get_mut(measure)?.pop_front()
    }
}
