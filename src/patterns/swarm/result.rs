//! The swarm's result document (DESIGN.md "swarm"): how the run ended, who
//! held control at the end, the reply, the chain of agents, every transfer
//! asked for, the model calls used, a trace of turns and the history the
//! agents saw.

use crate::patterns::team::events::HandoffRejection;
use serde::Serialize;

/// A swarm's own steps in its result: who held control, in order, and
/// every transfer asked for.
#[derive(Debug, Serialize)]
pub(crate) struct SwarmSteps {
    pub(crate) chain: Vec<String>,
    pub(crate) handoffs: Vec<HandoffRecord>,
}

/// One transfer asked for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct HandoffRecord {
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) accepted: bool,
    /// Why it was refused, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<HandoffRejection>,
}
