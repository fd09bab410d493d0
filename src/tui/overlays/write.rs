//! The path prompt of `w`: one line to type the file to write, with what
//! the extension chooses (Markdown for `.md`, JSON otherwise).

use super::frame_box;
use crate::tui::layout::centered;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::view_state::ExportPrompt;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

pub(crate) fn draw(frame: &mut Frame, area: Rect, prompt: &ExportPrompt) {
    let area = centered(area, 90, 5);
    let title = format!("Write the {}", prompt.document.what);
    let inner = frame_box(frame, area, &title, "Enter writes · Esc cancels");
    let width = usize::from(inner.width).saturating_sub(1);
    // The end of a long path, where the typing happens.
    let shown = if prompt.path.width() > width {
        let tail: String = prompt
            .path
            .chars()
            .rev()
            .take(width.saturating_sub(1))
            .collect();
        format!("…{}", tail.chars().rev().collect::<String>())
    } else {
        prompt.path.clone()
    };
    let lines = vec![
        Line::from(vec![
            Span::raw(fit(&shown, width)),
            Span::styled("▏", theme::border(true)),
        ]),
        Line::styled(
            "a path ending in .md writes Markdown, any other JSON",
            theme::dim(),
        ),
    ];
    frame.render_widget(Paragraph::new(lines), inner);
}
