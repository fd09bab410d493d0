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
