//! The coordinator team's result document: how the run ended, the
//! coordinator's answer, the model calls used, every member call with its
//! outcome, a trace of turns and the history the agents saw.

use crate::patterns::orchestrator::events::TaskStatus;
use crate::patterns::team::result::TeamRecord;
use crate::stop::StopReason;
use serde::Serialize;
use std::sync::Arc;

/// A coordinator's own steps in its result: every call of a member, each
/// record shared with the answers in the history.
#[derive(Debug, Serialize)]
pub(crate) struct CoordinatorSteps {
    pub(crate) member_calls: Vec<Arc<MemberRecord>>,
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
    /// The member team's own document, when the member is a team.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) team: Option<Box<TeamRecord>>,
}
