//! Overlays drawn over the panes: help, flags, the scenario picker, the goal
//! editor, the JSON details of a selected item, the question before
//! quitting live runs, the path to write to, the confirmation before a
//! scenario runs programs, the question a run asks a person, a
//! replay's fork and the steering of a watched run's hook.

pub(crate) mod decide;
pub(crate) mod details;
pub(crate) mod flags;
pub(crate) mod fork;
pub(crate) mod goal;
pub(crate) mod help;
pub(crate) mod picker;
pub(crate) mod program_fork;
pub(crate) mod quit;
pub(crate) mod steer;
pub(crate) mod stop_program;
pub(crate) mod trust;
pub(crate) mod write;

use super::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear};

/// Clear `area` and frame it; returns the inside.
pub(crate) fn frame_box(frame: &mut Frame, area: Rect, title: &str, hint: &str) -> Rect {
    let block = Block::bordered()
        .border_style(theme::border(true))
        .title(Span::styled(format!(" {title} "), theme::bold()))
        .title_bottom(Line::from(Span::styled(format!(" {hint} "), theme::dim())));
    let inner = block.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    inner
}
