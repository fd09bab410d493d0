//! How a run ended, as the reducer keeps it from the run's finish: the
//! status and stop reason, the typed summary the panes show and the result
//! document `Enter` opens.

use crate::bus::{RunStatus, RunSummary};
use crate::stop::StopReason;

#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub(crate) status: RunStatus,
    pub(crate) stop_reason: StopReason,
    pub(crate) phase: Option<String>,
    /// The result document, shown as it is on `Enter`.
    pub(crate) result: std::sync::Arc<crate::bus::ResultDoc>,
    /// The result in types: what the panes show.
    pub summary: RunSummary,
    /// What the failed model call said, when the run stopped on one.
    pub(crate) error: Option<String>,
}

impl Outcome {
    /// Whether the run's result lacks parts: safe mode skipped calls, or
    /// (`lacking`) work the result depends on failed in a run that finished.
    pub(crate) fn is_partial(&self, lacking: bool) -> bool {
        self.status == RunStatus::Ok && (self.summary.falls_short() || lacking)
            || self.summary.partial
    }
}
