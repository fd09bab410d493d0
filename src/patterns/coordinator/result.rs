//! The coordinator team's result document: how the run ended, the
//! coordinator's answer, the model calls used, every member call with its
//! outcome, a trace of turns and the history the agents saw.

use crate::bus::{RunStatus, TaskStatus};
use crate::patterns::team::trace::TraceEntry;
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub struct CoordinatorResult {
    pub status: RunStatus,
    pub stop_reason: StopReason,
    /// The coordinator, which holds control throughout.
    pub final_agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Model calls started, the members' included.
    pub llm_calls: u64,
    /// Every member call, in the order the coordinator asked for them.
    pub member_calls: Vec<MemberRecord>,
    pub trace: Vec<TraceEntry>,
    pub history: Vec<Value>,
}

/// How one member call ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemberRecord {
    /// The coordinator's turn that asked for the call.
    pub turn: u32,
    pub member: String,
    pub task: String,
    pub status: TaskStatus,
    /// Run time from the call to its end.
    pub latency_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
}
