//! What the teams of one run share: one order of turns (a turn's number
//! is its gate, whichever team took it) and the stop safe mode called
//! for. A graph's team nodes share it through [`NodeTurns`].

use super::turn_order::{Lane, SCENARIO_LANE, TurnOrder};
use crate::stop::StopReason;
use parking_lot::Mutex;
use std::sync::Arc;

/// What every team of one run shares.
#[derive(Default)]
pub(crate) struct RunShared {
    /// Turns over the run, member teams' included, in the order the run
    /// decides: a turn's number is its gate.
    pub(crate) turns: TurnOrder,
    /// The reason of the tool call safe mode stopped the run for (003's
    /// safe mode without partial results), once one has.
    pub(super) safe_mode_stop: Mutex<Option<StopReason>>,
}

/// What a graph run's team nodes share: one order of turns, so that a
/// turn's number (its gate, what a fork stops at) is the run's, whichever
/// node's team took it. The graph itself takes no turns: no lane stands
/// in the ring until a team calls members.
pub(crate) struct NodeTurns(pub(super) Arc<RunShared>);

impl NodeTurns {
    pub(crate) fn new() -> Self {
        let run = Arc::<RunShared>::default();
        run.turns.leave(SCENARIO_LANE);
        NodeTurns(run)
    }

    /// The team node's `lane` is done: out of the ring, where its member
    /// calls' end may have put it.
    pub(crate) fn done(&self, lane: Lane) {
        self.0.turns.leave(lane);
    }

    /// Whether `reason` is the stop safe mode called for after a tool
    /// call failed fast: a stop of the whole run.
    pub(crate) fn is_safe_mode_stop(&self, reason: &StopReason) -> bool {
        self.0.safe_mode_stop.lock().as_ref() == Some(reason)
    }
}
