//! Carrying out what the update decided, for the loop: launches and
//! restarts go to the runs, commands to a run's engine, recordings are
//! opened, copies and files written; what fails becomes the footer's
//! notice.

use super::App;
use crate::control::Control;
use crate::tui::effect::Effect;

impl App {
    /// Carry `effects` out, in order.
    pub fn carry_out(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Launch(launch) => self.start(launch),
                Effect::Restart { run, launch } => {
                    if let Err(e) = self.runs.restart(run, launch) {
                        self.notice = Some(format!("cannot restart: {e}"));
                    }
                }
                Effect::Control { run, command } => {
                    let flag = match &command {
                        Control::SetFlag { name, on } => Some((name.clone(), *on)),
                        _ => None,
                    };
                    match self.runs.send(run, command) {
                        // The flag shows as pending until the run applies it.
                        Ok(()) => {
                            if let (Some(flag), Some(slot)) = (flag, self.runs.live_mut(run)) {
                                slot.ui.pending_flags.push(flag);
                            }
                        }
                        Err(e) => self.notice = Some(e),
                    }
                }
                Effect::Attach(live) => match self.runs.attach(&live) {
                    Ok(()) => self.focus = crate::tui::keymap::PaneId::Pattern,
                    Err(e) => self.notice = Some(e),
                },
                Effect::OpenRecording(path) => match self.open_replay(&path) {
                    Ok(()) => self.overlay = None,
                    Err(e) => self.notice = Some(first_line(&e)),
                },
                Effect::Copy(text) => self.carry_copy(&text),
                Effect::Write { path, contents } => self.carry_write(&path, &contents),
                Effect::ReplaySweepRun(job) => self.replay_sweep_run(&job),
                Effect::Quit => self.quitting = true,
            }
        }
    }
}

/// The first line of an error, for the footer.
pub(super) fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}
