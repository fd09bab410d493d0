//! The run list: one tab per run with its state, the selected one
//! highlighted; `[`/`]` or the arrows (when focused) switch runs.

use crate::bus::RunStatus;
use crate::tui::keymap::PaneId;
use crate::tui::runs::Runs;
use crate::tui::state::Activity;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn draw(frame: &mut Frame, area: Rect, runs: &Runs, focused: bool) {
    let mut spans = vec![Span::styled(
        format!("[{}] runs ", PaneId::Runs.number()),
        if focused {
            theme::border(true)
        } else {
            theme::dim()
        },
    )];
    for (i, slot) in runs.iter().enumerate() {
        let (glyph, style) = match (&slot.state.activity, &slot.state.outcome) {
            (Activity::Finished, Some(o)) if o.status == RunStatus::Ok => {
                ("✓", Style::default().fg(theme::GO))
            }
            (Activity::Finished, _) => ("✗", theme::error()),
            (Activity::Paused { .. }, _) => ("⏸", Style::default().fg(theme::CAUTION)),
            _ => ("▶", Style::default().fg(theme::ACCENT)),
        };
        // ◆ marks the pinned run, the one `c` compares the selected run with.
        let pin = if runs.pinned() == Some(i) { "◆" } else { "" };
        let label = format!(
            " {pin}{} {glyph} {} ",
            slot.state.run,
            fit(&slot.scenario.name, 28)
        );
        let style = if i == runs.selected {
            style.patch(theme::selected())
        } else {
            style
        };
        spans.push(Span::styled(label, style));
        spans.push(Span::styled("│", theme::dim()));
    }
    if runs.is_empty() {
        spans.push(Span::styled(" none yet: n opens the picker", theme::dim()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
