//! The collaboration result document, field for field as 000's
//! `run_collaboration` returns it.

use super::contract::Contribution;
use crate::bus::{Conflict, Decision, RunStatus, Stance};
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub struct CollaborationResult {
    pub status: RunStatus,
    pub stop_reason: StopReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// What the model returned when the gateway stopped the run; may be
    /// JSON `null` itself, so absence is a separate case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_contribution: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_decision: Option<Decision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds_used: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team_summary: Option<TeamSummary>,
    pub trace: Vec<TraceEntry>,
    pub history: Vec<RoundRecord>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum TraceEntry {
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
pub struct RoundRecord {
    pub round: u32,
    pub contributions: Vec<Contribution>,
    pub conflicts: Vec<Conflict>,
    pub decision: Option<Decision>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TeamSummary {
    pub report_date: Value,
    pub region: Value,
    pub stances: Vec<StanceSummary>,
    pub conflicts: Vec<Conflict>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StanceSummary {
    pub agent: String,
    pub stance: Stance,
    pub confidence: f64,
}

impl StanceSummary {
    pub fn of(contribution: &Contribution) -> Self {
        StanceSummary {
            agent: contribution.agent.clone(),
            stance: contribution.stance,
            confidence: contribution.confidence,
        }
    }
}
