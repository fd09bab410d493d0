//! Details: the selected item as pretty JSON (a contribution, an event or
//! the result document), cleaned for the terminal.

use super::frame_box;
use crate::tui::layout::centered;
use crate::tui::text::fit;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

pub(crate) fn draw(frame: &mut Frame, area: Rect, text: &str, scroll: u16) {
    let area = centered(area, 100, 40);
    let inner = frame_box(frame, area, "Details", "j/k scroll · Esc closes");
    let lines: Vec<Line> = text.lines().map(|l| Line::raw(fit(l, 20_000))).collect();
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        inner,
    );
}
