//! Two runs side by side in the dashboard: `p` pins the selected run, `c`
//! compares the selected run with the pinned one (A the pinned, B the
//! selected), and `conclave compare A B` opens two recordings that way.
//! The comparison itself is the library's (`crate::compare`), the same as
//! `compare --headless` prints; the loop reads the runs' recordings and
//! compares them (an effect), and the overlay opens when it is done.

use super::App;
use super::done::first_line;
use crate::compare::{self, Comparison};
use crate::tui::effect::{CompareSide, Effect, SideEvents};
use crate::tui::keymap::Action;
use crate::tui::launch::Launch;
use crate::tui::slot::RunSlot;
use crate::tui::view_state::Overlay;

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

    /// `c`: the selected run compared with the pinned one, read and
    /// compared by the loop.
    pub(crate) fn compare_with_pinned(&mut self) -> Vec<Effect> {
        let Some(pinned) = self.runs.pinned() else {
            self.notice = Some("no run pinned: p pins the selected run first".into());
            return Vec::new();
        };
        if pinned == self.runs.selected {
            self.notice = Some("this run is the pinned one: select another to compare".into());
            return Vec::new();
        }
        let (Some(a), Some(b)) = (self.runs.iter().nth(pinned), self.run()) else {
            return Vec::new();
        };
        let (a, b) = (side_of(a), side_of(b));
        self.compare(a, b)
    }

    /// Ask the loop to compare `a` with `b`; the screen waits on it.
    pub(super) fn compare(&mut self, a: CompareSide, b: CompareSide) -> Vec<Effect> {
        let what = format!("{} and {} to compare", a.label, b.label);
        let job = self.begin_loading(what);
        vec![Effect::Compare { job, a, b }]
    }

    /// The loop compared the runs of `job`: shown, unless the user stopped
    /// waiting.
    pub(super) fn compared(&mut self, job: u64, comparison: Result<Box<Comparison>, String>) {
        if !self.awaited(job, true) {
            return;
        }
        match comparison {
            Ok(comparison) => {
                self.notice = None;
                self.overlay = Some(Overlay::Compare {
                    comparison,
                    scroll: 0,
                });
            }
            Err(why) => self.notice = Some(first_line(&why)),
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

/// A run as a side of a comparison: a replay's whole recording, a live
/// run's log, or its recording when the log has let its oldest events go.
pub(super) fn side_of(slot: &RunSlot) -> CompareSide {
    let events = if let Some(replay) = &slot.replay {
        SideEvents::Replay(replay.seeker().clone())
    } else if slot.state.log.dropped > 0
        && let Some(path) = &slot.recording
    {
        SideEvents::File(path.clone())
    } else {
        SideEvents::Held(slot.state.log.events.iter().cloned().collect())
    };
    CompareSide {
        label: label_of(slot),
        events,
    }
}

/// A replay by its recording, a run of the dashboard by its number.
fn label_of(slot: &RunSlot) -> String {
    match (&slot.replay, &slot.recording) {
        (Some(_), Some(path)) => crate::sanitize::clean(&path.display().to_string()).into_owned(),
        _ => compare::run_label(slot.state.run, &slot.scenario.name),
    }
}
