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
    /// What the panes show of the result document beyond its summary, read
    /// once: a frame never reads the document, which may be 50 MB.
    pub(crate) shown: Shown,
}

/// The result document's `human_notes` and whether a person decided.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Shown {
    /// A person's notes to the round table.
    pub(crate) human_notes: Vec<String>,
    /// The table's decision was a person's (`decided_by: "human"`).
    pub(crate) decided_by_human: bool,
}

impl Shown {
    pub(crate) fn of(result: &crate::bus::ResultDoc) -> Shown {
        // Values, not types: a member of another shape shows nothing.
        #[derive(serde::Deserialize)]
        struct Members {
            human_notes: Option<serde_json::Value>,
            decided_by: Option<serde_json::Value>,
        }
        let Some(members) = result.members::<Members>() else {
            return Shown::default();
        };
        let human_notes = members
            .human_notes
            .as_ref()
            .and_then(|n| n.as_array())
            .into_iter()
            .flatten()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect();
        Shown {
            human_notes,
            decided_by_human: members.decided_by.is_some_and(|d| d == "human"),
        }
    }
}

impl Outcome {
    /// Whether the run's result lacks parts: safe mode skipped calls, or
    /// (`lacking`) work the result depends on failed in a run that finished.
    pub(crate) fn is_partial(&self, lacking: bool) -> bool {
        self.status == RunStatus::Ok && (self.summary.falls_short() || lacking)
            || self.summary.partial
    }
}
