//! The orchestrator's event lines, for the event log and its filter: the
//! plan, waves, tasks and the aggregate (a task's attempts are every
//! run's calls and worded with them).

use super::events::{TaskEvent, TaskStatus};
use crate::bus::event::values::GateKind;
use crate::words::plural;

/// The event's line.
pub(crate) fn line(event: &TaskEvent) -> String {
    match event {
        TaskEvent::PlanAccepted { tasks } => {
            format!("{} planned", plural(tasks.len() as u64, "task"))
        }
        TaskEvent::WaveStarted { wave, tasks } => {
            format!("wave {wave}: {}", tasks.join(", "))
        }
        TaskEvent::PlanRejected { reason, .. } => {
            format!("plan refused: {reason}")
        }
        TaskEvent::TaskQueued {
            task,
            worker,
            critical,
            ..
        } => format!(
            "{task} → {worker}{}",
            if *critical { " (critical)" } else { "" }
        ),
        TaskEvent::TaskFinished {
            task,
            status,
            attempts_used,
            stop_reason,
            ..
        } => match (status, stop_reason) {
            (_, Some(reason)) => format!("{task} failed: {reason} ({})", attempts(*attempts_used)),
            (TaskStatus::Done, None) => format!("{task} done ({})", attempts(*attempts_used)),
            (TaskStatus::Failed, None) => format!("{task} failed ({})", attempts(*attempts_used)),
        },
        TaskEvent::Aggregated { health, .. } => {
            format!("health {}", health.as_str())
        }
    }
}

fn attempts(n: u32) -> String {
    plural(u64::from(n), "attempt")
}

/// Whether the event opens one of the pattern's steps: a dispatch wave.
pub(crate) fn opens_step(event: &TaskEvent) -> bool {
    matches!(event, TaskEvent::WaveStarted { .. })
}

/// The gate the event opens a step at: `wave 2` opens at the gate
/// before wave 2.
pub(crate) fn opened_gate(event: &TaskEvent) -> Option<(GateKind, u32)> {
    match event {
        TaskEvent::WaveStarted { wave, .. } => Some((GateKind::Wave, *wave)),
        _ => None,
    }
}

/// Whether the event closes one of the pattern's steps.
pub(crate) fn closes_step(event: &TaskEvent) -> bool {
    matches!(event, TaskEvent::TaskFinished { .. })
}
