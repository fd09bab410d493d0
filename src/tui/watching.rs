//! Other frameworks' runs on the dashboard (`conclave watch`): the watch
//! tells each run it receives as the bus's events, and each becomes a run
//! of the dashboard like a launched or an attached one, with the same
//! panes, keys, tabs, help and footer. What only the watch has is kept
//! here: where it listens, what its receiver counted (shown in the footer
//! and, when something went wrong, in the attention line), which run each
//! trace is shown as, and how the watch's steering lists each hooked run.
//! The app takes what the watch says (`app::watch`) and steers hooked
//! runs (`app::steer`).

use crate::bus::RunId;
use crate::span::TraceId;
use crate::watch::receive::ReceiverStatus;
use crate::watch::steer::RunView;
use std::collections::{HashMap, HashSet};

/// What the dashboard knows of the watch besides its runs.
#[derive(Debug, Default)]
pub(crate) struct Watching {
    /// Where the receiver listens, said while no run came.
    pub(crate) listening: String,
    /// The receiver's counts as last read, each forward target's with them.
    pub(crate) status: ReceiverStatus,
    /// Spans dropped for want of room, and spans that came for a run
    /// already finished, so far.
    pub(crate) dropped: u64,
    pub(crate) late: u64,
    /// The last problem the watch reported (a run not recorded).
    pub(crate) problem: Option<String>,
    /// The dashboard's run each trace is shown as, while it is going.
    pub(crate) shown_as: HashMap<TraceId, RunId>,
    /// How many finished watched runs are kept on the dashboard: the
    /// oldest finished one makes room beyond it.
    pub(crate) keep: usize,
    /// Each hooked run as the watch's steering last listed it; `None`
    /// when the watch steers nothing.
    pub(crate) steer: Option<HashMap<TraceId, RunView>>,
    /// Decisions the person put off (Esc): not offered again until `d`.
    pub(crate) put_off: HashSet<u64>,
    /// Every run is held, and each new one from its first gate (`P`).
    pub(crate) holds_new: bool,
    /// The breakpoints every run pauses at (`b`, `--break`).
    pub(crate) breaks: Vec<String>,
}

impl Watching {
    pub(crate) fn new(listening: String, keep: usize, steered: bool) -> Watching {
        Watching {
            listening,
            keep: keep.max(1),
            steer: steered.then(HashMap::new),
            ..Watching::default()
        }
    }

    /// The warnings the attention line carries: spans dropped, a run not
    /// recorded, forwards that failed (with their targets).
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut said = Vec::new();
        if self.dropped > 0 {
            said.push(format!(
                "⚠ {} spans dropped: every run held waits for its root",
                self.dropped
            ));
        }
        if let Some(problem) = &self.problem {
            said.push(format!("⚠ {problem}"));
        }
        for f in &self.status.forwards {
            if f.failed + f.dropped > 0 {
                let mut words = format!(
                    "⚠ forward to {}: {} failed, {} dropped",
                    f.target, f.failed, f.dropped
                );
                if let Some(why) = &f.last_failure {
                    words.push_str(&format!(" (last: {why})"));
                }
                said.push(words);
            }
        }
        said
    }

    /// The counts in a few words, for the footer.
    pub(crate) fn counts(&self) -> String {
        let c = &self.status.counts;
        let mut words = format!(
            "watch: {} spans in {} requests · refused {} · rejected {}",
            c.spans_accepted,
            c.requests_accepted,
            c.refused_total(),
            c.spans_rejected
        );
        if !self.status.forwards.is_empty() {
            words.push_str(&format!(" · forwarded {}", c.forward_sent));
        }
        if self.late > 0 {
            words.push_str(&format!(" · {} late spans", self.late));
        }
        words
    }

    /// The hooked run `trace` as last listed.
    pub(crate) fn view(&self, trace: TraceId) -> Option<&RunView> {
        self.steer.as_ref()?.get(&trace)
    }
}
