//! The round table's events and their vocabulary: a contribution's stance,
//! a round's conflicts and decision (000's contract), the escalation to a
//! person. The bus carries them as `PatternEvent` (`patterns::events`);
//! the result documents, the run summary and every viewer read them. Data
//! only: nothing here imports the bus's upper parts or the runner.

use crate::bus::event_kinds::event_kinds;
use crate::stop::StopReason;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A collaboration stance, as 000's contract allows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stance {
    Go,
    Caution,
    Block,
}

impl Stance {
    /// Every stance, as the contract lists them.
    pub(crate) const ALL: [Stance; 3] = [Stance::Go, Stance::Caution, Stance::Block];

    pub(crate) fn parse(s: &str) -> Option<Stance> {
        Stance::ALL.into_iter().find(|stance| stance.as_str() == s)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Stance::Go => "go",
            Stance::Caution => "caution",
            Stance::Block => "block",
        }
    }
}

/// A round's outcome when the team agreed (000's `decide_round_outcome`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Go,
    GoWithCaution,
    NoGo,
}

impl Decision {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Decision::Go => "go",
            Decision::GoWithCaution => "go_with_caution",
            Decision::NoGo => "no_go",
        }
    }
}

/// A disagreement in a round (000's `detect_conflicts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Conflict {
    NoContributions,
    GoVsCaution,
    BlockingVsNonBlock,
    HighDivergence,
}

impl Conflict {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Conflict::NoContributions => "no_contributions",
            Conflict::GoVsCaution => "go_vs_caution",
            Conflict::BlockingVsNonBlock => "blocking_vs_non_block",
            Conflict::HighDivergence => "high_divergence",
        }
    }
}

/// One seat's stance in the round that escalated, as the dialog shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatStance {
    pub agent: String,
    pub stance: Stance,
    #[serde(default)]
    pub confidence: f64,
}

event_kinds! {
/// The round table's events: a round's speakers, each contribution as the
/// contract judged it, the round's conflicts and decision, the final brief.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RoundEvent, read as RoundNamed = "RoundEvent" {
    RoundStarted {
        round: u32,
        /// Who speaks this round, in order.
        speakers: Vec<String>,
    },
    ContributionRequested {
        round: u32,
        agent: String,
    },
    ContributionAccepted {
        round: u32,
        agent: String,
        stance: Stance,
        confidence: f64,
        summary: String,
        actions: Vec<String>,
    },
    ContributionRejected {
        round: u32,
        agent: String,
        reason: StopReason,
        /// What the model returned, as the gateway saw it.
        raw: Value,
    },
    RoundFinished {
        round: u32,
        conflicts: Vec<Conflict>,
        decision: Option<Decision>,
    },
    /// `budget.escalate_after_blocking_rounds` rounds in a row had a
    /// blocking stance: the run waits at the gate for a person's answer.
    EscalatedToHuman {
        round: u32,
        #[serde(default)]
        blocking_rounds: u32,
        #[serde(default)]
        conflicts: Vec<Conflict>,
        #[serde(default)]
        stances: Vec<SeatStance>,
    },
    /// The team reached a decision and the final brief is being written.
    FinalizeStarted {
        decision: Decision,
    },
}
}
