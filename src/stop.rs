//! Why a run ended. One enum for every pattern, written on the wire as the
//! references write their `stop_reason` strings (`agent_denied:legal_analyst`),
//! so that results compare equal to the references' and recordings read back.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    Success,
    /// The user cancelled the run (Conclave's own; the references have no
    /// control channel).
    Cancelled,
    MaxSeconds,
    LlmTimeout,
    LlmEmpty,
    MaxMessages,
    MaxRoundsReached,
    /// A role in the speaking order is outside the execution allowlist.
    AgentDenied {
        role: String,
    },
    InvalidContribution(ContributionError),
    /// A reason this build does not know, read from another version's recording.
    Other(String),
}

/// The contribution contract's rejections, in the order 000's gateway checks them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ContributionError {
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

impl StopReason {
    pub fn is_success(&self) -> bool {
        matches!(self, StopReason::Success)
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Success => f.write_str("success"),
            StopReason::Cancelled => f.write_str("cancelled"),
            StopReason::MaxSeconds => f.write_str("max_seconds"),
            StopReason::LlmTimeout => f.write_str("llm_timeout"),
            StopReason::LlmEmpty => f.write_str("llm_empty"),
            StopReason::MaxMessages => f.write_str("max_messages"),
            StopReason::MaxRoundsReached => f.write_str("max_rounds_reached"),
            StopReason::AgentDenied { role } => write!(f, "agent_denied:{role}"),
            StopReason::InvalidContribution(e) => write!(f, "invalid_contribution:{e}"),
            StopReason::Other(s) => f.write_str(s),
        }
    }
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

impl FromStr for StopReason {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "success" => StopReason::Success,
            "cancelled" => StopReason::Cancelled,
            "max_seconds" => StopReason::MaxSeconds,
            "llm_timeout" => StopReason::LlmTimeout,
            "llm_empty" => StopReason::LlmEmpty,
            "max_messages" => StopReason::MaxMessages,
            "max_rounds_reached" => StopReason::MaxRoundsReached,
            other => {
                if let Some(role) = other.strip_prefix("agent_denied:") {
                    StopReason::AgentDenied {
                        role: role.to_string(),
                    }
                } else if let Some(e) = other
                    .strip_prefix("invalid_contribution:")
                    .and_then(|rest| rest.parse().ok())
                {
                    StopReason::InvalidContribution(e)
                } else {
                    StopReason::Other(other.to_string())
                }
            }
        })
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Ok(s.parse().unwrap_or_else(|never| match never {}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_strings_round_trip() {
        let reasons = [
            StopReason::Success,
            StopReason::Cancelled,
            StopReason::MaxSeconds,
            StopReason::LlmTimeout,
            StopReason::LlmEmpty,
            StopReason::MaxMessages,
            StopReason::MaxRoundsReached,
            StopReason::AgentDenied {
                role: "legal_analyst".into(),
            },
            StopReason::InvalidContribution(ContributionError::AgentNotAllowed {
                agent: "x:y".into(),
            }),
            StopReason::InvalidContribution(ContributionError::AgentMismatch {
                expected: "risk_analyst".into(),
            }),
            StopReason::InvalidContribution(ContributionError::ConfidenceRange),
            StopReason::Other("from_the_future".into()),
        ];
        for reason in reasons {
            let wire = reason.to_string();
            assert_eq!(wire.parse::<StopReason>().unwrap(), reason, "{wire}");
        }
        assert_eq!(
            StopReason::AgentDenied {
                role: "legal_analyst".into()
            }
            .to_string(),
            "agent_denied:legal_analyst"
        );
    }
}
