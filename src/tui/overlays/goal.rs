//! The goal editor: a multi-line editor over the run's goal; Ctrl-S keeps it
//! for the next restart, Esc drops it.

use super::frame_box;
use crate::tui::layout::centered;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui_textarea::TextArea;

pub(crate) fn draw(frame: &mut Frame, area: Rect, editor: &TextArea<'static>) {
    let area = centered(area, 90, 14);
    let inner = frame_box(
        frame,
        area,
        "Goal",
        "Ctrl-S saves for the next restart (r) · Esc cancels",
    );
    frame.render_widget(editor, inner);
}
