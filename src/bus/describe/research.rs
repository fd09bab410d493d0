//! The research workflow's events: steps, sources, pages, notes,
//! verification and citations.

use crate::bus::ResearchEvent;
use crate::bus::{EventKind, ResearchPhase};
use crate::words::plural;

/// The event's line, when it is one of this group's.
pub(super) fn line(kind: &EventKind) -> Option<String> {
    Some(match kind {
        EventKind::Research(ResearchEvent::ResearchStepStarted(s)) => {
            format!("step {}: {}", s.step, s.phase)
        }
        EventKind::Research(ResearchEvent::ResearchStepFinished(s)) => format!(
            "step {} {} done: {}",
            s.step,
            s.phase,
            counted(s.phase, s.count)
        ),
        EventKind::Research(ResearchEvent::SourceFound(s)) => format!("#{} {}", s.rank, s.url),
        EventKind::Research(ResearchEvent::SourcesDeduped(s)) => {
            format!("{} after dedupe", plural(s.urls.len() as u64, "source"))
        }
        EventKind::Research(ResearchEvent::SourceAllowed(s)) => {
            format!("{} allowed: {}", s.domain, s.url)
        }
        EventKind::Research(ResearchEvent::SourceDenied(s)) => match &s.gated_by {
            Some(flag) => format!("{}: {} (flag {flag} off)", s.url, s.reason.as_str()),
            None => format!("{}: {}", s.url, s.reason.as_str()),
        },
        EventKind::Research(ResearchEvent::PageRead(p)) => {
            format!("{} ({}) {}", p.title, p.published_at, p.url)
        }
        EventKind::Research(ResearchEvent::NoteExtracted(n)) => format!("{} {}", n.id, n.claim),
        EventKind::Research(ResearchEvent::NotesVerified(v)) if v.ok => {
            format!("{} checked, no issue", plural(v.checked, "note"))
        }
        EventKind::Research(ResearchEvent::NotesVerified(v)) => {
            format!(
                "{} checked: {}",
                plural(v.checked, "note"),
                v.issues.join(", ")
            )
        }
        EventKind::Research(ResearchEvent::Cited(c)) => {
            format!("{} → {} ({})", c.id, c.url, c.published_at)
        }
        _ => return None,
    })
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
pub(super) fn opens_step(event: &ResearchEvent) -> bool {
    matches!(event, ResearchEvent::ResearchStepStarted(_))
}

/// The gate the event opens a step at: `round 3` opens at the gate
/// before round 3.
pub(super) fn opened_gate(event: &ResearchEvent) -> Option<(super::GateKind, u32)> {
    match event {
        ResearchEvent::ResearchStepStarted(started) => Some((super::GateKind::Step, started.step)),
        _ => None,
    }
}

/// Whether the event closes one of the pattern's steps.
pub(super) fn closes_step(event: &ResearchEvent) -> bool {
    matches!(event, ResearchEvent::ResearchStepFinished(_))
}
