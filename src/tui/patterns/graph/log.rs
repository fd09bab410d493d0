//! How the event log colours the graph pattern's events.

use crate::patterns::events::{ActivationStatus, GraphEvent};
use crate::tui::theme;
use ratatui::style::Style;

/// The colour of the event's line in the event log.
pub(crate) fn style(event: &GraphEvent) -> Style {
    match event {
        GraphEvent::NodeFinished { status, .. } if *status != ActivationStatus::Ok => {
            theme::error()
        }
        GraphEvent::NodeStarted { .. } | GraphEvent::HumanAsked { .. } => theme::bold(),
        GraphEvent::NodeFinished { .. } | GraphEvent::JoinFired { .. } => {
            Style::default().fg(theme::GO)
        }
        _ => theme::dim(),
    }
}
