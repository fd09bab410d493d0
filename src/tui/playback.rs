//! What a replay's keys do: play and pause at a chosen speed, step a gate
//! forward or back, jump to the start, the end or a round, and advance
//! playback as time passes. The replay decides where it moves; the run it
//! belongs to then shows the state there.

use super::app::App;
use super::effect::Effect;
use super::keymap::Action;
use super::replay::{Replay, Seeker, Sought, Want};
use super::slot::RunSlot;
use super::state::RunState;
use super::view_state::Overlay;

impl Replay {
    /// Apply a replay key; the state to show when the replay moved at
    /// once (a move of a replay read from its file is asked of the loop
    /// and shown when it comes back).
    pub(crate) fn update(&mut self, action: Action) -> Option<RunState> {
        let moved = match action {
            Action::TogglePause if !self.playing && self.at_end() => {
                // Playing a finished replay plays it again.
                let state = self.go(1);
                self.playing = true;
                state
            }
            Action::TogglePause => {
                self.playing = !self.playing;
                None
            }
            Action::Step => self.go(self.next_step()),
            Action::StepBack => self.go(self.previous_step()),
            Action::Start => self.go(1),
            Action::End => self.go(self.len()),
            Action::Restart => {
                let state = self.go(1);
                self.playing = true;
                state
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
            if let Some(state) = replay.go(replay.unit_end(n)) {
                self.show(state);
            }
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
        self.after_move();
        true
    }

    /// The panes follow the state the replay moved to.
    fn after_move(&mut self) {
        let filter = self.ui.log.filter.clone();
        self.ui.after_event(&self.state);
        if filter.is_some() {
            self.ui.log.refilter(filter, &self.state);
        }
    }

    /// A move the loop folded from the replay's file, shown if it is the
    /// one the replay waits on.
    pub(crate) fn arrived(&mut self, position: usize, sought: Sought) -> bool {
        let Some(replay) = self.replay.as_mut() else {
            return false;
        };
        if replay.pending != Some(position) {
            return false;
        }
        let state = replay.arrive(sought);
        self.show(state);
        true
    }
}

impl App {
    /// Apply a replay key to the selected run; what its replay now needs
    /// the loop to read from its file.
    pub fn playback(&mut self, action: Action) -> Vec<Effect> {
        if action == Action::Jump {
            self.overlay = Some(Overlay::Jump(String::new()));
        } else if action == Action::Fork {
            let mut effects = self.open_fork();
            effects.extend(self.replay_wants());
            return effects;
        } else if let Some(slot) = self.runs.selected_mut() {
            slot.playback(action);
        }
        self.replay_wants()
    }

    /// Jump the selected replay to the end of round (or wave) `n`.
    pub(crate) fn jump(&mut self, n: usize) {
        if let Some(slot) = self.runs.selected_mut() {
            slot.jump(n);
        }
    }

    /// Let `elapsed_ms` of wall time pass for playing replays; returns
    /// whether any of them moved. What they need read from their files
    /// is queued for the loop.
    pub(crate) fn tick(&mut self, elapsed_ms: f64) -> bool {
        let mut moved = false;
        for slot in self.runs.iter_mut() {
            moved |= slot.tick(elapsed_ms);
        }
        let wants = self.replay_wants();
        self.queued.extend(wants);
        moved
    }

    /// What the replays need the loop to read from their files, as
    /// effects.
    pub(crate) fn replay_wants(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        for slot in self.runs.iter_mut() {
            let Some(replay) = slot.replay.as_mut() else {
                continue;
            };
            while let Some(want) = replay.wants() {
                effects.push(match want {
                    Want::Seek(seeker, position) => Effect::Seek { seeker, position },
                    Want::ReadAhead(seeker, from, count) => Effect::ReadAhead {
                        seeker,
                        from,
                        count,
                    },
                });
            }
        }
        effects
    }

    /// A move the loop folded from a replay's file.
    pub(crate) fn sought(&mut self, seeker: &Seeker, position: usize, sought: Sought) {
        if let Some(slot) = self
            .runs
            .iter_mut()
            .find(|s| s.replay.as_ref().is_some_and(|r| r.has(seeker)))
        {
            slot.arrived(position, sought);
        }
    }

    /// Events the loop read ahead for a playing replay.
    pub(crate) fn read_ahead(
        &mut self,
        seeker: &Seeker,
        from: usize,
        events: Result<Vec<std::sync::Arc<crate::bus::Event>>, String>,
    ) {
        if let Some(replay) = self
            .runs
            .iter_mut()
            .filter_map(|s| s.replay.as_mut())
            .find(|r| r.has(seeker))
        {
            replay.read_ahead(from, events);
        }
    }

    /// Whether a replay is playing: the screen then moves every frame.
    pub(crate) fn playing(&self) -> bool {
        self.runs
            .iter()
            .any(|s| s.replay.as_ref().is_some_and(|r| r.playing))
    }
}
