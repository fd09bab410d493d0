//! What the board shows: a run as the steerer lists it, its decisions for
//! a viewer's log, and the steering a finished run leaves for its summary
//! and recording.

use super::protocol::{FlagView, RunView, SteerSummary, Timed, WaitView};
use super::state::{Pace, RunSteer, millis};
use crate::span::TraceId;
use tokio::time::Instant;

impl super::state::Board {
    /// The decisions of run `trace` from the `from`th on, each with its
    /// time after the hook's first call (a viewer's log keeps up by
    /// asking from what it has).
    pub fn decisions(&self, trace: TraceId, from: usize) -> Vec<Timed> {
        let Some(run) = self.runs.get(&trace) else {
            return Vec::new();
        };
        run.decisions
            .iter()
            .skip(from)
            .map(|(at, decision)| Timed {
                at_ms: millis(at.saturating_duration_since(run.first)),
                decision: decision.clone(),
            })
            .collect()
    }
}

impl RunSteer {
    pub(super) fn view(&self, trace: TraceId, now: Instant) -> RunView {
        RunView {
            trace_id: crate::span::trace_hex(trace),
            paused: self.pace != Pace::Running,
            passes: match self.pace {
                Pace::Running => 0,
                Pace::Paused { passes } => passes,
            },
            steered: self.steered,
            stopped: self.stopped.clone(),
            gates: self.gates,
            flags: self
                .flags
                .iter()
                .map(|(name, f)| FlagView {
                    name: name.clone(),
                    on: f.value,
                    default: f.default,
                    description: f.description.clone(),
                })
                .collect(),
            waiting: self
                .waiting
                .iter()
                .filter(|(_, w)| w.answer.is_none())
                .map(|(id, w)| WaitView {
                    id: *id,
                    waited_ms: millis(now.saturating_duration_since(w.since)),
                    ask: w.ask.clone(),
                })
                .collect(),
        }
    }

    pub(super) fn summary(&self) -> SteerSummary {
        SteerSummary {
            gates: self.gates,
            stopped: self.stopped.clone(),
            flags: self.values(),
            decisions: self
                .decisions
                .iter()
                .map(|(at, decision)| Timed {
                    at_ms: millis(at.saturating_duration_since(self.first)),
                    decision: decision.clone(),
                })
                .collect(),
            decisions_dropped: self.decisions_dropped,
        }
    }
}
