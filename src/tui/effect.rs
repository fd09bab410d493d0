//! What the dashboard's decisions ask of the world: launching a run,
//! sending a run's engine a command, opening a recording, quitting. The
//! app's update only returns them; the loop carries them out here, so the
//! update is tested without a terminal or an engine.

use super::app::App;
use super::runs::Launch;
use crate::bus::RunId;
use crate::control::Control;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Start a run and select it.
    Launch(Launch),
    /// Start `launch` in place of run `run`, cancelling it.
    Restart {
        run: RunId,
        launch: Launch,
    },
    /// Send run `run`'s engine a command.
    Control {
        run: RunId,
        command: Control,
    },
    /// Replay a recording and select it.
    OpenRecording(PathBuf),
    Quit,
}

/// Carry `effects` out, in order; what fails becomes the footer's notice.
pub fn carry_out(app: &mut App, effects: Vec<Effect>) {
    for effect in effects {
        match effect {
            Effect::Launch(launch) => app.start(launch),
            Effect::Restart { run, launch } => {
                if let Err(e) = app.runs.restart(run, launch) {
                    app.notice = Some(format!("cannot restart: {e}"));
                }
            }
            Effect::Control { run, command } => {
                let flag = match &command {
                    Control::SetFlag { name, on } => Some((name.clone(), *on)),
                    _ => None,
                };
                match app.runs.send(run, command) {
                    // The flag shows as pending until the run applies it.
                    Ok(()) => {
                        if let (Some(flag), Some(slot)) = (flag, app.runs.live_mut(run)) {
                            slot.ui.pending_flags.push(flag);
                        }
                    }
                    Err(e) => app.notice = Some(e),
                }
            }
            Effect::OpenRecording(path) => match app.open_replay(&path) {
                Ok(()) => app.overlay = None,
                Err(e) => app.notice = Some(first_line(&e)),
            },
            Effect::Quit => app.quitting = true,
        }
    }
}

pub(crate) fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}
