//! The panes of a run's screen. Each draws part of the app's state into its
//! area and changes nothing.

pub mod chain;
pub mod event_log;
pub mod footer;
pub mod header;
pub mod members;
pub mod research;
pub mod resilience;
pub mod result;
pub mod round_table;
pub mod run_list;
pub mod timeline;
pub mod workers;

use super::keymap::PaneId;
use super::theme;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

/// A pane's frame: bordered, titled with its number, bright when focused.
pub fn block<'a>(pane: PaneId, title: &str, focused: bool) -> Block<'a> {
    Block::bordered()
        .border_style(theme::border(focused))
        .title(Line::from(vec![
            Span::styled(format!("[{}] ", pane.number()), theme::dim()),
            Span::styled(title.to_string(), theme::bold()),
        ]))
}
