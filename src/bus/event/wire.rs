//! Reading an event: a run's finish recorded before summaries were written
//! reads with the summary its result document stands for, so old
//! recordings replay as they always did.

use super::{Event, EventKind, RunId};
use crate::bus::summary::RunSummary;
use serde::Deserialize;

#[derive(Deserialize)]
pub(super) struct WireEvent {
    run: RunId,
    seq: u64,
    t_ms: u64,
    #[serde(flatten)]
    kind: EventKind,
}

/// An event's place, read apart from its kind.
#[derive(Deserialize)]
struct Head {
    run: RunId,
    seq: u64,
    t_ms: u64,
}

impl Event {
    /// Read one event from its JSON text: its place and its kind in two
    /// looks at the text rather than one through `flatten`, which buffers
    /// every field and then the kind's again. `None` when either fails;
    /// reading it as an [`Event`] then says why.
    pub(crate) fn from_text(text: &str) -> Option<Event> {
        let head: Head = serde_json::from_str(text).ok()?;
        let kind: EventKind = serde_json::from_str(text).ok()?;
        Some(Event::from(WireEvent {
            run: head.run,
            seq: head.seq,
            t_ms: head.t_ms,
            kind,
        }))
    }
}

impl From<WireEvent> for Event {
    fn from(wire: WireEvent) -> Event {
        let mut kind = wire.kind;
        // An empty summary is also what a run whose result holds nothing
        // typed publishes; its result then gives the same empty summary.
        if let EventKind::RunFinished {
            result, summary, ..
        } = &mut kind
            && **summary == RunSummary::default()
        {
            **summary = RunSummary::of_result(result);
        }
        Event {
            run: wire.run,
            seq: wire.seq,
            t_ms: wire.t_ms,
            kind,
        }
    }
}
