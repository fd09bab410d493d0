//! The research workflow's events: steps, sources, pages, notes,
//! verification and citations.

use crate::bus::{EventKind, ResearchPhase};
use crate::words::plural;

/// The event's line, when it is one of this group's.
pub(super) fn line(kind: &EventKind) -> Option<String> {
    Some(match kind {
        EventKind::ResearchStepStarted(s) => format!("step {}: {}", s.step, s.phase),
        EventKind::ResearchStepFinished(s) => format!(
            "step {} {} done: {}",
            s.step,
            s.phase,
            counted(s.phase, s.count)
        ),
        EventKind::SourceFound(s) => format!("#{} {}", s.rank, s.url),
        EventKind::SourcesDeduped(s) => {
            format!("{} after dedupe", plural(s.urls.len() as u64, "source"))
        }
        EventKind::SourceAllowed(s) => format!("{} allowed: {}", s.domain, s.url),
        EventKind::SourceDenied(s) => match &s.gated_by {
            Some(flag) => format!("{}: {} (flag {flag} off)", s.url, s.reason.as_str()),
            None => format!("{}: {}", s.url, s.reason.as_str()),
        },
        EventKind::PageRead(p) => format!("{} ({}) {}", p.title, p.published_at, p.url),
        EventKind::NoteExtracted(n) => format!("{} {}", n.id, n.claim),
        EventKind::NotesVerified(v) if v.ok => {
            format!("{} checked, no issue", plural(v.checked, "note"))
        }
        EventKind::NotesVerified(v) => {
            format!(
                "{} checked: {}",
                plural(v.checked, "note"),
                v.issues.join(", ")
            )
        }
        EventKind::Cited(c) => format!("{} → {} ({})", c.id, c.url, c.published_at),
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
