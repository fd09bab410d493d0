//! Escalation to a person (000's try-next suggestion): after
//! `budget.escalate_after_blocking_rounds` rounds in a row with a blocking
//! stance, the table asks a person at the gate. The answer is a decision or
//! one more round, with an optional note that joins the shared context.

use super::result::RoundRecord;
use crate::bus::Bus;
use crate::bus::{Decision, EventKind, GatePoint, HumanChoice, SeatStance, Stance};
use crate::control::{Cancelled, Gate};
use crate::scenario::Scenario;

/// How the table stands towards a person.
#[derive(Debug, Default)]
pub(crate) struct Escalation {
    after: Option<u32>,
    streak: u32,
    /// Notes the person added, in order; they join the shared context.
    pub(crate) notes: Vec<String>,
    /// The person made the decision.
    pub(crate) decided: bool,
}

/// What the person answered.
pub(crate) enum Answer {
    /// Nobody is there to ask: the run stops with `escalated_to_human`.
    Nobody,
    Decided(Decision),
    OneMoreRound,
}

impl Escalation {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        Escalation {
            after: scenario
                .budget
                .as_ref()
                .and_then(|b| b.escalate_after_blocking_rounds),
            ..Escalation::default()
        }
    }

    /// After an undecided round: `None` while the table goes on by itself,
    /// else the person's answer.
    pub(crate) async fn after_round(
        &mut self,
        gate: &mut Gate,
        bus: &Bus,
        record: &RoundRecord,
    ) -> Result<Option<Answer>, Cancelled> {
        let Some(after) = self.after else {
            return Ok(None);
        };
        let blocked = record
            .contributions
            .iter()
            .any(|c| c.stance == Stance::Block);
        self.streak = if blocked { self.streak + 1 } else { 0 };
        if self.streak < after {
            return Ok(None);
        }
        bus.publish(EventKind::EscalatedToHuman {
            round: record.round,
            blocking_rounds: self.streak,
            conflicts: record.conflicts.clone(),
            stances: record
                .contributions
                .iter()
                .map(|c| SeatStance {
                    agent: c.agent.clone(),
                    stance: c.stance,
                    confidence: c.confidence,
                })
                .collect(),
        });
        let at = GatePoint::Decision {
            round: record.round,
        };
        let Some((choice, note)) = gate.ask(at).await? else {
            return Ok(Some(Answer::Nobody));
        };
        if let Some(note) = note.filter(|n| !n.trim().is_empty()) {
            self.notes.push(note);
        }
        self.streak = 0;
        Ok(Some(match choice.decision() {
            Some(decision) => {
                self.decided = true;
                Answer::Decided(decision)
            }
            None => {
                debug_assert_eq!(choice, HumanChoice::Continue);
                Answer::OneMoreRound
            }
        }))
    }
}
