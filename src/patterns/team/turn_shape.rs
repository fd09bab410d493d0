//! What one team agent's turn may do (reply, hand control on, call its
//! members or a tool), read from its part: the shape both the turn's
//! schema and its function calls are built from.

use super::action::{ACTION_KEYS, CALL, CALL_MEMBERS, TRANSFER_TO};
use super::part::Part;
use crate::scenario::PatternKind;

/// What one agent's turn may do, from its part: names with their
/// descriptions, in the part's order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct TurnShape {
    /// It coordinates its part (its members are `members`).
    pub(crate) coordinator: bool,
    /// The agents it may hand control to (a swarm's others).
    pub(crate) targets: Vec<String>,
    pub(crate) members: Vec<(String, String)>,
    pub(crate) tools: Vec<(String, String)>,
}

impl TurnShape {
    pub(crate) fn of(part: &Part<'_>, agent: &str) -> Self {
        let others = || {
            part.agents
                .iter()
                .filter(move |(name, _)| *name != agent)
                .map(|(name, spec)| (name.clone(), spec.description.clone().unwrap_or_default()))
        };
        let coordinator = part.pattern.has_coordinator() && agent == part.entry;
        let swarm = part.pattern == PatternKind::Swarm;
        TurnShape {
            coordinator,
            targets: if swarm {
                others().map(|(name, _)| name).collect()
            } else {
                Vec::new()
            },
            members: if coordinator {
                others().collect()
            } else {
                Vec::new()
            },
            tools: part
                .tools
                .iter()
                .map(|(name, spec)| (name.clone(), spec.description.clone().unwrap_or_default()))
                .collect(),
        }
    }

    /// The action keys this agent's turn may set, in the contract's
    /// order: what its schema offers and its repairs name.
    pub(crate) fn action_keys(&self) -> Vec<&'static str> {
        ACTION_KEYS
            .into_iter()
            .filter(|key| match *key {
                TRANSFER_TO => !self.targets.is_empty(),
                CALL => !self.tools.is_empty(),
                CALL_MEMBERS => self.coordinator,
                _ => true,
            })
            .collect()
    }

    pub(super) fn names(list: &[(String, String)]) -> impl Iterator<Item = &str> {
        list.iter().map(|(name, _)| name.as_str())
    }
}
