//! The research result document, field for field and in the order 004's
//! `run_research_agent` returns it, with its trace and history entries.

use crate::bus::RunStatus;
use crate::patterns::research::events::{ResearchPhase, SourceDenial};
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

/// What 004 calls a grounded answer.
pub(crate) const OUTCOME: &str = "grounded_research_answer";

#[derive(Debug, Serialize)]
pub(crate) struct ResearchResult {
    pub(crate) run_id: String,
    pub(crate) status: RunStatus,
    pub(crate) stop_reason: StopReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) phase: Option<ResearchPhase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) outcome: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) answer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) citations: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) citation_details: Option<Vec<CitationDetail>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) aggregate: Option<Aggregate>,
    pub(crate) trace: Vec<TraceEntry>,
    pub(crate) history: Vec<HistoryEntry>,
    /// When no source gave a note: the sources the domain checks refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) denied_sources: Option<Vec<DeniedSource>>,
    /// When the plan's actions were out of order: expected and received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) details: Option<Value>,
    /// When verification failed: the verifier's findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) verification: Option<Value>,
}

/// A source the domain checks refused.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct DeniedSource {
    pub(crate) url: String,
    pub(crate) reason: SourceDenial,
}

/// A cited note's provenance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct CitationDetail {
    pub(crate) id: String,
    pub(crate) url: String,
    pub(crate) title: String,
    pub(crate) published_at: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Aggregate {
    pub(crate) query: String,
    pub(crate) urls_found: usize,
    pub(crate) urls_after_dedupe: usize,
    pub(crate) pages_read: usize,
    pub(crate) notes_count: usize,
    pub(crate) citations_count: usize,
    pub(crate) denied_sources: Vec<DeniedSource>,
    pub(crate) verified_notes: i64,
}

/// An entry of `trace`: the step, its phase, what it counted, when it
/// ended and that it went well.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TraceEntry {
    pub(crate) step: u32,
    pub(crate) phase: ResearchPhase,
    #[serde(flatten)]
    pub(crate) counts: TraceCounts,
    /// Run time at the end of the step, at least 1 ms, as 004 measures it.
    pub(crate) elapsed_ms: u64,
    pub(crate) ok: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum TraceCounts {
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
pub(crate) struct HistoryEntry {
    pub(crate) step: u32,
    pub(crate) action: &'static str,
    #[serde(flatten)]
    pub(crate) detail: HistoryDetail,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum HistoryDetail {
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
    pub(crate) fn action(&self) -> &'static str {
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
