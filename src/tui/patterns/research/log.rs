//! How the event log colours the research workflow's events.

use crate::patterns::events::ResearchEvent;
use crate::tui::theme;
use ratatui::style::Style;

/// The colour of the event's line in the event log.
pub(crate) fn style(event: &ResearchEvent) -> Style {
    match event {
        ResearchEvent::PageRead(_) | ResearchEvent::NoteExtracted(_) | ResearchEvent::Cited(_) => {
            Style::default().fg(theme::GO)
        }
        ResearchEvent::SourceDenied(_) => theme::error(),
        ResearchEvent::NotesVerified(verified) => {
            if verified.ok {
                Style::default().fg(theme::GO)
            } else {
                theme::error()
            }
        }
        ResearchEvent::ResearchStepStarted(_) | ResearchEvent::ResearchStepFinished(_) => {
            theme::bold()
        }
        ResearchEvent::SourceFound(_)
        | ResearchEvent::SourcesDeduped(_)
        | ResearchEvent::SourceAllowed(_) => theme::dim(),
    }
}
