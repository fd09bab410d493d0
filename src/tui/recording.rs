//! A recording opened to replay: read from its file and checked to start
//! with its run's start, ready for the app to show. Reading it is the
//! loop's work (`world::recording_reader`, or the command line's, before
//! the screen opens); showing it is the app's.

use super::replay::Replay;
use super::state::RunState;
use crate::scenario::Scenario;
use std::path::PathBuf;
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
