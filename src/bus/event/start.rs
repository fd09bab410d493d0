//! A run's first event: what it takes to draw and replay the run without
//! its scenario file.

use super::{ClockMode, FlagState, RunModel};
use crate::bus::cassette::ForkedFrom;
use crate::scenario::{PatternKind, Scenario};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The first event of every run: enough to draw the run without the
/// scenario file, so a recording replays on its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunStarted {
    pub pattern: PatternKind,
    pub seed: u64,
    pub goal: String,
    pub clock: ClockMode,
    /// Every flag with its state at launch, in declaration order.
    pub flags: Vec<FlagState>,
    /// The scenario file the run was launched from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Wall-clock start, milliseconds since the Unix epoch: the one value in
    /// a recording that differs between two otherwise identical runs.
    pub started_at_ms: u64,
    /// The model that answers the run's model calls, as the launch
    /// resolved it; absent in recordings made before it was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<RunModel>,
    /// A fork's parent: its recording, run and the gate the fork went
    /// live at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkedFrom>,
    pub scenario: Arc<Scenario>,
}

/// `RunStarted.source` of a run watched by `conclave watch`: this, then
/// its trace id. A watched run is another framework's: it has neither
/// Conclave's pattern nor a seed, whatever its start says to seat it.
pub(crate) const WATCH_SOURCE: &str = "watch:";

impl RunStarted {
    /// Whether the run is one `conclave watch` watched.
    pub(crate) fn is_watched(&self) -> bool {
        self.source
            .as_deref()
            .is_some_and(|s| s.starts_with(WATCH_SOURCE))
    }
}
