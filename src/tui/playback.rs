//! What a replay's keys do: play and pause at a chosen speed, step a gate
//! forward or back, jump to the start, the end or a round, and advance
//! playback as time passes. The replay decides where it moves; the run it
//! belongs to then shows the state there.

use super::app::App;
use super::keymap::Action;
use super::replay::Replay;
use super::slot::RunSlot;
use super::state::RunState;
use super::view_state::Overlay;

impl Replay {
    /// Apply a replay key; the state to show when the replay moved.
    pub(crate) fn update(&mut self, action: Action) -> Option<RunState> {
        let moved = match action {
            Action::TogglePause if !self.playing && self.at_end() => {
                // Playing a finished replay plays it again.
                let state = self.seek(1);
                self.playing = true;
                Some(state)
            }
            Action::TogglePause => {
                self.playing = !self.playing;
                None
            }
            Action::Step => Some(self.step_forward()),
            Action::StepBack => Some(self.step_back()),
            Action::Start => Some(self.seek(1)),
            Action::End => Some(self.seek(self.len())),
            Action::Restart => {
                let state = self.seek(1);
                self.playing = true;
                Some(state)
            }
            Action::Faster => {
                self.speed = self.speed.faster();
                None
            }
            Action::Slower => {
                self.speed = self.speed.slower();
                None
            }
            _ => None,
        };
        if matches!(
            action,
            Action::Step | Action::StepBack | Action::Start | Action::End
        ) {
            self.playing = false;
        }
        moved
    }
}

impl RunSlot {
    /// Apply a replay key to this run, if it is a replay.
    pub(crate) fn playback(&mut self, action: Action) {
        if let Some(state) = self.replay.as_mut().and_then(|r| r.update(action)) {
            self.show(state);
        }
    }

    /// Jump a replay to the end of its gate unit `n` (round `n`, wave `n`).
    pub(crate) fn jump(&mut self, n: usize) {
        if let Some(replay) = self.replay.as_mut() {
            replay.playing = false;
            let state = replay.jump_to_unit(n);
            self.show(state);
        }
    }

    /// Let `elapsed_ms` of wall time pass for a playing replay; returns
    /// whether it moved.
    pub(crate) fn tick(&mut self, elapsed_ms: f64) -> bool {
        let Some(replay) = self.replay.as_mut() else {
            return false;
        };
        if !replay.tick(elapsed_ms, &mut self.state) {
            return false;
        }
        let filter = self.ui.log.filter.clone();
        self.ui.after_event(&self.state);
        if filter.is_some() {
            self.ui.log.set_filter(filter, &self.state);
        }
        true
    }
}

impl App {
    /// Apply a replay key to the selected run.
    pub fn playback(&mut self, action: Action) {
        if action == Action::Jump {
            self.overlay = Some(Overlay::Jump(String::new()));
        } else if action == Action::Fork {
            self.open_fork();
        } else if let Some(slot) = self.runs.selected_mut() {
            slot.playback(action);
        }
    }

    /// Jump the selected replay to the end of round (or wave) `n`.
    pub(crate) fn jump(&mut self, n: usize) {
        if let Some(slot) = self.runs.selected_mut() {
            slot.jump(n);
        }
    }

    /// Let `elapsed_ms` of wall time pass for playing replays; returns
    /// whether any of them moved.
    pub(crate) fn tick(&mut self, elapsed_ms: f64) -> bool {
        let mut moved = false;
        for slot in self.runs.iter_mut() {
            moved |= slot.tick(elapsed_ms);
        }
        moved
    }

    /// Whether a replay is playing: the screen then moves every frame.
    pub(crate) fn playing(&self) -> bool {
        self.runs
            .iter()
            .any(|s| s.replay.as_ref().is_some_and(|r| r.playing))
    }
}
