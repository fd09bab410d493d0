//! The research workflow's event lines, for the event log and its
//! filter: steps, sources, pages, notes, verification and citations.

use super::events::{ResearchEvent, ResearchPhase};
use crate::bus::cassette::Measure;
use crate::bus::event::values::GateKind;
use crate::words::plural;

/// The event's line.
pub(crate) fn line(event: &ResearchEvent) -> String {
    match event {
        ResearchEvent::ResearchStepStarted(s) => {
            format!("step {}: {}", s.step, s.phase)
        }
        ResearchEvent::ResearchStepFinished(s) => format!(
            "step {} {} done: {}",
            s.step,
            s.phase,
            counted(s.phase, s.count)
        ),
        ResearchEvent::SourceFound(s) => format!("#{} {}", s.rank, s.url),
        ResearchEvent::SourcesDeduped(s) => {
            format!("{} after dedupe", plural(s.urls.len() as u64, "source"))
        }
        ResearchEvent::SourceAllowed(s) => {
            format!("{} allowed: {}", s.domain, s.url)
        }
        ResearchEvent::SourceDenied(s) => match &s.gated_by {
            Some(flag) => format!("{}: {} (flag {flag} off)", s.url, s.reason.as_str()),
            None => format!("{}: {}", s.url, s.reason.as_str()),
        },
        ResearchEvent::PageRead(p) => {
            format!("{} ({}) {}", p.title, p.published_at, p.url)
        }
        ResearchEvent::NoteExtracted(n) => format!("{} {}", n.id, n.claim),
        ResearchEvent::NotesVerified(v) if v.ok => {
            format!("{} checked, no issue", plural(v.checked, "note"))
        }
        ResearchEvent::NotesVerified(v) => {
            format!(
                "{} checked: {}",
                plural(v.checked, "note"),
                v.issues.join(", ")
            )
        }
        ResearchEvent::Cited(c) => {
            format!("{} → {} ({})", c.id, c.url, c.published_at)
        }
    }
}

/// A research step's headline count, with what it counts.
fn counted(phase: ResearchPhase, count: u64) -> String {
    match phase {
        ResearchPhase::Plan => plural(count, "step"),
        ResearchPhase::Search => plural(count, "candidate"),
        ResearchPhase::Dedupe => plural(count, "source"),
        ResearchPhase::ReadExtract => plural(count, "note"),
        ResearchPhase::Verify => format!("{count} checked"),
        ResearchPhase::Synthesize => plural(count, "citation"),
    }
}

/// Whether the event opens one of the pattern's steps: a step of the workflow.
pub(crate) fn opens_step(event: &ResearchEvent) -> bool {
    matches!(event, ResearchEvent::ResearchStepStarted(_))
}

/// The gate the event opens a step at: `step 3` opens at the gate
/// before step 3.
pub(crate) fn opened_gate(event: &ResearchEvent) -> Option<(GateKind, u32)> {
    match event {
        ResearchEvent::ResearchStepStarted(started) => Some((GateKind::Step, started.step)),
        _ => None,
    }
}

/// What the event measured: the run time a step ended at.
pub(crate) fn measured(event: &ResearchEvent, t_ms: u64) -> Option<(Measure, u64)> {
    match event {
        ResearchEvent::ResearchStepFinished(step) => Some((Measure::StepEnded(step.step), t_ms)),
        _ => None,
    }
}

/// Whether the event closes one of the pattern's steps.
pub(crate) fn closes_step(event: &ResearchEvent) -> bool {
    matches!(event, ResearchEvent::ResearchStepFinished(_))
}
