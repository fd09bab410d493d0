//! Where each pane goes on the screen for the selected run: its text panes
//! as tall as their content, or its focused pane zoomed. Drawing and
//! paging both ask here, so a page is always the height drawn.

use super::App;
use crate::tui::layout::{Areas, Wanted};
use crate::tui::panes::{self, resilience};
use ratatui::layout::Rect;

impl App {
    /// The areas of the screen for the app's selected run: its text panes as
    /// tall as their content, or its focused pane zoomed.
    pub fn areas(&self, screen: Rect) -> Areas {
        let run = self.run();
        let result =
            |width: u16| run.map_or(0, |slot| panes::result::wanted_height(&slot.view(), width));
        let wanted = Wanted {
            pattern: run.map_or(10, |slot| slot.unit.wanted_height(&slot.state.pattern)),
            result: &result,
            strip: run.map_or(0, |slot| {
                resilience::wanted_strip_rows(&slot.state.resilience)
            }),
            timeline: run.is_some_and(|slot| slot.replay.is_some()),
            attention: !panes::attention::needing(&self.runs).is_empty()
                || self
                    .watching
                    .as_ref()
                    .is_some_and(|w| !w.warnings().is_empty()),
            zoom: self.zoomed_pane(),
        };
        Areas::compute(screen, &wanted)
    }

    /// The screen above the footer: where an overlay that keeps the key
    /// line in sight (the picker) is drawn and paged.
    pub(crate) fn above_footer(&self, screen: Rect) -> Rect {
        Rect {
            height: screen
                .height
                .saturating_sub(self.areas(screen).footer.height),
            ..screen
        }
    }
}
