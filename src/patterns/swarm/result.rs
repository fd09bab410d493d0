//! The swarm's result document (DESIGN.md "swarm"): how the run ended, who
//! held control at the end, the reply, the chain of agents, every transfer
//! asked for, the model calls used, a trace of turns and the history the
//! agents saw.

use crate::bus::{HandoffRejection, RunStatus};
use crate::patterns::team::trace::TraceEntry;
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub(crate) struct SwarmResult {
    pub(crate) status: RunStatus,
    pub(crate) stop_reason: StopReason,
    /// The agent holding control when the run ended.
    pub(crate) final_agent: String,
    /// The last agent's reply, on success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) answer: Option<String>,
    /// Model calls started, a cut-off one included.
    pub(crate) llm_calls: u64,
    /// The agents in the order they held control, the entry first.
    pub(crate) chain: Vec<String>,
    /// Every transfer asked for, accepted or not.
    pub(crate) handoffs: Vec<HandoffRecord>,
    pub(crate) trace: Vec<TraceEntry>,
    pub(crate) history: Vec<Value>,
    /// Safe mode skipped tool calls that failed fast: the result lacks
    /// their part (only with a `resilience` section).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) partial: Option<bool>,
    /// The tools safe mode skipped, in the order first skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) degraded: Option<Vec<String>>,
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
