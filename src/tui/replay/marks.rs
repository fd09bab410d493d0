//! What a replay finds in one look at its recording's events: where its
//! gate units begin, where stepping stops for a person, where breakers
//! move, the gates a fork can go live at.

use crate::bus::{BreakerState, Event, EventKind, FlagState, Question};
use crate::cassette::GateTarget;
use crate::scenario::PatternKind;

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
    pub(super) fork_facts: ForkFacts,
}

/// What a fork dialog offers at each gate: the flags as they stood there,
/// and the questions the run asked a person after it.
#[derive(Clone, Debug, Default)]
pub(crate) struct ForkFacts {
    pattern: Option<PatternKind>,
    /// The flags at the run's start, in declaration order.
    flags: Vec<FlagState>,
    /// Each flag turned, by the index of its event.
    turned: Vec<(usize, String, bool)>,
    /// Each question asked, by the index of the event that asked it.
    questions: Vec<(usize, Question)>,
}

impl ForkFacts {
    fn see(&mut self, index: usize, kind: &EventKind) {
        match kind {
            EventKind::RunStarted(start) => {
                self.pattern = Some(start.pattern);
                self.flags.clone_from(&start.flags);
            }
            EventKind::FlagChanged { name, on, .. } => self.turned.push((index, name.clone(), *on)),
            kind => {
                let asked = self
                    .pattern
                    .and_then(|pattern| crate::patterns::question_of(pattern, kind));
                if let Some(question) = asked {
                    self.questions.push((index, question));
                }
            }
        }
    }

    /// The flags as they stood before the event at `index`.
    pub(crate) fn flags_before(&self, index: usize) -> Vec<FlagState> {
        let mut flags = self.flags.clone();
        for (_, name, on) in self.turned.iter().take_while(|(at, ..)| *at < index) {
            match flags.iter_mut().find(|flag| flag.name == *name) {
                Some(flag) => flag.on = *on,
                None => flags.push(FlagState {
                    name: name.clone(),
                    on: *on,
                }),
            }
        }
        flags
    }

    /// The first question asked at or after the event at `index`.
    pub(crate) fn question_from(&self, index: usize) -> Option<&Question> {
        self.questions
            .iter()
            .find(|(at, _)| *at >= index)
            .map(|(_, question)| question)
    }
}

impl Marks {
    pub(super) fn see(&mut self, index: usize, event: &Event) {
        self.fork_facts.see(index, &event.kind);
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
