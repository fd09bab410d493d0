//! What the swarm and the coordinator share (002): reading a turn's action
//! from the model's output, an agent taking turns under the team's budgets
//! through the gateway, the trace of turns their results list, and their
//! turns' spans in the exported trace (`spans`). Where control goes next
//! is each pattern's own decision.

pub(crate) mod action;
pub(crate) mod agent;
mod budget;
pub(crate) mod checks;
pub(crate) mod compare;
pub(crate) mod describe;
pub(crate) mod events;
pub(crate) mod figures;
pub(crate) mod part;
pub(crate) mod result;
mod run_shared;
pub(crate) mod scenario;
pub(crate) mod sim;
pub(crate) mod spans;
pub(crate) mod stops;
mod tool_use;
pub(crate) mod trace;
mod turn_asks;
mod turn_calls;
pub(crate) mod turn_context;
pub(crate) mod turn_order;
pub(crate) mod turn_payload;
pub(crate) mod turn_schema;
mod turn_shape;
pub(crate) mod turn_words;
