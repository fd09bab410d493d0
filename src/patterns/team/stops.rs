//! A team's own stop reasons (the swarm's and the coordinator's, 002's
//! names) and their sentences: a transfer target that held control past
//! its node timeout, a member that did not answer in time or is no
//! member, and a model output that is no turn. The floors carry them as
//! opaque strings (`StopReason::Pattern`); a team reads them back with
//! `StopReason::pattern::<TeamStop>()`.

use crate::stop::{PatternReason, StopFacts, StopKind, StopReason};
use std::fmt;

/// Why a team stops, beyond the reasons every pattern shares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TeamStop {
    /// A transfer target held control past `node_timeout_ms` (002's
    /// NodeTimeout).
    NodeTimeout { agent: String },
    /// A member called by the coordinator did not answer within
    /// `member_timeout_ms`.
    MemberTimeout { member: String },
    /// The coordinator called a name that is not one of its members.
    UnknownMember { member: String },
    /// A model output that is no kind of turn the agent may take.
    InvalidTurn,
}

impl fmt::Display for TeamStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeamStop::NodeTimeout { agent } => write!(f, "node_timeout:{agent}"),
            TeamStop::MemberTimeout { member } => write!(f, "member_timeout:{member}"),
            TeamStop::UnknownMember { member } => write!(f, "unknown_member:{member}"),
            TeamStop::InvalidTurn => f.write_str("invalid_turn"),
        }
    }
}

impl PatternReason for TeamStop {
    fn kind(&self) -> StopKind {
        match self {
            TeamStop::NodeTimeout { .. } | TeamStop::MemberTimeout { .. } => StopKind::Timeout,
            TeamStop::UnknownMember { .. } => StopKind::Plain,
            TeamStop::InvalidTurn => StopKind::Contract,
        }
    }

    fn read(wire: &str) -> Option<Self> {
        if wire == "invalid_turn" {
            return Some(TeamStop::InvalidTurn);
        }
        let (head, name) = wire.split_once(':')?;
        let name = name.to_string();
        Some(match head {
            "node_timeout" => TeamStop::NodeTimeout { agent: name },
            "member_timeout" => TeamStop::MemberTimeout { member: name },
            "unknown_member" => TeamStop::UnknownMember { member: name },
            _ => return None,
        })
    }

    fn explain(&self, _: &StopFacts) -> String {
        match self {
            TeamStop::NodeTimeout { agent } => {
                format!("{agent} held control past the node timeout")
            }
            TeamStop::MemberTimeout { member } => {
                format!("{member} did not answer within the member timeout")
            }
            TeamStop::UnknownMember { member } => {
                format!("the coordinator called {member}, who is not a member")
            }
            TeamStop::InvalidTurn => "a model output was no turn the agent may take".into(),
        }
    }
}

impl From<TeamStop> for StopReason {
    fn from(reason: TeamStop) -> Self {
        StopReason::of_pattern(&reason)
    }
}

/// A team's words for its own stops (the swarm's and the coordinator's).
pub(crate) fn explain(reason: &StopReason, facts: &StopFacts) -> Option<String> {
    reason.pattern::<TeamStop>().map(|own| own.explain(facts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::stops_tests::check_reasons;

    #[test]
    fn every_reason_reads_back_and_has_its_own_sentence() {
        check_reasons(
            vec![
                TeamStop::NodeTimeout {
                    agent: "billing".into(),
                },
                TeamStop::MemberTimeout {
                    member: "launch/research_team".into(),
                },
                TeamStop::UnknownMember {
                    member: "ghost".into(),
                },
                TeamStop::InvalidTurn,
            ],
            explain,
        );
    }
}
