//! The research pattern's state: the six steps of the workflow, the
//! sources from search to reading, the notes with their provenance and the
//! answer's citations, folded from the research events and the run's end.

use crate::bus::{EventKind, RunStatus, RunSummary};
use crate::patterns::events::PatternEvent;
use crate::patterns::events::ResearchEvent;
use crate::patterns::events::{ResearchPhase, SourceDenial};
use crate::patterns::research::figures::CITATIONS;
use crate::scenario::url_domain;
use crate::stop::StopReason;
use crate::tui::patterns::folding::Fold;
use crate::tui::state::outcome::Outcome;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Research {
    /// One per step, in workflow order (`ResearchPhase::ALL`).
    pub(crate) steps: [StepState; 6],
    /// The step that began last.
    pub current: Option<ResearchPhase>,
    /// Candidates the search returned.
    pub(crate) found: usize,
    /// The candidates after dedupe, in the order they are considered.
    pub sources: Vec<SourceView>,
    pub(crate) notes: Vec<NoteView>,
    pub(crate) verification: Option<Verification>,
    /// Ids of the notes the accepted answer cites, in note order.
    pub(crate) cited: Vec<String>,
    /// The accepted answer and its citations as written, once the run ends.
    pub(crate) answer: Option<String>,
    pub(crate) citations: Vec<String>,
    /// The run has ended.
    pub(crate) ended: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum StepState {
    #[default]
    Pending,
    Running,
    /// With the step's headline count.
    Done {
        count: u64,
    },
    Failed {
        reason: StopReason,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct SourceView {
    pub(crate) url: String,
    pub(crate) domain: String,
    pub status: SourceStatus,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SourceStatus {
    /// Not reached: the run stopped or a budget ran out first.
    Waiting,
    /// Passed the domain checks; being read (never read, once the run
    /// has ended).
    Allowed,
    Read {
        title: String,
        published_at: String,
        notes: usize,
    },
    Denied {
        reason: SourceDenial,
        gated_by: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NoteView {
    pub(crate) id: String,
    pub(crate) url: String,
    pub(crate) domain: String,
    pub(crate) title: String,
    pub(crate) published_at: String,
    pub(crate) claim: String,
    pub(crate) quote: String,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Verification {
    pub(crate) checked: u64,
    pub(crate) ok: bool,
    pub(crate) issues: Vec<String>,
}

/// The pipeline's counts: found → after dedupe → read → notes → cited,
/// and the denied sources.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) found: usize,
    pub(crate) deduped: usize,
    pub(crate) read: usize,
    pub(crate) notes: usize,
    pub(crate) cited: usize,
    pub(crate) denied: usize,
}

impl Research {
    pub fn step(&self, phase: ResearchPhase) -> &StepState {
        &self.steps[phase.step() as usize - 1]
    }

    fn step_mut(&mut self, phase: ResearchPhase) -> &mut StepState {
        &mut self.steps[phase.step() as usize - 1]
    }

    fn source_mut(&mut self, url: &str) -> Option<&mut SourceView> {
        self.sources.iter_mut().find(|s| s.url == url)
    }

    pub(crate) fn counts(&self) -> Counts {
        let count = |pick: fn(&SourceStatus) -> bool| {
            self.sources.iter().filter(|s| pick(&s.status)).count()
        };
        Counts {
            found: self.found,
            deduped: self.sources.len(),
            read: count(|s| matches!(s, SourceStatus::Read { .. })),
            notes: self.notes.len(),
            cited: self.cited.len(),
            denied: count(|s| matches!(s, SourceStatus::Denied { .. })),
        }
    }

    /// The note with id `id`.
    pub(crate) fn note(&self, id: &str) -> Option<&NoteView> {
        self.notes.iter().find(|n| n.id == id)
    }

    /// Fold one research event; others are ignored.
    fn fold(&mut self, kind: &EventKind) {
        match kind {
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepStarted(s))) => {
                *self.step_mut(s.phase) = StepState::Running;
                self.current = Some(s.phase);
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepFinished(s))) => {
                *self.step_mut(s.phase) = StepState::Done { count: s.count };
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceFound(_))) => {
                self.found += 1
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourcesDeduped(d))) => {
                self.sources = d
                    .urls
                    .iter()
                    .map(|url| SourceView {
                        url: url.clone(),
                        domain: url_domain(url),
                        status: SourceStatus::Waiting,
                    })
                    .collect();
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceAllowed(a))) => {
                if let Some(source) = self.source_mut(&a.url) {
                    source.status = SourceStatus::Allowed;
                }
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceDenied(d))) => {
                if let Some(source) = self.source_mut(&d.url) {
                    source.status = SourceStatus::Denied {
                        reason: d.reason,
                        gated_by: d.gated_by.clone(),
                    };
                }
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::PageRead(p))) => {
                if let Some(source) = self.source_mut(&p.url) {
                    source.status = SourceStatus::Read {
                        title: p.title.clone(),
                        published_at: p.published_at.clone(),
                        notes: 0,
                    };
                }
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::NoteExtracted(n))) => {
                if let Some(SourceView {
                    status: SourceStatus::Read { notes, .. },
                    ..
                }) = self.source_mut(&n.url)
                {
                    *notes += 1;
                }
                self.notes.push(NoteView {
                    id: n.id.clone(),
                    url: n.url.clone(),
                    domain: url_domain(&n.url),
                    title: n.title.clone(),
                    published_at: n.published_at.clone(),
                    claim: n.claim.clone(),
                    quote: n.quote.clone(),
                });
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::NotesVerified(v))) => {
                self.verification = Some(Verification {
                    checked: v.checked,
                    ok: v.ok,
                    issues: v.issues.clone(),
                });
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::Cited(c))) => {
                self.cited.push(c.id.clone())
            }
            _ => {}
        }
    }

    /// The run ended: the step it stopped in failed; a step still running
    /// when it was cut short did not finish; an answer is kept.
    fn end(
        &mut self,
        status: RunStatus,
        stop_reason: &StopReason,
        phase: Option<&str>,
        summary: &RunSummary,
    ) {
        self.ended = true;
        if status == RunStatus::Stopped
            && let Some(phase) = phase.and_then(ResearchPhase::parse).or(self.current)
        {
            *self.step_mut(phase) = StepState::Failed {
                reason: stop_reason.clone(),
            };
        }
        for step in &mut self.steps {
            if *step == StepState::Running {
                *step = StepState::Failed {
                    reason: stop_reason.clone(),
                };
            }
        }
        self.answer = summary.answer().map(str::to_string);
        self.citations = summary.read(CITATIONS).unwrap_or_default();
    }
}

