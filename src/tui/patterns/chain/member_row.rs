//! One member call in a word and a line: its state, glyph, colour and
//! latency, and the row a narrow pane or an opened member team draws for
//! it. Shared by the member cards and the tree of teams.

use super::state::{MemberState, MemberView};
use super::swarm::TURN_TEXT;
use crate::bus::CallOutcome;
use crate::tui::state::partial::PartialText;
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use crate::tui::widgets::{self, seconds};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// A member's state in a word, its glyph and colour, and its latency so
/// far.
pub(super) fn member_state(member: &MemberView, now: u64) -> (&'static str, Style, u64) {
    match &member.state {
        MemberState::Running => (
            "● running",
            Style::default().fg(theme::ACCENT),
            now.saturating_sub(member.started_ms),
        ),
        MemberState::Done { latency_ms, .. } => {
            ("✓ done", Style::default().fg(theme::GO), *latency_ms)
        }
        MemberState::Failed {
            latency_ms,
            outcome,
            ..
        } => (
            match outcome {
                Some(CallOutcome::Timeout) => "⏱ timed out",
                Some(CallOutcome::Refused) => "✗ refused",
                _ => "✗ failed",
            },
            theme::error(),
            latency_ms.unwrap_or_else(|| now.saturating_sub(member.started_ms)),
        ),
    }
}

/// One line per member, for panes too narrow for boxes.
pub(super) fn member_row(
    member: &MemberView,
    now: u64,
    width: usize,
    writing: Option<&PartialText>,
) -> Line<'static> {
    let (word, style, latency) = member_state(member, now);
    let detail = match &member.state {
        MemberState::Done { reply, .. } => reply.clone(),
        MemberState::Failed { reason, .. } => reason
            .as_ref()
            .map_or("did not finish".to_string(), ToString::to_string),
        MemberState::Running => member.task.clone(),
    };
    let head = format!("{} ", pad(&member.member, 16));
    let state = format!("{} {} ", pad(word, 11), seconds(latency));
    let rest = width.saturating_sub(head.chars().count() + state.chars().count());
    let mut spans = vec![
        Span::styled(head, theme::bold()),
        Span::styled(state, style),
    ];
    match writing {
        Some(text) => spans.extend(widgets::writing(text, TURN_TEXT, rest).spans),
        None => spans.push(Span::raw(fit(&detail, rest))),
    }
    Line::from(spans)
}
