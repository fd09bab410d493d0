//! The orchestrator's events: the plan, waves, tasks and their
//! attempts, the aggregate.

use super::outcome_word;
use crate::bus::TaskEvent;
use crate::bus::{EventKind, TaskStatus};
use crate::words::plural;

/// The event's line, when it is one of this group's.
pub(super) fn line(kind: &EventKind) -> Option<String> {
    Some(match kind {
        EventKind::Tasks(TaskEvent::PlanAccepted { tasks }) => {
            format!("{} planned", plural(tasks.len() as u64, "task"))
        }
        EventKind::Tasks(TaskEvent::WaveStarted { wave, tasks }) => {
            format!("wave {wave}: {}", tasks.join(", "))
        }
        EventKind::Tasks(TaskEvent::PlanRejected { reason, .. }) => {
            format!("plan refused: {reason}")
        }
        EventKind::Tasks(TaskEvent::TaskQueued {
            task,
            worker,
            critical,
            ..
        }) => format!(
            "{task} → {worker}{}",
            if *critical { " (critical)" } else { "" }
        ),
        EventKind::AttemptStarted {
            task,
            attempt,
            max_attempts,
            timeout_ms,
            ..
        } if *timeout_ms == u64::MAX => {
            format!("{task} attempt {attempt}/{max_attempts}, no timeout")
        }
        EventKind::AttemptStarted {
            task,
            attempt,
            max_attempts,
            timeout_ms,
            ..
        } => format!("{task} attempt {attempt}/{max_attempts}, timeout {timeout_ms} ms"),
        EventKind::AttemptFinished {
            task,
            attempt,
            outcome,
            elapsed_ms,
            reason,
            ..
        } => match reason {
            Some(reason) => format!("{task} attempt {attempt}: {reason} after {elapsed_ms} ms"),
            None => format!(
                "{task} attempt {attempt}: {} in {elapsed_ms} ms",
                outcome_word(*outcome)
            ),
        },
        EventKind::Tasks(TaskEvent::TaskFinished {
            task,
            status,
            attempts_used,
            stop_reason,
            ..
        }) => match (status, stop_reason) {
            (_, Some(reason)) => format!("{task} failed: {reason} ({})", attempts(*attempts_used)),
            (TaskStatus::Done, None) => format!("{task} done ({})", attempts(*attempts_used)),
            (TaskStatus::Failed, None) => format!("{task} failed ({})", attempts(*attempts_used)),
        },
        EventKind::Tasks(TaskEvent::Aggregated { health, .. }) => {
            format!("health {}", health.as_str())
        }
        _ => return None,
    })
}

fn attempts(n: u32) -> String {
    plural(u64::from(n), "attempt")
}

/// Whether the event opens one of the pattern's steps: a dispatch wave (opens) or a task (closes).
pub(super) fn opens_step(event: &TaskEvent) -> bool {
    matches!(event, TaskEvent::WaveStarted { .. })
}

/// The gate the event opens a step at: `round 3` opens at the gate
/// before round 3.
pub(super) fn opened_gate(event: &TaskEvent) -> Option<(super::GateKind, u32)> {
    match event {
        TaskEvent::WaveStarted { wave, .. } => Some((super::GateKind::Wave, *wave)),
        _ => None,
    }
}

/// Whether the event closes one of the pattern's steps.
pub(super) fn closes_step(event: &TaskEvent) -> bool {
    matches!(event, TaskEvent::TaskFinished { .. })
}
