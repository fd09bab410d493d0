//! Reading an event: a run's finish recorded before summaries were written
//! reads with the summary its result document stands for, so old
//! recordings replay as they always did.

use super::{Event, EventKind, RunId, RunStatus};
use crate::bus::ResultDoc;
use crate::bus::summary::RunSummary;
use crate::stop::StopReason;
use serde::Deserialize;
use std::borrow::Cow;
use std::sync::Arc;

#[derive(Deserialize)]
pub(super) struct WireEvent {
    run: RunId,
    seq: u64,
    t_ms: u64,
    #[serde(flatten)]
    kind: EventKind,
}

/// An event's place and the name of its kind, read apart from the kind.
#[derive(Deserialize)]
struct Head<'a> {
    run: RunId,
    seq: u64,
    t_ms: u64,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
}

/// A run's finish, read straight from the text so that its result
/// document is kept as the text it is, never built as a tree: the enum's
/// tag makes serde buffer a kind's every field first, which for a large
/// result costs many times its size.
#[derive(Deserialize)]
struct Finished {
    status: RunStatus,
    stop_reason: StopReason,
    #[serde(default)]
    phase: Option<String>,
    #[serde(deserialize_with = "ResultDoc::deserialize_raw")]
    result: ResultDoc,
    #[serde(default)]
    summary: Box<RunSummary>,
    #[serde(default)]
    error: Option<String>,
}

impl Event {
    /// Read one event from its JSON text: its place and its kind in two
    /// looks at the text rather than one through `flatten`, which buffers
    /// every field and then the kind's again. `None` when either fails;
    /// reading it as an [`Event`] then says why.
    pub(crate) fn from_text(text: &str) -> Option<Event> {
        let head: Head = serde_json::from_str(text).ok()?;
        let kind = if head.kind == "run_finished" {
            let finished: Finished = serde_json::from_str(text).ok()?;
            EventKind::RunFinished {
                status: finished.status,
                stop_reason: finished.stop_reason,
                phase: finished.phase,
                result: Arc::new(finished.result),
                summary: finished.summary,
                error: finished.error,
            }
        } else {
            serde_json::from_str(text).ok()?
        };
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
