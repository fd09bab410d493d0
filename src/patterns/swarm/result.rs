//! The swarm's result document (DESIGN.md "swarm"): how the run ended, who
//! held control at the end, the reply, the chain of agents, every transfer
//! asked for, the model calls used, a trace of turns and the history the
//! agents saw.

use crate::bus::{HandoffRejection, RunStatus, TurnOutcome};
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub struct SwarmResult {
    pub status: RunStatus,
    pub stop_reason: StopReason,
    /// The agent holding control when the run ended.
    pub final_agent: String,
    /// The last agent's reply, on success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Model calls started, a cut-off one included.
    pub llm_calls: u64,
    /// The agents in the order they held control, the entry first.
    pub chain: Vec<String>,
    /// Every transfer asked for, accepted or not.
    pub handoffs: Vec<HandoffRecord>,
    pub trace: Vec<TraceEntry>,
    pub history: Vec<Value>,
}

/// One transfer asked for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HandoffRecord {
    pub from: String,
    pub to: String,
    pub accepted: bool,
    /// Why it was refused, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<HandoffRejection>,
}

/// One turn: who took it, how it ended, what it aimed at.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceEntry {
    pub turn: u32,
    pub agent: String,
    pub outcome: TurnOutcome,
    /// The transfer's target or the tool called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The members the coordinator called.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// Whether the transfer was accepted or the tool answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// Why the transfer was refused or the tool failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub latency_ms: u64,
}

impl TraceEntry {
    pub fn turn(turn: u32, agent: &str, outcome: TurnOutcome, latency_ms: u64) -> Self {
        TraceEntry {
            turn,
            agent: agent.to_string(),
            outcome,
            target: None,
            members: Vec::new(),
            ok: None,
            reason: None,
            latency_ms,
        }
    }
}
