//! The research workflow's events and their vocabulary: the workflow's
//! phases and what each research event carries. The bus carries them as
//! `PatternEvent` (`patterns::events`); the result document and every
//! viewer read them. Data only: it decides nothing.

use crate::bus::event_kinds::event_kinds;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A step of 004's bounded workflow, in order; `step` numbers them 1 to 6
/// as the reference's trace does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResearchPhase {
    Plan,
    Search,
    Dedupe,
    ReadExtract,
    Verify,
    Synthesize,
}

impl ResearchPhase {
    pub(crate) const ALL: [ResearchPhase; 6] = [
        ResearchPhase::Plan,
        ResearchPhase::Search,
        ResearchPhase::Dedupe,
        ResearchPhase::ReadExtract,
        ResearchPhase::Verify,
        ResearchPhase::Synthesize,
    ];

    /// 1 for the plan to 6 for the synthesis.
    pub fn step(self) -> u32 {
        match self {
            ResearchPhase::Plan => 1,
            ResearchPhase::Search => 2,
            ResearchPhase::Dedupe => 3,
            ResearchPhase::ReadExtract => 4,
            ResearchPhase::Verify => 5,
            ResearchPhase::Synthesize => 6,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ResearchPhase::Plan => "plan",
            ResearchPhase::Search => "search",
            ResearchPhase::Dedupe => "dedupe",
            ResearchPhase::ReadExtract => "read_extract",
            ResearchPhase::Verify => "verify",
            ResearchPhase::Synthesize => "synthesize",
        }
    }

    pub fn parse(s: &str) -> Option<ResearchPhase> {
        ResearchPhase::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

impl fmt::Display for ResearchPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a source was not read: its domain is outside the policy allowlist,
/// or inside it and outside the execution allowlist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SourceDenial {
    #[serde(rename = "source_denied_policy")]
    Policy,
    #[serde(rename = "source_denied_execution")]
    Execution,
}

impl SourceDenial {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SourceDenial::Policy => "source_denied_policy",
            SourceDenial::Execution => "source_denied_execution",
        }
    }
}

/// A step begins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepStarted {
    pub(crate) step: u32,
    pub phase: ResearchPhase,
}

/// A step ended well and entered the trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepFinished {
    pub(crate) step: u32,
    pub phase: ResearchPhase,
    /// The step's headline number: plan steps, search candidates, URLs
    /// after dedupe, notes, checked notes or citations.
    pub count: u64,
}

/// The search returned a candidate; `rank` counts from 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFound {
    pub(crate) rank: u32,
    /// As the search returned it.
    pub(crate) url: String,
    pub(crate) title: String,
}

/// The candidates' normalised URLs after dedupe, in the order they will be
/// considered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcesDeduped {
    pub urls: Vec<String>,
}

/// A source the domain checks let through, about to be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceAllowed {
    pub(crate) url: String,
    pub domain: String,
}

/// A source the domain checks refused; it is recorded in `denied_sources`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceDenied {
    pub(crate) url: String,
    pub domain: String,
    pub reason: SourceDenial,
    /// The flag that is off and keeps the domain out of the execution
    /// allowlist, when one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gated_by: Option<String>,
}

/// A page came back from `read_source`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRead {
    pub(crate) url: String,
    pub title: String,
    pub(crate) published_at: String,
}

/// A note was kept, with its provenance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteExtracted {
    pub id: String,
    pub(crate) url: String,
    pub(crate) title: String,
    pub(crate) published_at: String,
    pub(crate) claim: String,
    pub(crate) quote: String,
}

/// What the verifier said about the notes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotesVerified {
    pub checked: u64,
    pub ok: bool,
    pub(crate) issues: Vec<String>,
}

/// The accepted answer cites a note; one event per cited note, in note
/// order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cited {
    pub id: String,
    pub(crate) url: String,
    pub(crate) title: String,
    pub(crate) published_at: String,
}

event_kinds! {
/// The research workflow's events: its steps, the sources found, allowed
/// and read, the notes kept and verified, the citations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResearchEvent, read as ResearchNamed = "ResearchEvent" {
    /// research: a step of the bounded workflow begins.
    ResearchStepStarted(StepStarted),
    /// research: a step ended well.
    ResearchStepFinished(StepFinished),
    /// research: the search returned a candidate source.
    SourceFound(SourceFound),
    /// research: the candidates, normalised and deduplicated.
    SourcesDeduped(SourcesDeduped),
    /// research: a source passed the policy and execution checks.
    SourceAllowed(SourceAllowed),
    /// research: a source failed the policy or the execution check.
    SourceDenied(SourceDenied),
    /// research: a page was read.
    PageRead(PageRead),
    /// research: a note was kept, with its provenance.
    NoteExtracted(NoteExtracted),
    /// research: the verifier's findings.
    NotesVerified(NotesVerified),
    /// research: the accepted answer cites a note.
    Cited(Cited),
}
}
