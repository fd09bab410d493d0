//! The question before quitting while runs are live or watched runs are
//! held: which runs quitting cancels or lets go, and the keys that answer.

use super::frame_box;
use crate::tui::layout::centered;
use crate::tui::runs::Runs;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// `held`: the watched runs a person holds (paused, or waiting for them).
pub(crate) fn draw(frame: &mut Frame, screen: Rect, runs: &Runs, held: &[String]) {
    let live: Vec<String> = runs
        .iter()
        .filter(|slot| slot.has_local_engine() && slot.is_live())
        .map(|slot| format!("{} {}", slot.state.run, slot.scenario.name))
        .collect();
    let shown = live.len().min(6) + held.len().min(6);
    let height = u16::try_from(shown + 8).unwrap_or(12);
    let area = centered(screen, 60, height);
    let inner = frame_box(frame, area, "Quit?", "y quits · any other key stays");
    let width = usize::from(inner.width);
    let mut lines = Vec::new();
    if !live.is_empty() {
        lines.push(Line::raw(fit(
            &format!(
                "{} run{} still running: quitting cancels {} (the recording is closed properly).",
                live.len(),
                if live.len() == 1 { " is" } else { "s are" },
                if live.len() == 1 { "it" } else { "them" }
            ),
            width * 2,
        )));
        lines.extend(
            live.iter()
                .take(6)
                .map(|run| Line::styled(format!("  ▶ {}", fit(run, width)), theme::bold())),
        );
    }
    if !held.is_empty() {
        lines.push(Line::raw(fit(
            "Watched runs you hold: quitting lets them go on unsteered (a call waiting \
             for approval runs unapproved, unless its hook is strict).",
            width * 3,
        )));
        lines.extend(
            held.iter()
                .take(6)
                .map(|run| Line::styled(format!("  ⏸ {}", fit(run, width)), theme::bold())),
        );
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("y", Style::default().fg(theme::ACCENT)),
        Span::raw(" quit   "),
        Span::styled("any other key", Style::default().fg(theme::ACCENT)),
        Span::raw(" stay"),
    ]));
    frame.render_widget(
        Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }),
        inner,
    );
}
