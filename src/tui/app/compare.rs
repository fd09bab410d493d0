//! Two runs side by side in the dashboard: `p` pins the selected run, `c`
//! compares the selected run with the pinned one (A the pinned, B the
//! selected), and `conclave compare A B` opens two recordings that way.
//! The comparison itself is the library's (`crate::compare`), the same as
//! `compare --headless` prints.

use super::App;
use crate::compare::{self, Side};
use crate::tui::keymap::Action;
use crate::tui::launch::Launch;
use crate::tui::slot::RunSlot;
use crate::tui::view_state::Overlay;
use std::path::Path;

impl App {
    /// `p`: pin the selected run, or unpin it.
    pub(super) fn toggle_pin(&mut self) {
        self.runs.toggle_pin();
        self.notice = Some(match (self.runs.pinned(), self.run()) {
            (Some(_), Some(slot)) => format!(
                "run {} pinned: select another run and press c to compare",
                slot.state.run
            ),
            _ => "unpinned".into(),
        });
    }

    /// `c`: the selected run compared with the pinned one.
    pub(super) fn compare_with_pinned(&mut self) {
        let Some(pinned) = self.runs.pinned() else {
            self.notice = Some("no run pinned: p pins the selected run first".into());
            return;
        };
        if pinned == self.runs.selected {
            self.notice = Some("this run is the pinned one: select another to compare".into());
            return;
        }
        let (Some(a), Some(b)) = (self.runs.iter().nth(pinned), self.run()) else {
            return;
        };
        match comparison_of(a, b) {
            Ok(comparison) => {
                self.notice = None;
                self.overlay = Some(Overlay::Compare {
                    comparison: Box::new(comparison),
                    scroll: 0,
                });
            }
            Err(e) => self.notice = Some(e),
        }
    }

    /// Open two recordings as replays, A pinned and B selected, and show
    /// them side by side. The error names the file that cannot be opened.
    pub fn open_comparison(&mut self, a: &Path, b: &Path) -> Result<(), String> {
        self.open_replay(a)?;
        let pinned = self.runs.selected;
        self.open_replay(b)?;
        self.runs.pin(pinned);
        self.compare_with_pinned();
        match self.overlay {
            Some(Overlay::Compare { .. }) => Ok(()),
            _ => Err(self.notice.take().unwrap_or_default()),
        }
    }

    /// Move the comparison's view.
    pub(super) fn scroll_comparison(&mut self, action: Action) {
        // The view's rows: the screen less its frame and the footer.
        let rows = self.screen.height.saturating_sub(3);
        let Some(Overlay::Compare { comparison, scroll }) = &mut self.overlay else {
            return;
        };
        let last = crate::tui::compare::line_count(comparison).saturating_sub(rows);
        *scroll = match action {
            Action::Up => scroll.saturating_sub(1),
            Action::Down => scroll.saturating_add(1),
            Action::PageUp => scroll.saturating_sub(rows.max(1)),
            Action::PageDown => scroll.saturating_add(rows.max(1)),
            Action::Top => 0,
            Action::Follow => last,
            _ => *scroll,
        }
        .min(last);
    }
}

/// Whether `launch` sets a flag otherwise than `slot`'s run started with:
/// restarting with it makes another run to compare, not a retry.
pub(super) fn changes_flags(launch: &Launch, slot: &RunSlot) -> bool {
    let Some(info) = &slot.state.info else {
        return false;
    };
    let set = |name: &str| {
        launch
            .flags
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|f| f.1)
    };
    info.started_flags
        .iter()
        .any(|f| set(&f.name).is_some_and(|on| on != f.on))
}

/// The comparison of run `a` with run `b`, or why there is none.
fn comparison_of(a: &RunSlot, b: &RunSlot) -> Result<compare::Comparison, String> {
    let (events_a, events_b) = (events_of(a)?, events_of(b)?);
    let (label_a, label_b) = (label_of(a), label_of(b));
    let side_a = Side::new(&label_a, &events_a).map_err(|e| e.to_string())?;
    let side_b = Side::new(&label_b, &events_b).map_err(|e| e.to_string())?;
    Ok(compare::compare(
        side_a,
        side_b,
        crate::patterns::compare_rules,
    ))
}

/// Every event of a run: a replay's whole recording, a live run's log,
/// or its recording when the log has let its oldest events go.
fn events_of(slot: &RunSlot) -> Result<Vec<std::sync::Arc<crate::bus::Event>>, String> {
    if let Some(replay) = &slot.replay {
        let events = replay.events();
        return events.slice(0..events.len()).map_err(|e| e.to_string());
    }
    if slot.state.log.dropped > 0
        && let Some(recording) = slot
            .recording
            .as_deref()
            .and_then(|path| crate::record::read_recording(path).ok())
    {
        return Ok(recording.events);
    }
    Ok(slot.state.log.events.iter().cloned().collect())
}

/// A replay by its recording, a run of the dashboard by its number.
fn label_of(slot: &RunSlot) -> String {
    match (&slot.replay, &slot.recording) {
        (Some(_), Some(path)) => crate::sanitize::clean(&path.display().to_string()).into_owned(),
        _ => compare::run_label(slot.state.run, &slot.scenario.name),
    }
}
