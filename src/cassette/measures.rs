//! What a recorded run measured on its clock around its calls, given back
//! to the same measures of a run served from it: a member call's latency,
//! a research step's run time. Served calls end at their recorded run
//! times, but the work between them took time on the recorded run's clock
//! and none on the served run's, so the served run's own readings would
//! be off by that much.

use crate::bus::{Event, EventKind};
use crate::patterns::events::PatternEvent;
use crate::patterns::events::{ResearchEvent, TeamEvent};
use std::collections::{HashMap, VecDeque};

/// One measure of the run, as the served run asks for it again.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Measure {
    /// A member call's `latency_ms`, by the turn that asked for it and the
    /// member's path.
    MemberCall { turn: u32, member: String },
    /// The run time at which a research step ended, by its number.
    StepEnded(u32),
}

/// Each measure's recorded values, in recorded order (a member called
/// twice in one turn is measured twice).
#[derive(Debug, Default)]
pub(crate) struct Measures(HashMap<Measure, VecDeque<u64>>);

impl Measures {
    /// Keep what `event` measured, if it measured anything.
    pub(super) fn read(&mut self, event: &Event) {
        let (measure, value) = match &event.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                turn,
                member,
                latency_ms,
                ..
            })) => (
                Measure::MemberCall {
                    turn: *turn,
                    member: member.clone(),
                },
                *latency_ms,
            ),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepFinished(
                step,
            ))) => (Measure::StepEnded(step.step), event.t_ms),
            _ => return,
        };
        self.0.entry(measure).or_default().push_back(value);
    }

    /// The recorded value of `measure`'s next reading.
    pub(super) fn take(&mut self, measure: &Measure) -> Option<u64> {
        self.0.get_mut(measure)?.pop_front()
    }
}
