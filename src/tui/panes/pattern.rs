//! The pattern pane: whatever the run's pattern draws there, through its
//! unit, from the run's state and the pane's selection.

use crate::tui::patterns::unit::{PatternUnit, Seen};
use crate::tui::state::RunState;
use crate::tui::view_state::RunUi;
use ratatui::Frame;
use ratatui::layout::Rect;

/// `now_ms` is the run clock now.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    unit: &dyn PatternUnit,
    state: &RunState,
    ui: &RunUi,
    now_ms: u64,
    focused: bool,
) {
    let seen = Seen {
        now_ms,
        live: state.is_live(),
        outcome: state.outcome.as_ref(),
        focused,
        calling: &state.calling,
        spent: &state.spend_by_agent,
    };
    unit.draw(frame, area, &state.pattern, &ui.pattern, seen);
}
