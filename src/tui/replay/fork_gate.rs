//! Where a fork from the replay may go live: any gate the run passed,
//! each with the flags as they stood there and the first question the run
//! asked a person after it. The dialog opens at the first gate after what
//! the replay shows, so that the fork serves everything on screen and runs
//! nothing seen again (past the last gate, that gate, said as such).

use super::Replay;
use crate::bus::{FlagState, Question};
use crate::cassette::GateTarget;

/// Where a fork from the replay goes live, and what it serves.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ForkGate {
    pub(crate) at: GateTarget,
    /// The gates before it, whose steps the fork serves.
    pub(crate) served: Vec<GateTarget>,
    /// The replay has shown the step the fork goes live at: the fork runs
    /// it again.
    pub(crate) again: bool,
    /// The flags as they stood at the gate.
    pub(crate) flags: Vec<FlagState>,
    /// The first question the run asked a person after the gate: the
    /// fork's live part will likely meet it again.
    pub(crate) question: Option<Question>,
}

impl Replay {
    /// Every gate a fork can go live at, in the run's order, and the one
    /// to start at: the first whose step the replay shows nothing of yet,
    /// so that everything shown is served; past the last gate, that gate
    /// again (`again`). `None` when the run passed none.
    pub(crate) fn fork_gates(&self) -> Option<(Vec<ForkGate>, usize)> {
        let last = self.gates.len().checked_sub(1)?;
        let chosen = self
            .gates
            .iter()
            .position(|(at, _)| *at >= self.position)
            .unwrap_or(last);
        let gates = (0..self.gates.len())
            .map(|i| self.fork_gate_at(i))
            .collect();
        Some((gates, chosen))
    }

    fn fork_gate_at(&self, index: usize) -> ForkGate {
        let (opens, at) = self.gates[index];
        ForkGate {
            at,
            served: self.gates[..index].iter().map(|(_, gate)| *gate).collect(),
            again: opens < self.position,
            flags: self.fork_facts.flags_before(opens),
            question: self.fork_facts.question_from(opens).cloned(),
        }
    }

    /// Whether the run passed a gate a fork can go live at.
    pub(crate) fn has_gates(&self) -> bool {
        !self.gates.is_empty()
    }
}
