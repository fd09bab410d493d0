//! The round table's question to a person, as the run's events tell it:
//! asked when the table escalates, answered when a person decides. Kept
//! until the next round starts, so that a replay shows the question and
//! then the answer.

use crate::bus::{Conflict, EventKind, HumanChoice, SeatStance};

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Escalation {
    /// The round after which the table asked.
    pub(crate) round: u32,
    /// Rounds in a row with a blocking stance.
    pub(crate) blocking_rounds: u32,
    pub(crate) conflicts: Vec<Conflict>,
    /// Each analyst's stance in that round.
    pub(crate) stances: Vec<SeatStance>,
    /// The person's choice and note, once given.
    pub(crate) answer: Option<(HumanChoice, Option<String>)>,
}

impl Escalation {
    /// Whether the table still waits for a person.
    pub(crate) fn waiting(&self) -> bool {
        self.answer.is_none()
    }
}

/// Fold `kind` into the question `now` stands at.
pub(super) fn fold(now: &mut Option<Escalation>, kind: &EventKind) {
    match kind {
        EventKind::EscalatedToHuman {
            round,
            blocking_rounds,
            conflicts,
            stances,
        } => {
            *now = Some(Escalation {
                round: *round,
                blocking_rounds: *blocking_rounds,
                conflicts: conflicts.clone(),
                stances: stances.clone(),
                answer: None,
            });
        }
        EventKind::HumanDecided { choice, note, .. } => {
            if let Some(escalation) = now {
                escalation.answer = Some((*choice, note.clone()));
            }
        }
        // One more round: the question is behind the table.
        _ if crate::bus::describe::opens_step(kind) => *now = None,
        _ => {}
    }
}
