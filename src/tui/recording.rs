//! A recording opened to replay: read from its file and checked to start
//! with its run's start, ready for the app to show. Reading it is the
//! loop's work (or the command line's, before the screen opens); showing
//! it is the app's.

use super::replay::Replay;
use super::state::RunState;
use crate::bus::EventKind;
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A recording read, at its run's first event.
#[derive(Debug)]
pub struct Opened {
    pub(crate) path: PathBuf,
    pub(crate) replay: Replay,
    pub(crate) state: RunState,
    /// The scenario the run started with.
    pub(crate) scenario: Arc<Scenario>,
}

/// Open the recording at `path`; the error says why the file cannot be
/// replayed.
pub fn open(path: &Path) -> Result<Opened, String> {
    let opened = Replay::open_file(path).map_err(|e| e.to_string())?;
    let Some((replay, state)) = opened else {
        return Err(format!("{}: no events", path.display()));
    };
    let first = replay.events().first();
    let Some(EventKind::RunStarted(started)) = first.map(|e| &e.kind) else {
        return Err(format!(
            "{}: the recording does not start with the run's start (seq {})",
            path.display(),
            first.map_or(0, |e| e.seq)
        ));
    };
    let scenario = Arc::clone(&started.scenario);
    Ok(Opened {
        path: path.to_path_buf(),
        replay,
        state,
        scenario,
    })
}
