//! What depends on the screen's size: the zoomed pane, and the result's
//! scroll, which stops where the result's last row reaches the bottom of
//! its pane (as big as the last frame drew it), so no key scrolls past
//! the end into a blank page.

use super::App;
use crate::tui::keymap::{Action, PaneId};
use crate::tui::panes::result;

impl App {
    /// Why zooming cannot be done now, if it cannot.
    pub(super) fn zoom_unavailable(&self, action: Action) -> Option<&'static str> {
        match action {
            Action::Zoom if self.run().is_none() => Some("no run"),
            Action::Zoom if self.focus == PaneId::Runs && !self.zoomed => {
                Some("the runs bar does not zoom")
            }
            Action::Unzoom if !self.zoomed => Some("no pane is zoomed"),
            _ => None,
        }
    }

    /// The pane that fills the screen, if one does.
    pub(crate) fn zoomed_pane(&self) -> Option<PaneId> {
        (self.zoomed && self.focus != PaneId::Runs).then_some(self.focus)
    }

    /// Scroll the result by `action`, within its rows at the last frame's
    /// size.
    pub(super) fn scroll_result(&mut self, action: Action) {
        let area = self.areas(self.screen).result;
        let Some(slot) = self.run() else { return };
        let last = result::max_scroll(&slot.view(), area);
        let page = area.height.saturating_sub(3).max(1);
        let Some(slot) = self.run_mut() else { return };
        let at = slot.ui.result_scroll.min(last);
        slot.ui.result_scroll = match action {
            Action::Up => at.saturating_sub(1),
            Action::Down => (at + 1).min(last),
            Action::PageUp => at.saturating_sub(page),
            Action::PageDown => at.saturating_add(page).min(last),
            Action::Top => 0,
            Action::Follow => last,
            _ => at,
        };
    }
}
