//! The round table's events: rounds, contributions, escalation to a
//! person and the brief.

use crate::bus::EventKind;
use crate::bus::RoundEvent;
use crate::words::plural;

/// The event's line, when it is one of this group's.
pub(super) fn line(kind: &EventKind) -> Option<String> {
    Some(match kind {
        EventKind::Round(RoundEvent::RoundStarted { round, speakers }) => {
            format!("round {round}: {}", speakers.join(", "))
        }
        EventKind::Round(RoundEvent::ContributionRequested { round, agent }) => {
            format!("round {round} · {agent} asked")
        }
        EventKind::Round(RoundEvent::ContributionAccepted {
            round,
            agent,
            stance,
            confidence,
            summary,
            ..
        }) => format!(
            "round {round} · {agent}: {} {confidence} — {summary}",
            stance.as_str()
        ),
        EventKind::Round(RoundEvent::ContributionRejected {
            round,
            agent,
            reason,
            ..
        }) => format!("round {round} · {agent} rejected: {reason}"),
        EventKind::Round(RoundEvent::RoundFinished {
            round,
            conflicts,
            decision,
        }) => {
            let conflicts: Vec<&str> = conflicts.iter().map(|c| c.as_str()).collect();
            let conflicts = if conflicts.is_empty() {
                "no conflicts".to_string()
            } else {
                conflicts.join(", ")
            };
            let decision = decision.map_or("next round", |d| d.as_str());
            format!("round {round}: {conflicts} → {decision}")
        }
        EventKind::EscalatedToHuman {
            round,
            blocking_rounds,
            ..
        } => format!(
            "round {round}: a blocking stance {} in a row; asking a person",
            plural(u64::from(*blocking_rounds), "round")
        ),
        EventKind::HumanDecided { choice, note, .. } => match note {
            Some(note) => format!("a person chose {} (note: {note})", choice.as_str()),
            None => format!("a person chose {}", choice.as_str()),
        },
        EventKind::Round(RoundEvent::FinalizeStarted { decision }) => {
            format!("writing the brief ({})", decision.as_str())
        }
        _ => return None,
    })
}

/// Whether the event opens one of the pattern's steps: a round.
pub(super) fn opens_step(event: &RoundEvent) -> bool {
    matches!(event, RoundEvent::RoundStarted { .. })
}

/// The gate the event opens a step at: `round 3` opens at the gate
/// before round 3.
pub(super) fn opened_gate(event: &RoundEvent) -> Option<(super::GateKind, u32)> {
    match event {
        RoundEvent::RoundStarted { round, .. } => Some((super::GateKind::Round, *round)),
        _ => None,
    }
}

/// Whether the event closes one of the pattern's steps.
pub(super) fn closes_step(event: &RoundEvent) -> bool {
    matches!(event, RoundEvent::RoundFinished { .. })
}
