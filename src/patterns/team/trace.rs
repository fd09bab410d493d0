//! A team run's trace: one entry per turn, as the swarm's and the
//! coordinator's result documents list them.

use crate::patterns::team::events::TurnOutcome;
use serde::Serialize;
use std::sync::Arc;

/// One turn: who took it, how it ended, what it aimed at.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TraceEntry {
    pub(crate) turn: u32,
    /// Shared with the agent's other entries: a coordinator's turn of
    /// 100,000 member calls names four members.
    pub(crate) agent: Arc<str>,
    pub(crate) outcome: TurnOutcome,
    /// The transfer's target or the tool called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) target: Option<String>,
    /// The members the coordinator called.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) members: Vec<String>,
    /// Whether the transfer was accepted or the tool answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ok: Option<bool>,
    /// Why the transfer was refused or the tool failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    pub(crate) latency_ms: u64,
}

impl TraceEntry {
    pub(crate) fn turn(
        turn: u32,
        agent: impl Into<Arc<str>>,
        outcome: TurnOutcome,
        latency_ms: u64,
    ) -> Self {
        TraceEntry {
            turn,
            agent: agent.into(),
            outcome,
            target: None,
            members: Vec::new(),
            ok: None,
            reason: None,
            latency_ms,
        }
    }
}
