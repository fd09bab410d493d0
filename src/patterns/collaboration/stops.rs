//! The round table's own stop reasons, named as 000 names them, and their
//! sentences: a contribution that broke the contract
//! (`invalid_contribution:stance`) and no consensus within the round limit
//! (`max_rounds_reached`). The floors carry them as opaque strings
//! (`StopReason::Pattern`); the runner reads them back with
//! `StopReason::pattern::<RoundStop>()`.

use crate::stop::{PatternReason, StopFacts, StopKind, StopReason};
use crate::words::plural;
use std::fmt;
use std::str::FromStr;

/// Why a round table stops, beyond the reasons every pattern shares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RoundStop {
    /// A contribution failed the contribution contract (000's gateway).
    InvalidContribution(ContributionError),
    /// The rounds ran out without a consensus.
    MaxRoundsReached,
}

impl fmt::Display for RoundStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoundStop::InvalidContribution(e) => write!(f, "invalid_contribution:{e}"),
            RoundStop::MaxRoundsReached => f.write_str("max_rounds_reached"),
        }
    }
}

impl PatternReason for RoundStop {
    fn kind(&self) -> StopKind {
        match self {
            RoundStop::InvalidContribution(_) => StopKind::Contract,
            RoundStop::MaxRoundsReached => StopKind::Plain,
        }
    }

    fn read(wire: &str) -> Option<Self> {
        if wire == "max_rounds_reached" {
            return Some(RoundStop::MaxRoundsReached);
        }
        let error = wire.strip_prefix("invalid_contribution:")?;
        error.parse().ok().map(RoundStop::InvalidContribution)
    }

    fn explain(&self, facts: &StopFacts) -> String {
        match self {
            RoundStop::InvalidContribution(e) => {
                format!("a contribution broke the contribution contract ({e})")
            }
            RoundStop::MaxRoundsReached => match facts.rounds {
                Some(rounds) => format!("no consensus after {}", plural(rounds.into(), "round")),
                None => "no consensus within the round limit".into(),
            },
        }
    }
}

impl From<RoundStop> for StopReason {
    fn from(reason: RoundStop) -> Self {
        StopReason::of_pattern(&reason)
    }
}

/// The round table's words for a stop: its own reasons, and the
/// escalation it raises (a blocking stance held the table) in its terms.
pub(crate) fn explain(reason: &StopReason, facts: &StopFacts) -> Option<String> {
    if *reason == StopReason::EscalatedToHuman {
        return Some(escalated(facts));
    }
    reason.pattern::<RoundStop>().map(|own| own.explain(facts))
}

fn escalated(facts: &StopFacts) -> String {
    match facts.rounds {
        Some(rounds) => format!(
            "a blocking stance held the table for rounds in a row; the run asks a person after {} (answer with --decide)",
            plural(rounds.into(), "round")
        ),
        None => {
            "a blocking stance held the table; the run asks a person (answer with --decide)".into()
        }
    }
}

/// The contribution contract's rejections, in the order 000's gateway checks them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ContributionError {
    NotObject,
    MissingKeys,
    Agent,
    AgentNotAllowed { agent: String },
    Stance,
    Summary,
    ConfidenceType,
    ConfidenceRange,
    Actions,
    ActionItem,
    AgentMismatch { expected: String },
}

impl fmt::Display for ContributionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContributionError::NotObject => f.write_str("not_object"),
            ContributionError::MissingKeys => f.write_str("missing_keys"),
            ContributionError::Agent => f.write_str("agent"),
            ContributionError::AgentNotAllowed { agent } => write!(f, "agent_not_allowed:{agent}"),
            ContributionError::Stance => f.write_str("stance"),
            ContributionError::Summary => f.write_str("summary"),
            ContributionError::ConfidenceType => f.write_str("confidence_type"),
            ContributionError::ConfidenceRange => f.write_str("confidence_range"),
            ContributionError::Actions => f.write_str("actions"),
            ContributionError::ActionItem => f.write_str("action_item"),
            ContributionError::AgentMismatch { expected } => write!(f, "agent_mismatch:{expected}"),
        }
    }
}

impl FromStr for ContributionError {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        Ok(match s {
            "not_object" => ContributionError::NotObject,
            "missing_keys" => ContributionError::MissingKeys,
            "agent" => ContributionError::Agent,
            "stance" => ContributionError::Stance,
            "summary" => ContributionError::Summary,
            "confidence_type" => ContributionError::ConfidenceType,
            "confidence_range" => ContributionError::ConfidenceRange,
            "actions" => ContributionError::Actions,
            "action_item" => ContributionError::ActionItem,
            other => {
                if let Some(agent) = other.strip_prefix("agent_not_allowed:") {
                    ContributionError::AgentNotAllowed {
                        agent: agent.to_string(),
                    }
                } else if let Some(expected) = other.strip_prefix("agent_mismatch:") {
                    ContributionError::AgentMismatch {
                        expected: expected.to_string(),
                    }
                } else {
                    return Err(());
                }
            }
        })
    }
}

/// How a run ends early: the reason, and what the result adds to it.
pub(super) struct Stop {
    pub(super) reason: StopReason,
    pub(super) phase: Option<String>,
    pub(super) raw_contribution: Option<serde_json::Value>,
}

impl Stop {
    pub(super) fn new(reason: StopReason) -> Self {
        Stop {
            reason,
            phase: None,
            raw_contribution: None,
        }
    }

    pub(super) fn in_phase(mut self, phase: String) -> Self {
        self.phase = Some(phase);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::stops_tests::check_reasons;

    #[test]
    fn every_reason_reads_back_and_has_its_own_sentence() {
        use ContributionError::*;
        let errors = vec![
            NotObject,
            MissingKeys,
            Agent,
            AgentNotAllowed {
                agent: "x:y".into(),
            },
            Stance,
            Summary,
            ConfidenceType,
            ConfidenceRange,
            Actions,
            ActionItem,
            AgentMismatch {
                expected: "risk_analyst".into(),
            },
        ];
        let mut reasons: Vec<RoundStop> = errors
            .into_iter()
            .map(RoundStop::InvalidContribution)
            .collect();
        reasons.push(RoundStop::MaxRoundsReached);
        check_reasons(reasons, explain);
    }

    #[test]
    fn sentences_quote_the_rounds() {
        let facts = StopFacts {
            rounds: Some(3),
            ..StopFacts::default()
        };
        let reason = StopReason::from(RoundStop::MaxRoundsReached);
        assert_eq!(
            explain(&reason, &facts).unwrap(),
            "no consensus after 3 rounds"
        );
        let one = StopFacts {
            rounds: Some(1),
            ..facts
        };
        assert_eq!(
            explain(&reason, &one).unwrap(),
            "no consensus after 1 round"
        );
        assert_eq!(
            explain(&StopReason::EscalatedToHuman, &StopFacts::default()).unwrap(),
            "a blocking stance held the table; the run asks a person (answer with --decide)"
        );
        assert_eq!(explain(&StopReason::MaxMessages, &facts), None);
    }
}
