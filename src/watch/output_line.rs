//! A watched program's output, line by line: what a launched run's
//! recording holds beside its spans (`program_output` lines) and what the
//! launcher keeps of its program's stdout and stderr.

use serde::{Deserialize, Serialize};

/// The most lines kept of a launched run's output (both streams together).
pub(crate) const KEPT_LINES: usize = 200;

/// Which of the program's streams a line came on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stream {
    Stdout,
    Stderr,
}

/// One line of output: its stream and text, `at_ms` after the launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputLine {
    pub at_ms: u64,
    pub stream: Stream,
    pub text: String,
}
