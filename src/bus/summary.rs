//! A run's result in types: the decision, health, answer or final agent and
//! the counts a viewer shows and a sweep tallies, published beside the
//! result document the references define. Each pattern's runner fills it
//! from what it knows; nothing reads it back out of the document, except
//! for recordings written before it existed (`RunSummary::of_result`).

use crate::patterns::collaboration::events::Decision;
use crate::patterns::orchestrator::events::Health;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The team's final decision (collaboration, when it reached one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) decision: Option<Decision>,
    /// The aggregate's health (orchestrator, once the results are
    /// aggregated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) health: Option<Health>,
    /// The answer or brief, when the run gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The agent holding control at the end (swarm, coordinator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) final_agent: Option<String>,
    /// The notes the answer cites, as written (research).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) citations: Vec<String>,
    /// Safe mode skipped calls that failed fast: the result lacks their
    /// part.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) partial: bool,
    /// The tools safe mode skipped, in the order first skipped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) degraded: Vec<String>,
    #[serde(default)]
    pub(crate) counts: RunCounts,
}

/// What a run used of the budgets its pattern counts; `None` where the
/// pattern does not count it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RunCounts {
    /// Rounds the table convened (collaboration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rounds: Option<u32>,
    /// Worker attempts started, retries and refused ones included
    /// (orchestrator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dispatches: Option<u64>,
    /// Transfers asked for, refused ones included (swarm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) handoffs: Option<u64>,
    /// Model calls the team started (swarm, coordinator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) llm_calls: Option<u64>,
    /// Member calls the coordinator made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) member_calls: Option<u64>,
    /// Tasks that finished, done or failed (orchestrator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tasks: Option<u64>,
    /// Of those, the tasks that failed (orchestrator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) failed_tasks: Option<u64>,
}

/// The fields of a result document the summary was made of, before runs
/// published one; wrong or missing fields are left out.
#[derive(Deserialize)]
struct Written {
    #[serde(default)]
    final_decision: Option<Decision>,
    #[serde(default)]
    aggregate: Option<WrittenAggregate>,
    #[serde(default)]
    answer: Option<String>,
    #[serde(default)]
    final_agent: Option<String>,
    #[serde(default)]
    citations: Option<Vec<String>>,
    #[serde(default)]
    partial: Option<bool>,
    #[serde(default)]
    degraded: Option<Vec<String>>,
    #[serde(default)]
    rounds_used: Option<u32>,
    #[serde(default)]
    llm_calls: Option<u64>,
    #[serde(default)]
    handoffs: Option<Vec<Value>>,
    #[serde(default)]
    member_calls: Option<Vec<Value>>,
}

#[derive(Deserialize)]
struct WrittenAggregate {
    #[serde(default)]
    health: Option<Health>,
    #[serde(default)]
    failed_tasks: Option<Vec<Value>>,
}

impl RunSummary {
    /// Whether a run that finished did less than it was asked: safe mode
    /// skipped calls, or tasks failed. Such a run reads as partial, in
    /// its own colour, wherever its outcome is shown.
    pub(crate) fn falls_short(&self) -> bool {
        self.partial || self.counts.failed_tasks.is_some_and(|n| n > 0)
    }

    /// The summary a recording made before summaries were published stands
    /// for, read from its result document. A document that is not one
    /// (or a field of the wrong type) gives an empty summary.
    pub(crate) fn of_result(result: &Value) -> RunSummary {
        let Ok(written) = Written::deserialize(result) else {
            return RunSummary::default();
        };
        let count = |list: Option<Vec<Value>>| list.map(|l| l.len() as u64);
        RunSummary {
            decision: written.final_decision,
            health: written.aggregate.as_ref().and_then(|a| a.health),
            answer: written.answer,
            final_agent: written.final_agent,
            citations: written.citations.unwrap_or_default(),
            partial: written.partial.unwrap_or(false),
            degraded: written.degraded.unwrap_or_default(),
            counts: RunCounts {
                rounds: written.rounds_used,
                dispatches: None,
                handoffs: count(written.handoffs),
                llm_calls: written.llm_calls,
                member_calls: count(written.member_calls),
                tasks: None,
                failed_tasks: written
                    .aggregate
                    .and_then(|a| a.failed_tasks)
                    .map(|failed| failed.len() as u64),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_empty_summary_is_an_empty_object_and_reads_back() {
        assert_eq!(
            serde_json::to_value(RunSummary::default()).unwrap(),
            json!({"counts": {}})
        );
        assert_eq!(
            serde_json::from_value::<RunSummary>(json!({})).unwrap(),
            RunSummary::default()
        );
    }

    #[test]
    fn an_old_result_document_gives_the_summary_its_run_would_have_published() {
        let collaboration = json!({"status": "ok", "final_decision": "go_with_caution",
            "answer": "Launch behind a flag.", "rounds_used": 2, "history": []});
        let summary = RunSummary::of_result(&collaboration);
        assert_eq!(summary.decision, Some(Decision::GoWithCaution));
        assert_eq!(summary.answer.as_deref(), Some("Launch behind a flag."));
        assert_eq!(summary.counts.rounds, Some(2));

        let orchestrator = json!({"status": "stopped", "aggregate": {"health": "yellow"},
            "partial": true, "degraded": ["enrichment_api"]});
        let summary = RunSummary::of_result(&orchestrator);
        assert_eq!(summary.health, Some(Health::Yellow));
        assert!(summary.partial);
        assert_eq!(summary.degraded, ["enrichment_api"]);

        let swarm = json!({"final_agent": "billing", "llm_calls": 4,
            "handoffs": [{"from": "triage", "to": "billing", "accepted": true}]});
        let summary = RunSummary::of_result(&swarm);
        assert_eq!(summary.final_agent.as_deref(), Some("billing"));
        assert_eq!(summary.counts.handoffs, Some(1));
        assert_eq!(summary.counts.llm_calls, Some(4));
    }

    #[test]
    fn a_document_of_another_shape_gives_an_empty_summary() {
        assert_eq!(RunSummary::of_result(&json!(null)), RunSummary::default());
        assert_eq!(
            RunSummary::of_result(&json!({"final_decision": "maybe"})),
            RunSummary::default()
        );
    }
}
