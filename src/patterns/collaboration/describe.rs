//! The round table's event lines, for the event log and its filter:
//! rounds, contributions, escalation to a person and the brief.

use super::events::RoundEvent;
use crate::bus::event::values::GateKind;
use crate::words::plural;

/// The event's line.
pub(crate) fn line(event: &RoundEvent) -> String {
    match event {
        RoundEvent::RoundStarted { round, speakers } => {
            format!("round {round}: {}", speakers.join(", "))
        }
        RoundEvent::ContributionRequested { round, agent } => {
            format!("round {round} · {agent} asked")
        }
        RoundEvent::ContributionAccepted {
            round,
            agent,
            stance,
            confidence,
            summary,
            ..
        } => format!(
            "round {round} · {agent}: {} {confidence} — {summary}",
            stance.as_str()
        ),
        RoundEvent::ContributionRejected {
            round,
            agent,
            reason,
            ..
        } => format!("round {round} · {agent} rejected: {reason}"),
        RoundEvent::RoundFinished {
            round,
            conflicts,
            decision,
        } => {
            let conflicts: Vec<&str> = conflicts.iter().map(|c| c.as_str()).collect();
            let conflicts = if conflicts.is_empty() {
                "no conflicts".to_string()
            } else {
                conflicts.join(", ")
            };
            let decision = decision.map_or("next round", |d| d.as_str());
            format!("round {round}: {conflicts} → {decision}")
        }
        RoundEvent::EscalatedToHuman {
            round,
            blocking_rounds,
            ..
        } => format!(
            "round {round}: a blocking stance {} in a row; asking a person",
            plural(u64::from(*blocking_rounds), "round")
        ),
        RoundEvent::FinalizeStarted { decision } => {
            format!("writing the brief ({})", decision.as_str())
        }
    }
}

/// Whether the event opens one of the pattern's steps: a round.
pub(crate) fn opens_step(event: &RoundEvent) -> bool {
    matches!(event, RoundEvent::RoundStarted { .. })
}

/// The gate the event opens a step at: `round 3` opens at the gate
/// before round 3.
pub(crate) fn opened_gate(event: &RoundEvent) -> Option<(GateKind, u32)> {
    match event {
        RoundEvent::RoundStarted { round, .. } => Some((GateKind::Round, *round)),
        _ => None,
    }
}

/// Whether the event raises a question to a person: the escalation.
pub(crate) fn asks_a_person(event: &RoundEvent) -> bool {
    matches!(event, RoundEvent::EscalatedToHuman { .. })
}

/// Whether the event closes one of the pattern's steps.
pub(crate) fn closes_step(event: &RoundEvent) -> bool {
    matches!(event, RoundEvent::RoundFinished { .. })
}
