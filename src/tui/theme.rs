//! Colours and styles, in one place so panes agree: stances green, yellow
//! and red; the focused pane's border bright; secondary text dim.

use crate::bus::{BreakerState, Decision, Stance};
use ratatui::style::{Color, Modifier, Style};

pub(crate) const GO: Color = Color::Green;
pub(crate) const CAUTION: Color = Color::Yellow;
pub(crate) const BLOCK: Color = Color::Red;
pub(crate) const ACCENT: Color = Color::Cyan;

pub(crate) fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

pub(crate) fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

pub(crate) fn border(focused: bool) -> Style {
    if focused {
        Style::default().fg(ACCENT).add_modifier(Modifier::BOLD)
    } else {
        Style::default().fg(Color::Gray)
    }
}

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
    bold().fg(match decision {
        Decision::Go => GO,
        Decision::GoWithCaution => CAUTION,
        Decision::NoGo => BLOCK,
    })
}

pub(crate) fn selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED)
}

pub(crate) fn error() -> Style {
    Style::default().fg(BLOCK)
}

/// A breaker's colour: closed green, half-open yellow, open red.
pub(crate) fn breaker(state: BreakerState) -> Style {
    Style::default().fg(match state {
        BreakerState::Closed => GO,
        BreakerState::HalfOpen => CAUTION,
        BreakerState::Open => BLOCK,
    })
}
