//! The run's own events and its control: start, finish, budgets,
//! flags, pauses and steps, a person's answer at a gate.

use crate::bus::{EventKind, RunStatus};
use crate::words::plural;

/// The event's line, when it is one of this group's.
pub(super) fn line<P>(kind: &EventKind<P>) -> Option<String> {
    Some(match kind {
        EventKind::RunStarted(started) => format!(
            "{} ({}) seed {}",
            started.scenario.name, started.pattern, started.seed
        ),
        EventKind::RunFinished {
            status,
            stop_reason,
            phase,
            ..
        } => {
            let status = match status {
                RunStatus::Ok => "ok",
                RunStatus::Stopped => "stopped",
            };
            match phase {
                Some(phase) => format!("{status}: {stop_reason} at {phase}"),
                None => format!("{status}: {stop_reason}"),
            }
        }
        EventKind::BudgetConsumed {
            budget,
            used,
            limit,
        } => format!("{} {used}/{limit}", budget.as_str().replace('_', " ")),
        EventKind::FlagChanged { name, on, .. } => {
            format!("{name} {}", if *on { "on" } else { "off" })
        }
        EventKind::Paused { gate } | EventKind::Resumed { gate } | EventKind::Stepped { gate } => {
            gate.to_string()
        }
        EventKind::WentLive { gate } => {
            format!(
                "live from here on ({gate}); calls before were served from the parent's recording"
            )
        }
        EventKind::ToolsDescribed { tools } => {
            format!("servers described {}", plural(tools.len() as u64, "tool"))
        }
        EventKind::SpanArrived {
            span_kind,
            under_placeholder,
            name,
            ..
        } => {
            let wait = if *under_placeholder {
                " (parent not arrived)"
            } else {
                ""
            };
            format!("span {name} ({span_kind}){wait}")
        }
        EventKind::Steered { said, .. } => said.clone(),
        EventKind::ProgramOutput { stderr: true, text } => format!("stderr: {text}"),
        EventKind::ProgramOutput {
            stderr: false,
            text,
        } => text.clone(),
        EventKind::HumanDecided { choice, note, .. } => match note {
            Some(note) => format!("a person chose {} (note: {note})", choice.as_str()),
            None => format!("a person chose {}", choice.as_str()),
        },
        _ => return None,
    })
}
