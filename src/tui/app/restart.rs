//! Restarting the selected run: in place with what it ran on (a live one
//! only once asked twice), or beside it when its flags changed since it
//! started, so the two can be compared; and the goal editor that feeds
//! the next restart.

use super::App;
use crate::tui::effect::Effect;
use crate::tui::runs::Launch;
use crate::tui::view_state::Overlay;

impl App {
    /// `r`: restart the selected run, or ask first when that cancels it.
    pub(super) fn restart(&mut self) -> Vec<Effect> {
        let asked = self.restart_asked.take();
        if let Some(slot) = self.run() {
            let (run, launch) = (slot.state.run, Launch::again(slot));
            let changes_flags = super::compare::changes_flags(&launch, slot);
            // Restarting a live run in place cancels it: asked first.
            if !changes_flags && slot.is_live() && asked != Some(run) {
                self.restart_asked = Some(run);
                self.notice = Some(format!(
                    "run {run} is live: r again cancels it and starts it anew, any other key keeps it"
                ));
                return Vec::new();
            }
            if changes_flags {
                // Another run to compare with, not a retry: the old
                // one stays, pinned, and the new one starts beside it.
                self.runs.pin(self.runs.selected);
                self.notice = Some(format!(
                    "run {run} kept and pinned: c compares it with the new run"
                ));
                return self.start(launch);
            }
            return vec![Effect::Restart {
                old: run,
                run: self.runs.next_run(),
                launch,
            }];
        }
        Vec::new()
    }

    /// `e`: edit the goal the next restart runs with.
    pub(super) fn open_goal_editor(&mut self) {
        let goal = self.run().map(|slot| {
            slot.next_goal
                .clone()
                .or_else(|| slot.state.info.as_ref().map(|i| i.goal.clone()))
                .unwrap_or_default()
        });
        self.overlay = Some(Overlay::goal_editor(&goal.unwrap_or_default()));
    }
}