impl Fold for Research {
    fn apply(&mut self, kind: &EventKind, _t_ms: u64) {
        self.fold(kind);
    }

    fn close(&mut self, outcome: &Outcome) {
        self.end(
            outcome.status,
            &outcome.stop_reason,
            outcome.phase.as_deref(),
            &outcome.summary,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::events::PatternEvent;
    use crate::patterns::events::{
        NoteExtracted, NotesVerified, PageRead, SourceAllowed, SourceDenied, SourceFound,
        SourcesDeduped, StepFinished, StepStarted,
    };
    use crate::patterns::research::stops::ResearchStop;

    fn fold(kinds: &[EventKind]) -> Research {
        let mut research = Research::default();
        for kind in kinds {
            research.fold(kind);
        }
        research
    }

    fn read_step() -> Vec<EventKind> {
        let url = |s: &str| format!("https://{s}.example/x");
        vec![
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepStarted(
                StepStarted {
                    step: 3,
                    phase: ResearchPhase::Dedupe,
                },
            ))),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceFound(
                SourceFound {
                    rank: 1,
                    url: url("a"),
                    title: "A".into(),
                },
            ))),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceFound(
                SourceFound {
                    rank: 2,
                    url: url("A"),
                    title: "A again".into(),
                },
            ))),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourcesDeduped(
                SourcesDeduped {
                    urls: vec![url("a"), url("b"), url("c")],
                },
            ))),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepFinished(
                StepFinished {
                    step: 3,
                    phase: ResearchPhase::Dedupe,
                    count: 3,
                },
            ))),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepStarted(
                StepStarted {
                    step: 4,
                    phase: ResearchPhase::ReadExtract,
                },
            ))),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceDenied(
                SourceDenied {
                    url: url("a"),
                    domain: "a.example".into(),
                    reason: SourceDenial::Execution,
                    gated_by: Some("a_reads".into()),
                },
            ))),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceAllowed(
                SourceAllowed {
                    url: url("b"),
                    domain: "b.example".into(),
                },
            ))),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::PageRead(PageRead {
                url: url("b"),
                title: "B".into(),
                published_at: "2026-03-07".into(),
            }))),
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::NoteExtracted(
                NoteExtracted {
                    id: "n1".into(),
                    url: url("b"),
                    title: "B".into(),
                    published_at: "2026-03-07".into(),
                    claim: "B says so.".into(),
                    quote: "A quote long enough.".into(),
                },
            ))),
        ]
    }

    #[test]
    fn the_read_step_folds_into_sources_notes_and_counts() {
        let research = fold(&read_step());
        assert_eq!(research.current, Some(ResearchPhase::ReadExtract));
        assert_eq!(
            research.step(ResearchPhase::Dedupe),
            &StepState::Done { count: 3 }
        );
        assert_eq!(
            research.step(ResearchPhase::ReadExtract),
            &StepState::Running
        );
        assert_eq!(
            research.sources[0].status,
            SourceStatus::Denied {
                reason: SourceDenial::Execution,
                gated_by: Some("a_reads".into())
            }
        );
        assert!(matches!(
            research.sources[1].status,
            SourceStatus::Read { notes: 1, .. }
        ));
        assert_eq!(research.sources[2].status, SourceStatus::Waiting);
        assert_eq!(research.notes[0].domain, "b.example");
        assert_eq!(
            research.counts(),
            Counts {
                found: 2,
                deduped: 3,
                read: 1,
                notes: 1,
                cited: 0,
                denied: 1
            }
        );
    }

    #[test]
    fn the_end_marks_the_failed_step_and_keeps_the_answer() {
        let mut events = read_step();
        events.push(EventKind::Pattern(PatternEvent::Research(
            ResearchEvent::NotesVerified(NotesVerified {
                checked: 1,
                ok: false,
                issues: vec!["stale_source".into()],
            }),
        )));
        let mut research = fold(&events);
        let reason = StopReason::from(ResearchStop::VerificationFailed {
            issue: "stale_source".into(),
        });
        research.end(
            RunStatus::Stopped,
            &reason,
            Some("verify"),
            &RunSummary::default(),
        );
        assert_eq!(
            research.step(ResearchPhase::Verify),
            &StepState::Failed {
                reason: reason.clone()
            }
        );
        assert_eq!(
            research.step(ResearchPhase::ReadExtract),
            &StepState::Failed { reason },
            "a step left running did not finish"
        );
        assert!(!research.verification.unwrap().ok);

        let mut research = fold(&read_step());
        research.end(RunStatus::Ok, &StopReason::Success, None, &{
            let mut summary = RunSummary::default();
            summary.set_answer(Some("B.".into()));
            summary.put(CITATIONS, ["n1", "n1"]);
            summary
        });
        assert_eq!(research.answer.as_deref(), Some("B."));
        assert_eq!(research.citations, ["n1", "n1"]);
        assert_eq!(research.note("n1").unwrap().title, "B");
    }
}
