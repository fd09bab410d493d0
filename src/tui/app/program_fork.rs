//! A launched run's replay forked at a model call: `x` asks the world
//! what the recording offers, the dialog lists its calls and the program
//! it would run, and Enter (the person's allowance) launches the fork.

use super::App;
use super::done::first_line;
use crate::launch::fork_offer::ForkOffer;
use crate::tui::effect::Effect;
use crate::tui::key_words::OverlayKind;
use crate::tui::keymap::{self, Action, Scope};
use crate::tui::overlays::program_fork::ProgramForkPrompt;
use crate::tui::slot::RunSlot;
use crate::tui::view_state::Overlay;
use crossterm::event::{KeyCode, KeyEvent};

/// Whether `x` on `slot` asks its recording for a launched run's fork:
/// a watched run's replay read from a file.
pub(super) fn may_offer(slot: &RunSlot) -> bool {
    slot.is_watched() && slot.replay.is_some() && slot.recording.is_some()
}

impl App {
    /// What the recording offers: the dialog at the first call after
    /// `at_ms`, or the footer says why it does not fork (without the
    /// name of the file on screen).
    pub(super) fn program_fork_offered(&mut self, offer: Result<ForkOffer, String>, at_ms: u64) {
        match offer {
            Ok(offer) => {
                let prompt = ProgramForkPrompt::new(offer, at_ms);
                self.overlay = Some(Overlay::ProgramFork(Box::new(prompt)));
            }
            Err(why) => {
                // The replay on screen is the file: its name is left out,
                // so that the reason fits the footer.
                let why = first_line(&why);
                let file = self
                    .run()
                    .and_then(|slot| slot.recording.as_ref())
                    .map(|path| format!("{}: ", path.display()));
                let why = file
                    .and_then(|file| why.strip_prefix(&file).map(str::to_string))
                    .unwrap_or(why);
                self.notice = Some(why);
            }
        }
    }

    /// A key of the dialog: ←/→ as ↑/↓ pick the call.
    pub(super) fn program_fork_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let action = match key.code {
            KeyCode::Left => Some(Action::Up),
            KeyCode::Right => Some(Action::Down),
            _ => keymap::lookup(Scope::Overlay(OverlayKind::Fork), &key),
        };
        action.map_or_else(Vec::new, |action| self.update(action))
    }

    /// An action in the dialog.
    pub(super) fn update_program_fork(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::ProgramFork(prompt)) = &mut self.overlay else {
            return Vec::new();
        };
        match action {
            Action::Up | Action::Down => prompt.step(action == Action::Down),
            Action::Confirm => {
                let at = prompt.at();
                let recording = prompt.offer.recording.clone();
                self.overlay = None;
                self.notice = Some(format!("forking at model call {at}…"));
                return vec![Effect::ForkProgram {
                    run: self.runs.next_run(),
                    recording,
                    at,
                }];
            }
            Action::Close => {
                self.overlay = None;
                self.notice = Some("not forked".into());
            }
            _ => {}
        }
        Vec::new()
    }
}
