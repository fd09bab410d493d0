//! What a replay's keys do: play and pause at a chosen speed, step a gate
//! forward or back, jump to the start, the end or a round, and advance
//! playback as time passes. The replay's state changes only here and in
//! the reducer it drives.

use super::app::App;
use super::keymap::Action;
use super::view_state::Overlay;

impl App {
    /// Apply a replay key to the selected run.
    pub fn playback(&mut self, action: Action) {
        if action == Action::Jump {
            self.overlay = Some(Overlay::Jump(String::new()));
            return;
        }
        let Some(slot) = self.runs.get_mut(self.selected) else {
            return;
        };
        let Some(replay) = slot.replay.as_mut() else {
            return;
        };
        let moved = match action {
            Action::TogglePause if !replay.playing && replay.at_end() => {
                // Playing a finished replay plays it again.
                let state = replay.seek(1);
                replay.playing = true;
                Some(state)
            }
            Action::TogglePause => {
                replay.playing = !replay.playing;
                None
            }
            Action::Step => Some(replay.step_forward()),
            Action::StepBack => Some(replay.step_back()),
            Action::Start => Some(replay.seek(1)),
            Action::End => Some(replay.seek(replay.len())),
            Action::Restart => {
                let state = replay.seek(1);
                replay.playing = true;
                Some(state)
            }
            Action::Faster => {
                replay.speed = replay.speed.faster();
                None
            }
            Action::Slower => {
                replay.speed = replay.speed.slower();
                None
            }
            _ => None,
        };
        if matches!(
            action,
            Action::Step | Action::StepBack | Action::Start | Action::End
        ) {
            replay.playing = false;
        }
        if let Some(state) = moved {
            slot.state = state;
            let filter = slot.ui.log.filter.clone();
            slot.ui.after_event(&slot.state);
            slot.ui.log.set_filter(filter, &slot.state);
        }
    }

    /// Jump the selected replay to the end of round (or wave) `n`.
    pub fn jump(&mut self, n: usize) {
        let Some(slot) = self.runs.get_mut(self.selected) else {
            return;
        };
        if let Some(replay) = slot.replay.as_mut() {
            replay.playing = false;
            slot.state = replay.jump_to_unit(n);
            let filter = slot.ui.log.filter.clone();
            slot.ui.log.set_filter(filter, &slot.state);
        }
    }

    /// Let `elapsed_ms` of wall time pass for playing replays; returns
    /// whether any of them moved.
    pub fn tick(&mut self, elapsed_ms: f64) -> bool {
        let mut moved = false;
        for slot in &mut self.runs {
            if let Some(replay) = slot.replay.as_mut()
                && replay.tick(elapsed_ms, &mut slot.state)
            {
                moved = true;
                let filter = slot.ui.log.filter.clone();
                if filter.is_some() {
                    slot.ui.log.set_filter(filter, &slot.state);
                }
                slot.ui.after_event(&slot.state);
            }
        }
        moved
    }

    /// Whether a replay is playing: the screen then moves every frame.
    pub fn playing(&self) -> bool {
        self.runs
            .iter()
            .any(|s| s.replay.as_ref().is_some_and(|r| r.playing))
    }
}
