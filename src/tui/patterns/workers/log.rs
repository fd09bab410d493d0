//! How the event log colours the orchestrator's events.

use crate::patterns::events::TaskEvent;
use crate::patterns::events::TaskStatus;
use crate::tui::theme;
use ratatui::style::Style;

/// The colour of the event's line in the event log.
pub(crate) fn style(event: &TaskEvent) -> Style {
    match event {
        TaskEvent::PlanAccepted { .. } => Style::default().fg(theme::GO),
        TaskEvent::PlanRejected { .. } => theme::error(),
        TaskEvent::TaskFinished { status, .. } => match status {
            TaskStatus::Done => Style::default().fg(theme::GO),
            TaskStatus::Failed => theme::error(),
        },
        TaskEvent::Aggregated { .. } | TaskEvent::WaveStarted { .. } => theme::bold(),
        TaskEvent::TaskQueued { .. } => theme::dim(),
    }
}
