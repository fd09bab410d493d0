//! Where a fork from the replay goes live: the first gate after what the
//! replay shows, so that the fork serves everything on screen and runs
//! nothing seen again (past the last gate, that gate, said as such).

use super::Replay;
use crate::cassette::GateTarget;

/// Where a fork from the replay goes live, and what it serves.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ForkGate {
    pub(crate) at: GateTarget,
    /// The gates before it, whose steps the fork serves.
    pub(crate) served: Vec<GateTarget>,
    /// The replay stands past the last gate: the fork runs that step again.
    pub(crate) again: bool,
}

impl Replay {
    /// Where a fork from here goes live: the first gate whose step the
    /// replay shows nothing of yet, so that everything shown is served;
    /// past the last gate, that gate again (`again`).
    pub(crate) fn fork_gate(&self) -> Option<ForkGate> {
        let next = self.gates.iter().position(|(at, _)| *at >= self.position);
        let (index, again) = match next {
            Some(index) => (index, false),
            None => (self.gates.len().checked_sub(1)?, true),
        };
        Some(ForkGate {
            at: self.gates[index].1,
            served: self.gates[..index].iter().map(|(_, gate)| *gate).collect(),
            again,
        })
    }
}
