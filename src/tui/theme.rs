//! Colours and styles, in one place so panes agree: stances green, yellow
//! and red; the focused pane's border bright; secondary text dim.

use crate::bus::{BreakerState, Decision, Stance};
use ratatui::style::{Color, Modifier, Style};

pub const GO: Color = Color::Green;
pub const CAUTION: Color = Color::Yellow;
pub const BLOCK: Color = Color::Red;
pub const ACCENT: Color = Color::Cyan;

pub fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

pub fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

pub fn border(focused: bool) -> Style {
    if focused {
        Style::default().fg(ACCENT).add_modifier(Modifier::BOLD)
    } else {
        Style::default().fg(Color::Gray)
    }
}

pub fn stance(stance: Stance) -> Style {
    Style::default().fg(match stance {
        Stance::Go => GO,
        Stance::Caution => CAUTION,
        Stance::Block => BLOCK,
    })
}

pub fn stance_glyph(stance: Stance) -> &'static str {
    match stance {
        Stance::Go => "●",
        Stance::Caution => "▲",
        Stance::Block => "■",
    }
}

pub fn decision(decision: Decision) -> Style {
    bold().fg(match decision {
        Decision::Go => GO,
        Decision::GoWithCaution => CAUTION,
        Decision::NoGo => BLOCK,
    })
}

pub fn selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED)
}

pub fn error() -> Style {
    Style::default().fg(BLOCK)
}

/// A breaker's colour: closed green, half-open yellow, open red.
pub fn breaker(state: BreakerState) -> Style {
    Style::default().fg(match state {
        BreakerState::Closed => GO,
        BreakerState::HalfOpen => CAUTION,
        BreakerState::Open => BLOCK,
    })
}

/// Text a search found: underlined and bold, so it shows without colour
/// and inside a selected (reversed) row too.
pub fn found() -> Style {
    Style::default()
        .fg(CAUTION)
        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
}
