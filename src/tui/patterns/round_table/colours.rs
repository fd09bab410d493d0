//! The round table's entries in the theme: a stance's colour and glyph, a
//! decision's colour, drawn in the shared theme's green, yellow and red.

use crate::patterns::events::{Decision, Stance};
use crate::tui::theme::{self, BLOCK, CAUTION, GO};
use ratatui::style::Style;

pub(crate) fn stance(stance: Stance) -> Style {
    Style::default().fg(match stance {
        Stance::Go => GO,
        Stance::Caution => CAUTION,
        Stance::Block => BLOCK,
    })
}

pub(crate) fn stance_glyph(stance: Stance) -> &'static str {
    match stance {
        Stance::Go => "●",
        Stance::Caution => "▲",
        Stance::Block => "■",
    }
}

pub(crate) fn decision(decision: Decision) -> Style {
    theme::headline(match decision {
        Decision::Go => GO,
        Decision::GoWithCaution => CAUTION,
        Decision::NoGo => BLOCK,
    })
}
