//! The replay's timeline: playing or paused and at what speed, how far
//! through the recording (seq of total, run clock, round or wave of all),
//! where breakers moved (marked on the bar: ✕ opened, ◐ half-open, ✓
//! closed, so a jump can aim at them), and what the recording lacks (its
//! finish, unreadable lines).

use crate::bus::BreakerState;
use crate::bus::describe::clock;
use crate::tui::replay::Replay;
use crate::tui::state::severity;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

const BAR: usize = 24;

/// `word` names what one of the pattern's gates passes (a round, a
/// wave); `now_ms` is the run clock shown; `jump_input` is the number
/// being typed after `g`.
pub(crate) fn draw(
    frame: &mut Frame,
    area: Rect,
    replay: &Replay,
    word: &str,
    now_ms: u64,
    jump_input: Option<&str>,
) {
    if let Some(input) = jump_input {
        let line = Line::from(vec![
            Span::styled(format!(" jump to the end of {word}: "), theme::bold()),
            Span::raw(input.to_string()),
            Span::styled("▏", Style::default().fg(theme::ACCENT)),
            Span::styled("  Enter jumps · Esc cancels", theme::dim()),
        ]);
        frame.render_widget(Paragraph::new(line), area);
        return;
    }
    let (glyph, style) = if replay.playing {
        ("▶", Style::default().fg(theme::GO))
    } else {
        ("⏸", Style::default().fg(theme::CAUTION))
    };
    let (unit, units) = replay.unit();
    let mut spans = vec![Span::styled(
        format!(" {glyph} {} ", replay.speed.label()),
        style.patch(theme::bold()),
    )];
    spans.extend(bar(replay));
    spans.extend([Span::raw(format!(
        " seq {}/{} · ⏱ {} · {word} {unit}/{units}",
        replay.seq(),
        replay.last_seq(),
        clock(now_ms)
    ))]);
    if let Some(note) = &replay.note {
        spans.push(Span::styled(
            format!(" · ⚠ {note}"),
            Style::default().fg(theme::CAUTION),
        ));
    }
    if let Some(first) = replay.problems.first() {
        let count = replay.problems.len();
        spans.push(Span::styled(
            format!(
                " · {}: {}",
                crate::words::plural(count as u64, "unreadable line"),
                fit(first, 120)
            ),
            theme::error(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// How far through the recording, `BAR` cells: played █, to come ░, and a
/// cell where a breaker moved shows the worst move in it (opening first).
fn bar(replay: &Replay) -> Vec<Span<'static>> {
    let total = replay.len().max(1);
    let filled = replay.position() * BAR / total;
    let mut marks: [Option<BreakerState>; BAR] = [None; BAR];
    for (position, to) in replay.breaker_moves() {
        let cell = (position.saturating_sub(1) * BAR / total).min(BAR - 1);
        if severity(Some(*to)) > severity(marks[cell]) {
            marks[cell] = Some(*to);
        }
    }
    marks
        .iter()
        .enumerate()
        .map(|(cell, mark)| match mark {
            Some(state) => Span::styled(mark_glyph(*state), theme::breaker(*state)),
            None if cell < filled => Span::styled("█", Style::default().fg(theme::ACCENT)),
            None => Span::styled("░", theme::dim()),
        })
        .collect()
}

fn mark_glyph(state: BreakerState) -> &'static str {
    match state {
        BreakerState::Open => "✕",
        BreakerState::HalfOpen => "◐",
        BreakerState::Closed => "✓",
    }
}
