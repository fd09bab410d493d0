//! The coordinator team's result document: how the run ended, the
//! coordinator's answer, the model calls used, every member call with its
//! outcome, a trace of turns and the history the agents saw.

use crate::bus::{RunStatus, TaskStatus};
use crate::patterns::team::trace::TraceEntry;
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub(crate) struct CoordinatorResult {
    pub(crate) status: RunStatus,
    pub(crate) stop_reason: StopReason,
    /// The coordinator, which holds control throughout.
    pub(crate) final_agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) answer: Option<String>,
    /// Model calls started, the members' included.
    pub(crate) llm_calls: u64,
    /// Every member call, in the order the coordinator asked for them.
    pub(crate) member_calls: Vec<MemberRecord>,
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

/// How one member call ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct MemberRecord {
    /// The coordinator's turn that asked for the call.
    pub(crate) turn: u32,
    pub(crate) member: String,
    pub(crate) task: String,
    pub(crate) status: TaskStatus,
    /// Run time from the call to its end.
    pub(crate) latency_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reply: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stop_reason: Option<StopReason>,
}
