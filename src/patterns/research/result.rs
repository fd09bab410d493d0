//! The research result document, field for field and in the order 004's
//! `run_research_agent` returns it, with its trace and history entries.

use crate::bus::{ResearchPhase, RunStatus, SourceDenial};
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

/// What 004 calls a grounded answer.
pub const OUTCOME: &str = "grounded_research_answer";

#[derive(Debug, Serialize)]
pub struct ResearchResult {
    pub run_id: String,
    pub status: RunStatus,
    pub stop_reason: StopReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<ResearchPhase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citations: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation_details: Option<Vec<CitationDetail>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Aggregate>,
    pub trace: Vec<TraceEntry>,
    pub history: Vec<HistoryEntry>,
    /// When no source gave a note: the sources the domain checks refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub denied_sources: Option<Vec<DeniedSource>>,
    /// When the plan's actions were out of order: expected and received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// When verification failed: the verifier's findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<Value>,
}

/// A source the domain checks refused.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeniedSource {
    pub url: String,
    pub reason: SourceDenial,
}

/// A cited note's provenance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CitationDetail {
    pub id: String,
    pub url: String,
    pub title: String,
    pub published_at: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Aggregate {
    pub query: String,
    pub urls_found: usize,
    pub urls_after_dedupe: usize,
    pub pages_read: usize,
    pub notes_count: usize,
    pub citations_count: usize,
    pub denied_sources: Vec<DeniedSource>,
    pub verified_notes: i64,
}

/// An entry of `trace`: the step, its phase, what it counted, when it
/// ended and that it went well.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceEntry {
    pub step: u32,
    pub phase: ResearchPhase,
    #[serde(flatten)]
    pub counts: TraceCounts,
    /// Run time at the end of the step, at least 1 ms, as 004 measures it.
    pub elapsed_ms: u64,
    pub ok: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TraceCounts {
    Plan {
        steps: usize,
    },
    Search {
        query: String,
        candidates: usize,
    },
    Dedupe {
        urls_after_dedupe: usize,
    },
    ReadExtract {
        pages_read: usize,
        notes: usize,
        denied_sources: usize,
    },
    Verify {
        checked_notes: i64,
        issues: usize,
    },
    Synthesize {
        answer_chars: usize,
        citations: usize,
    },
}

/// An entry of `history`: the step, the action taken and what it gave.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryEntry {
    pub step: u32,
    pub action: &'static str,
    #[serde(flatten)]
    pub detail: HistoryDetail,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HistoryDetail {
    Plan {
        step_ids: Vec<String>,
    },
    Search {
        query: String,
        candidates: usize,
    },
    Dedupe {
        urls_after_dedupe: usize,
    },
    ReadExtract {
        pages_read: usize,
        denied_sources: Vec<DeniedSource>,
    },
    Verify {
        checked_notes: i64,
    },
    Synthesize {
        citations: Vec<String>,
    },
}

impl HistoryDetail {
    /// The action 004's history names for each step.
    pub fn action(&self) -> &'static str {
        match self {
            HistoryDetail::Plan { .. } => "propose_research_plan",
            HistoryDetail::Search { .. } => "search_sources",
            HistoryDetail::Dedupe { .. } => "dedupe_urls",
            HistoryDetail::ReadExtract { .. } => "read_extract_notes",
            HistoryDetail::Verify { .. } => "verify_notes",
            HistoryDetail::Synthesize { .. } => "synthesize_answer",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_keep_the_reference_key_order() {
        let entry = TraceEntry {
            step: 4,
            phase: ResearchPhase::ReadExtract,
            counts: TraceCounts::ReadExtract {
                pages_read: 2,
                notes: 2,
                denied_sources: 1,
            },
            elapsed_ms: 1,
            ok: true,
        };
        let text = serde_json::to_string(&entry).unwrap();
        assert_eq!(
            text,
            r#"{"step":4,"phase":"read_extract","pages_read":2,"notes":2,"denied_sources":1,"elapsed_ms":1,"ok":true}"#
        );
        let detail = HistoryDetail::ReadExtract {
            pages_read: 1,
            denied_sources: vec![DeniedSource {
                url: "https://x.example/".into(),
                reason: SourceDenial::Policy,
            }],
        };
        let history = HistoryEntry {
            step: 4,
            action: detail.action(),
            detail,
        };
        assert_eq!(
            serde_json::to_value(&history).unwrap(),
            json!({"step": 4, "action": "read_extract_notes", "pages_read": 1,
                   "denied_sources": [{"url": "https://x.example/", "reason": "source_denied_policy"}]})
        );
    }
}
