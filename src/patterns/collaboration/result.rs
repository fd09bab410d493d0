//! The collaboration result document, field for field as 000's
//! `run_collaboration` returns it.

use super::contract::Contribution;
use crate::bus::RunStatus;
use crate::patterns::collaboration::events::{Conflict, Decision, Stance};
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub(crate) struct CollaborationResult {
    pub(crate) status: RunStatus,
    pub(crate) stop_reason: StopReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) phase: Option<String>,
    /// What the model returned when the gateway stopped the run; may be
    /// JSON `null` itself, so absence is a separate case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) raw_contribution: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) answer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) final_decision: Option<Decision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rounds_used: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) team_summary: Option<TeamSummary>,
    /// `"human"` when a person made the decision after an escalation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) decided_by: Option<&'static str>,
    /// Notes a person added to the shared context.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) human_notes: Vec<String>,
    pub(crate) trace: Vec<TraceEntry>,
    pub(crate) history: Vec<RoundRecord>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum TraceEntry {
    Contribution {
        round: u32,
        agent: String,
        stance: Stance,
        confidence: f64,
        accepted: bool,
    },
    Round {
        round: u32,
        conflicts: Vec<Conflict>,
        /// The decision, or `next_round`.
        decision: &'static str,
    },
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct RoundRecord {
    pub(crate) round: u32,
    pub(crate) contributions: Vec<Contribution>,
    pub(crate) conflicts: Vec<Conflict>,
    pub(crate) decision: Option<Decision>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct TeamSummary {
    pub(crate) report_date: Value,
    pub(crate) region: Value,
    pub(crate) stances: Vec<StanceSummary>,
    pub(crate) conflicts: Vec<Conflict>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct StanceSummary {
    pub(crate) agent: String,
    pub(crate) stance: Stance,
    pub(crate) confidence: f64,
}

impl StanceSummary {
    pub(crate) fn of(contribution: &Contribution) -> Self {
        StanceSummary {
            agent: contribution.agent.clone(),
            stance: contribution.stance,
            confidence: contribution.confidence,
        }
    }
}
