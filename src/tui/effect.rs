//! What the dashboard's decisions ask of the world: launching a run,
//! attaching a run of another engine, sending a run's engine a command,
//! opening a recording, copying to the clipboard, writing a file,
//! replaying a run of a sweep, quitting. The app's update only returns them
//! and the loop has them carried out, so the update is tested without a
//! terminal or an engine.

use super::launch::Launch;
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
    /// Show a live run of another engine, from its first event, and
    /// select it.
    Attach(Box<crate::nats::watch::LiveRun>),
    /// Put this text on the terminal's clipboard (OSC 52).
    Copy(String),
    /// Write `contents` to the file at `path`.
    Write {
        path: PathBuf,
        contents: String,
    },
    /// Run this job of the sweep again with a recording (runs are
    /// deterministic: the same run) and open the recording as a replay.
    ReplaySweepRun(crate::sweep::Job),
    Quit,
}
