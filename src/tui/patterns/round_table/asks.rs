//! What the table's question to a person shows above its options in the
//! dashboard's question dialog: the conflicts and each analyst's stance,
//! in the stances' colours, after the round that escalated.

use super::colours;
use crate::patterns::events::{Conflict, SeatStance};
use crate::sanitize::clean;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::text::{Line, Span};

/// The escalation, as its event told it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Escalated {
    pub(crate) round: u32,
    /// Rounds in a row with a blocking stance.
    pub(crate) blocking_rounds: u32,
    pub(crate) conflicts: Vec<Conflict>,
    pub(crate) stances: Vec<SeatStance>,
}

fn conflict_words(conflict: Conflict) -> &'static str {
    match conflict {
        Conflict::NoContributions => "nobody contributed",
        Conflict::GoVsCaution => "go against caution",
        Conflict::BlockingVsNonBlock => "a blocking stance against the others",
        Conflict::HighDivergence => "confidence far apart",
    }
}

/// The question and the stances, as lines `width` wide, a blank last.
pub(super) fn lines(asked: &Escalated, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::raw(fit(
        &format!(
            "After round {}, a blocking stance for {} in a row.",
            asked.round,
            crate::words::plural(u64::from(asked.blocking_rounds), "round"),
        ),
        width,
    ))];
    if !asked.conflicts.is_empty() {
        let conflicts: Vec<&str> = asked.conflicts.iter().map(|c| conflict_words(*c)).collect();
        lines.push(Line::from(vec![
            Span::styled("Conflicts  ", theme::dim()),
            Span::raw(fit(&conflicts.join(" · "), width.saturating_sub(11))),
        ]));
    }
    // At most eight seats: the options and the note stay on screen.
    for seat in asked.stances.iter().take(8) {
        let agent = clean(&seat.agent);
        lines.push(Line::from(vec![
            Span::styled(
                format!("{} ", colours::stance_glyph(seat.stance)),
                colours::stance(seat.stance),
            ),
            Span::raw(format!("{:<22}", fit(&agent, 22))),
            Span::styled(
                format!("{:<8}", seat.stance.as_str()),
                colours::stance(seat.stance),
            ),
            Span::styled(format!("{:.2}", seat.confidence), theme::dim()),
        ]));
    }
    lines.push(Line::raw(""));
    lines
}
