//! The swarm's and the coordinator's events: turns, transfers, tool
//! calls, handoffs and member calls.

use super::outcome_word;
use crate::bus::EventKind;

/// The event's line, when it is one of this group's.
pub(super) fn line(kind: &EventKind) -> Option<String> {
    Some(match kind {
        EventKind::TurnStarted { turn, agent } => format!("turn {turn} · {agent}"),
        EventKind::TurnFinished {
            turn,
            agent,
            outcome,
            latency_ms,
        } => format!(
            "turn {turn} · {agent}: {} in {latency_ms} ms",
            outcome.as_str().replace('_', " ")
        ),
        EventKind::TransferRequested {
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
        EventKind::ToolUsed {
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
        EventKind::HandoffAccepted {
            from,
            to,
            handoffs,
            deadline_ms,
            ..
        } => match deadline_ms {
            Some(at) => format!("{from} → {to} (handoff {handoffs}, until {at} ms)"),
            None => format!("{from} → {to} (handoff {handoffs})"),
        },
        EventKind::HandoffRejected {
            from,
            to,
            reason,
            handoffs,
            window,
        } => format!(
            "{from} ✗ {to}: {reason} (handoffs {handoffs}, window [{}])",
            window.join(" ")
        ),
        EventKind::MemberCallStarted {
            turn, member, task, ..
        } => format!("turn {turn} · calls {member}: {task}"),
        EventKind::MemberCallFinished {
            member,
            outcome,
            latency_ms,
            reason,
            ..
        } => match reason {
            Some(reason) => format!("{member}: {reason} after {latency_ms} ms"),
            None => format!("{member}: {} in {latency_ms} ms", outcome_word(*outcome)),
        },
        _ => return None,
    })
}
