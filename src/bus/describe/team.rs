//! The swarm's and the coordinator's events: turns, transfers, tool
//! calls, handoffs and member calls.

use super::outcome_word;
use crate::bus::EventKind;
use crate::bus::TeamEvent;

/// The event's line, when it is one of this group's.
pub(super) fn line(kind: &EventKind) -> Option<String> {
    Some(match kind {
        EventKind::Team(TeamEvent::TurnStarted { turn, agent }) => format!("turn {turn} · {agent}"),
        EventKind::Team(TeamEvent::TurnFinished {
            turn,
            agent,
            outcome,
            latency_ms,
        }) => format!(
            "turn {turn} · {agent}: {} in {latency_ms} ms",
            outcome.as_str().replace('_', " ")
        ),
        EventKind::Team(TeamEvent::TransferRequested {
            turn,
            from,
            to,
            message,
        }) => match message {
            Some(message) => {
                format!("turn {turn} · {from} asks to hand over to {to}: {message}")
            }
            None => format!("turn {turn} · {from} asks to hand over to {to}"),
        },
        EventKind::Team(TeamEvent::ToolUsed {
            turn,
            agent,
            tool,
            args,
            result,
            ok,
        }) => format!(
            "turn {turn} · {agent} called {tool} {args} → {}{result}",
            if *ok { "" } else { "failed: " }
        ),
        EventKind::Team(TeamEvent::HandoffAccepted {
            from,
            to,
            handoffs,
            deadline_ms,
            ..
        }) => match deadline_ms {
            Some(at) => format!("{from} → {to} (handoff {handoffs}, until {at} ms)"),
            None => format!("{from} → {to} (handoff {handoffs})"),
        },
        EventKind::Team(TeamEvent::HandoffRejected {
            from,
            to,
            reason,
            handoffs,
            window,
        }) => format!(
            "{from} ✗ {to}: {reason} (handoffs {handoffs}, window [{}])",
            window.join(" ")
        ),
        EventKind::Team(TeamEvent::MemberCallStarted {
            turn,
            member,
            task,
            team,
            ..
        }) => match team {
            Some(team) => format!(
                "turn {turn} · calls {member}, a {} team of its own ({}/…): {task}",
                team.pattern, team.path
            ),
            None => format!("turn {turn} · calls {member}: {task}"),
        },
        EventKind::Team(TeamEvent::MemberCallFinished {
            member,
            outcome,
            latency_ms,
            reason,
            ..
        }) => match reason {
            Some(reason) => format!("{member}: {reason} after {latency_ms} ms"),
            None => format!("{member}: {} in {latency_ms} ms", outcome_word(*outcome)),
        },
        _ => return None,
    })
}

/// Whether the event opens one of the pattern's steps: an agent's turn.
pub(super) fn opens_step(event: &TeamEvent) -> bool {
    matches!(event, TeamEvent::TurnStarted { .. })
}

/// The gate the event opens a step at: `round 3` opens at the gate
/// before round 3.
pub(super) fn opened_gate(event: &TeamEvent) -> Option<(super::GateKind, u32)> {
    match event {
        TeamEvent::TurnStarted { turn, .. } => Some((super::GateKind::Turn, *turn)),
        _ => None,
    }
}

/// Whether the event closes one of the pattern's steps.
pub(super) fn closes_step(event: &TeamEvent) -> bool {
    matches!(event, TeamEvent::TurnFinished { .. })
}
