//! Two research runs aligned: each step of the workflow with its headline
//! count, each source after dedupe with its fate (read, denied by policy or
//! at execution, or never reached), and the notes the answers cite.

mod tables;

use crate::bus::figures::Figures;
use crate::bus::{Event, EventKind, RunSummary};
use crate::compare::sections::Cell;
use crate::compare::union;
use crate::compare::{Aligned, Alignment, CompareRules, Difference};
use crate::patterns::events::PatternEvent;
use crate::patterns::research::events::ResearchEvent;
use crate::patterns::research::events::{ResearchPhase, SourceDenial};
use indexmap::IndexMap;
use serde::Serialize;
use std::sync::Arc;

/// What became of a source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "fate", rename_all = "snake_case")]
pub(crate) enum SourceFate {
    /// Kept after dedupe, never reached.
    Listed,
    /// Let through, not read (yet).
    Allowed,
    Read,
    Denied {
        reason: SourceDenial,
        /// The flag that kept it out, when one did.
        gated_by: Option<String>,
    },
}

impl SourceFate {
    pub(crate) fn words(&self) -> String {
        match self {
            SourceFate::Listed => "not reached".into(),
            SourceFate::Allowed => "allowed".into(),
            SourceFate::Read => "read".into(),
            SourceFate::Denied {
                reason: SourceDenial::Policy,
                ..
            } => "denied (policy)".into(),
            SourceFate::Denied {
                gated_by: Some(flag),
                ..
            } => format!("denied (flag {flag})"),
            SourceFate::Denied { .. } => "denied (execution)".into(),
        }
    }
}

/// A step of the workflow: its count in each run, `null` where the run
/// did not finish it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct StepRow {
    pub(crate) phase: ResearchPhase,
    pub(crate) a: Option<u64>,
    pub(crate) b: Option<u64>,
}

/// A source (its URL after normalisation) in each run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct SourceRow {
    pub(crate) url: String,
    pub(crate) a: Option<SourceFate>,
    pub(crate) b: Option<SourceFate>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct ResearchAligned {
    pub(crate) steps: Vec<StepRow>,
    pub(crate) sources: Vec<SourceRow>,
    /// Note ids kept, in each run.
    pub(crate) notes_a: Vec<String>,
    pub(crate) notes_b: Vec<String>,
}

#[derive(Default)]
struct Research {
    steps: IndexMap<ResearchPhase, u64>,
    sources: IndexMap<String, SourceFate>,
    notes: Vec<String>,
}

impl Research {
    fn of(events: &[Arc<Event>]) -> Research {
        let mut research = Research::default();
        for event in events {
            match &event.kind {
                EventKind::Pattern(PatternEvent::Research(
                    ResearchEvent::ResearchStepFinished(step),
                )) => {
                    research.steps.insert(step.phase, step.count);
                }
                EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourcesDeduped(
                    deduped,
                ))) => {
                    for url in &deduped.urls {
                        research
                            .sources
                            .entry(url.clone())
                            .or_insert(SourceFate::Listed);
                    }
                }
                EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceAllowed(
                    allowed,
                ))) => {
                    research
                        .sources
                        .insert(allowed.url.clone(), SourceFate::Allowed);
                }
                EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceDenied(denied))) => {
                    research.sources.insert(
                        denied.url.clone(),
                        SourceFate::Denied {
                            reason: denied.reason,
                            gated_by: denied.gated_by.clone(),
                        },
                    );
                }
                EventKind::Pattern(PatternEvent::Research(ResearchEvent::PageRead(page))) => {
                    research.sources.insert(page.url.clone(), SourceFate::Read);
                }
                EventKind::Pattern(PatternEvent::Research(ResearchEvent::NoteExtracted(note))) => {
                    research.notes.push(note.id.clone())
                }
                _ => {}
            }
        }
        research
    }
}

fn align(a: &[Arc<Event>], b: &[Arc<Event>]) -> ResearchAligned {
    let (ra, rb) = (Research::of(a), Research::of(b));
    let steps = ResearchPhase::ALL
        .into_iter()
        .filter(|p| ra.steps.contains_key(p) || rb.steps.contains_key(p))
        .map(|phase| StepRow {
            phase,
            a: ra.steps.get(&phase).copied(),
            b: rb.steps.get(&phase).copied(),
        })
        .collect();
    let sources = union(ra.sources.keys(), rb.sources.keys())
        .into_iter()
        .map(|url| SourceRow {
            url: url.clone(),
            a: ra.sources.get(url).cloned(),
            b: rb.sources.get(url).cloned(),
        })
        .collect();
    ResearchAligned {
        steps,
        sources,
        notes_a: ra.notes,
        notes_b: rb.notes,
    }
}

impl Aligned for ResearchAligned {
    fn differences(&self) -> Vec<Difference> {
        let mut out = Vec::new();
        for row in &self.steps {
            if row.a != row.b {
                out.push(Difference::new(
                    format!("steps.{}", row.phase),
                    row.a,
                    row.b,
                ));
            }
        }
        for row in &self.sources {
            if row.a != row.b {
                out.push(Difference::new(
                    format!("sources.{}", row.url),
                    &row.a,
                    &row.b,
                ));
            }
        }
        if self.notes_a != self.notes_b {
            out.push(Difference::new("notes", &self.notes_a, &self.notes_b));
        }
        out
    }

    fn sections(&self) -> Vec<crate::compare::sections::Section> {
        tables::research_tables(self)
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "research": self })
    }
}

/// The rules by which two runs of this pattern are compared.
pub(crate) struct Rules;

impl CompareRules for Rules {
    fn align(&self, a: &[Arc<Event>], b: &[Arc<Event>]) -> Alignment {
        Alignment::new(align(a, b))
    }

    fn figures(&self) -> &'static Figures {
        &super::figures::FIGURES
    }

    /// A brief comes to no verdict: the run reads as answered or not.
    fn came_to(&self, _summary: &RunSummary) -> Option<Cell> {
        None
    }
}
