//! The event lines of a team of agents (swarm and coordinator), for the
//! event log and its filter: turns, transfers, tool calls, handoffs and
//! member calls.

use super::events::TeamEvent;
use crate::bus::cassette::Measure;
use crate::bus::event::values::GateKind;

/// The event's line.
pub(crate) fn line(event: &TeamEvent) -> String {
    match event {
        TeamEvent::TurnStarted { turn, agent } => format!("turn {turn} · {agent}"),
        TeamEvent::TurnFinished {
            turn,
            agent,
            outcome,
            latency_ms,
        } => format!(
            "turn {turn} · {agent}: {} in {latency_ms} ms",
            outcome.as_str().replace('_', " ")
        ),
        TeamEvent::TransferRequested {
            turn,
            from,
            to,
            message,
        } => match message {
            Some(message) => {
                format!("turn {turn} · {from} asks to hand over to {to}: {message}")
            }
            None => format!("turn {turn} · {from} asks to hand over to {to}"),
        },
        TeamEvent::ToolUsed {
            turn,
            agent,
            tool,
            args,
            result,
            ok,
        } => format!(
            "turn {turn} · {agent} called {tool} {args} → {}{result}",
            if *ok { "" } else { "failed: " }
        ),
        TeamEvent::HandoffAccepted {
            from,
            to,
            handoffs,
            deadline_ms,
            ..
        } => match deadline_ms {
            Some(at) => format!("{from} → {to} (handoff {handoffs}, until {at} ms)"),
            None => format!("{from} → {to} (handoff {handoffs})"),
        },
        TeamEvent::HandoffRejected {
            from,
            to,
            reason,
            handoffs,
            window,
        } => format!(
            "{from} ✗ {to}: {reason} (handoffs {handoffs}, window [{}])",
            window.join(" ")
        ),
        TeamEvent::MemberCallStarted {
            turn,
            member,
            task,
            team,
            ..
        } => match team {
            Some(team) => format!(
                "turn {turn} · calls {member}, a {} team of its own ({}/…): {task}",
                team.pattern, team.path
            ),
            None => format!("turn {turn} · calls {member}: {task}"),
        },
        TeamEvent::MemberCallFinished {
            member,
            outcome,
            latency_ms,
            reason,
            ..
        } => match reason {
            Some(reason) => format!("{member}: {reason} after {latency_ms} ms"),
            None => format!("{member}: {} in {latency_ms} ms", outcome.word()),
        },
    }
}

/// Whether the event opens one of the pattern's steps: an agent's turn.
pub(crate) fn opens_step(event: &TeamEvent) -> bool {
    matches!(event, TeamEvent::TurnStarted { .. })
}

/// The gate the event opens a step at: `turn 4` opens at the gate
/// before turn 4.
pub(crate) fn opened_gate(event: &TeamEvent) -> Option<(GateKind, u32)> {
    match event {
        TeamEvent::TurnStarted { turn, .. } => Some((GateKind::Turn, *turn)),
        _ => None,
    }
}

/// What the event measured: a member call's latency.
pub(crate) fn measured(event: &TeamEvent) -> Option<(Measure, u64)> {
    match event {
        TeamEvent::MemberCallFinished {
            turn,
            member,
            latency_ms,
            ..
        } => Some((
            Measure::MemberCall {
                turn: *turn,
                member: member.clone(),
            },
            *latency_ms,
        )),
        _ => None,
    }
}

/// Whether the event closes one of the pattern's steps.
pub(crate) fn closes_step(event: &TeamEvent) -> bool {
    matches!(event, TeamEvent::TurnFinished { .. })
}
