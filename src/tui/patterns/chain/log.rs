//! How the event log colours a team of agents's events.

use crate::bus::CallOutcome;
use crate::patterns::events::TeamEvent;
use crate::tui::theme;
use ratatui::style::Style;

/// The colour of the event's line in the event log.
pub(crate) fn style(event: &TeamEvent) -> Style {
    match event {
        TeamEvent::HandoffAccepted { .. } => Style::default().fg(theme::GO),
        TeamEvent::HandoffRejected { .. } | TeamEvent::ToolUsed { ok: false, .. } => theme::error(),
        TeamEvent::MemberCallFinished { outcome, .. } => match outcome {
            CallOutcome::Ok => Style::default().fg(theme::GO),
            _ => theme::error(),
        },
        TeamEvent::TransferRequested { .. }
        | TeamEvent::MemberCallStarted { .. }
        | TeamEvent::ToolUsed { ok: true, .. } => Style::default().fg(theme::ACCENT),
        TeamEvent::TurnStarted { .. } | TeamEvent::TurnFinished { .. } => theme::dim(),
    }
}
