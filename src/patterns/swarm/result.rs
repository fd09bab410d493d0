//! The swarm's result document (DESIGN.md "swarm"): how the run ended, who
//! held control at the end, the reply, the chain of agents, every transfer
//! asked for, the model calls used, a trace of turns and the history the
//! agents saw.

use crate::patterns::team::events::HandoffRejection;
use serde::Serialize;
use std::sync::Arc;

/// A swarm's own steps in its result: who held control, in order, and
/// every transfer asked for. The agents' names are shared: a chain of
/// 40,000 handoffs names four agents.
#[derive(Debug, Serialize)]
pub(crate) struct SwarmSteps {
    pub(crate) chain: Vec<Arc<str>>,
    pub(crate) handoffs: Vec<HandoffRecord>,
}

/// One transfer asked for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct HandoffRecord {
    pub(crate) from: Arc<str>,
    pub(crate) to: Arc<str>,
    pub(crate) accepted: bool,
    /// Why it was refused, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<HandoffRejection>,
}
