//! What each agent of a team run is asked with at every turn, built at
//! its first: the contract its turn keeps, the turn's purpose and the head
//! of its payload (see `turn_payload`). A swarm of many agents builds only
//! for those that get a turn, and agents whose turns may do the same keep
//! one contract: a coordinator's 100,000 distinct members built one each
//! (a few KiB of schema and functions apiece, 1.1 GiB in all).

use super::turn_schema::{TurnShape, turn_contract};
use crate::provider::Purpose;
use crate::provider::contract::Contract;
use parking_lot::Mutex;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// What every turn of one agent is asked with: the contract its answer
/// keeps (`turn_schema`), its purpose (its prompt's words, its script, who
/// spends its tokens) and its payload's head.
pub(super) struct Asked {
    pub(super) contract: Arc<Contract>,
    pub(super) purpose: Arc<Purpose>,
    pub(super) head: Map<String, Value>,
}

/// What each agent of one team run is asked with, built at its first turn
/// and copied or shared by the rest: a coordinator's 100,000 member calls
/// are four members' turns (the scale bench's `coordinator_100k`). At most
/// [`KEPT_AGENTS`] agents' asks are kept at once: a coordinator calling
/// 100,000 distinct members once each kept a kilobyte for each to the run's
/// end, and an agent's asks built again are the same.
#[derive(Default)]
pub(crate) struct TurnAsks {
    built: Mutex<HashMap<String, Arc<Asked>>>,
    /// The contracts built, by the shape of the turns that keep them.
    contracts: Mutex<HashMap<TurnShape, Arc<Contract>>>,
}

/// How many agents' asks a team run keeps at most; when one more is built,
/// those kept are let go and built again at their next turn.
const KEPT_AGENTS: usize = 1_024;

impl TurnAsks {
    pub(super) fn of(&self, agent: &str, build: impl FnOnce() -> Asked) -> Arc<Asked> {
        let mut built = self.built.lock();
        if let Some(asked) = built.get(agent) {
            return Arc::clone(asked);
        }
        if built.len() >= KEPT_AGENTS {
            built.clear();
        }
        let asked = Arc::new(build());
        built.insert(agent.to_string(), Arc::clone(&asked));
        asked
    }

    /// The contract of turns shaped `shape`, built the first time a turn
    /// of that shape is asked, and shared by every agent whose turns have
    /// it.
    pub(super) fn contract(&self, shape: TurnShape) -> Arc<Contract> {
        let mut contracts = self.contracts.lock();
        if let Some(contract) = contracts.get(&shape) {
            return Arc::clone(contract);
        }
        let contract = Arc::new(turn_contract(&shape));
        contracts.insert(shape, Arc::clone(&contract));
        contract
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn an_agents_asks_are_built_at_its_first_turn_and_shared_by_the_rest() {
        let asks = TurnAsks::default();
        let built = Cell::new(0);
        let asked = |agent: &str| {
            asks.of(agent, || {
                built.set(built.get() + 1);
                let mut head = Map::new();
                head.insert("agent".into(), agent.into());
                Asked {
                    contract: Arc::new(crate::patterns::team::turn_schema::turn_contract(
                        &crate::patterns::team::turn_schema::TurnShape::default(),
                    )),
                    purpose: Arc::new(crate::patterns::team::sim::turn(agent, None, "")),
                    head,
                }
            })
        };
        let first = asked("a0");
        let again = asked("a0");
        let other = asked("a1");
        assert_eq!(built.get(), 2, "a0 built once, a1 once");
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(other.head["agent"], "a1");
        assert_eq!(other.purpose.script_key(), "a1");
        assert_eq!(first.purpose.script_key(), "a0");
        // Past the agents kept, those kept are let go and built again.
        for i in 2..KEPT_AGENTS {
            asked(&format!("b{i}"));
        }
        assert_eq!(built.get(), KEPT_AGENTS, "as many kept as may be");
        asked("a0");
        assert_eq!(built.get(), KEPT_AGENTS, "a0 still kept");
        asked("c");
        assert_eq!(built.get(), KEPT_AGENTS + 1, "c built, the others let go");
        let rebuilt = asked("a0");
        assert_eq!(built.get(), KEPT_AGENTS + 2, "a0 built again");
        assert!(!Arc::ptr_eq(&first, &rebuilt));
        assert_eq!(rebuilt.head["agent"], "a0");
    }

    #[test]
    fn turns_of_one_shape_share_their_contract_and_other_shapes_have_their_own() {
        let asks = TurnAsks::default();
        let member = TurnShape::default();
        let swarm = |others: &[&str]| TurnShape {
            targets: others.iter().map(|o| o.to_string()).collect(),
            ..TurnShape::default()
        };
        let first = asks.contract(member.clone());
        assert!(Arc::ptr_eq(&first, &asks.contract(member.clone())));
        let b = asks.contract(swarm(&["a", "c"]));
        assert!(!Arc::ptr_eq(&first, &b));
        assert!(!Arc::ptr_eq(&b, &asks.contract(swarm(&["a", "b"]))));
        assert!(Arc::ptr_eq(&b, &asks.contract(swarm(&["a", "c"]))));
        // Each is the contract its shape builds.
        assert_eq!(first.schema, turn_contract(&member).schema);
        assert_eq!(b.schema, turn_contract(&swarm(&["a", "c"])).schema);
    }
}
