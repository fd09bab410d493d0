//! What can go wrong reading a recording: a problem in one line, or the
//! file as a whole (unreadable, empty, not a file, not a recording, two
//! runs in one file).

use std::io;

/// A problem in one line of a recording.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct RecordingProblem {
    pub(crate) path: String,
    pub line: usize,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("{path}: cannot read the recording: {source}")]
    Io { path: String, source: io::Error },
    #[error("{path}: the recording is empty")]
    Empty { path: String },
    /// A FIFO, a device or a folder: opening a FIFO with no writer would
    /// wait for ever, reading a device would never end.
    #[error("{path}: expected a recording file, found {kind}")]
    NotAFile { path: String, kind: &'static str },
    #[error("{problem} (this is not a Conclave recording: one JSON event per line)")]
    NotARecording { problem: RecordingProblem },
    /// A second run's start: the file holds two runs' events.
    #[error("{problem}")]
    TwoRuns { problem: RecordingProblem },
}
