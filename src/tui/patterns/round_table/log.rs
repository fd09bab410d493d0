//! How the event log colours the round table's events.

use crate::patterns::events::RoundEvent;
use crate::tui::theme;
use ratatui::style::Style;

/// The colour of the event's line in the event log.
pub(crate) fn style(event: &RoundEvent) -> Style {
    match event {
        RoundEvent::ContributionAccepted { .. } => Style::default().fg(theme::GO),
        RoundEvent::ContributionRejected { .. } => theme::error(),
        RoundEvent::RoundStarted { .. }
        | RoundEvent::RoundFinished { .. }
        | RoundEvent::FinalizeStarted { .. } => theme::bold(),
        RoundEvent::ContributionRequested { .. } => theme::dim(),
        RoundEvent::EscalatedToHuman { .. } => Style::default().fg(theme::CAUTION),
    }
}
