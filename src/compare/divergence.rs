//! The first event where two runs of one scenario stop doing the same
//! thing. Events are compared one by one after the runs' starts (their
//! setups are compared as facts) on what happened, not when: the run clock
//! and what follows from it (latencies, elapsed times, deadlines, attempt
//! timeouts, backoff delays) are left out, or two runs on a real clock
//! would diverge at their first call. A round's roster is left out too: it
//! follows from the scenario and the flags, which the setup and the flag
//! changes already compare, so the runs diverge where someone first acts
//! differently (a seated analyst's first contribution), not where the
//! roster is announced. A model call's text as it streamed
//! (`call_delta`) is left out as well: how it was cut into deltas is a
//! matter of time, and what the text said shows in the events it led to.

use crate::bus::describe::{describe, kind_name};
use crate::bus::{Event, EventKind};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// Fields that measure time rather than say what happened.
const TIMING: &[&str] = &[
    "latency_ms",
    "elapsed_ms",
    "deadline_ms",
    "timeout_ms",
    "delay_ms",
    "first_token_ms",
    "tokens_per_s",
];

/// Where the runs diverge: the event each has at that place, or `null`
/// for a run that ended there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    pub a: Option<DivergentEvent>,
    pub b: Option<DivergentEvent>,
}

/// An event named for a person: its seq (its place in its recording), its
/// time, its kind and what it says.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DivergentEvent {
    pub(crate) seq: u64,
    pub(crate) t_ms: u64,
    pub kind: &'static str,
    pub description: String,
}

impl DivergentEvent {
    fn of(event: &Event) -> DivergentEvent {
        DivergentEvent {
            seq: event.seq,
            t_ms: event.t_ms,
            kind: kind_name(&event.kind),
            description: describe(&event.kind),
        }
    }
}

/// The first place the runs' events differ, past their starts; `None`
/// when one run's events are the other's, times aside.
pub(super) fn first(a: &[Arc<Event>], b: &[Arc<Event>]) -> Option<Divergence> {
    let skip = |events: &[Arc<Event>]| {
        usize::from(matches!(
            events.first().map(|e| &e.kind),
            Some(EventKind::RunStarted(_))
        ))
    };
    let said = |events: &[Arc<Event>]| -> Vec<Arc<Event>> {
        events[skip(events)..]
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::CallDelta { .. }))
            .cloned()
            .collect()
    };
    let (a, b) = (said(a), said(b));
    let at = (0..a.len().max(b.len())).find(|&i| match (a.get(i), b.get(i)) {
        (Some(x), Some(y)) => comparable(&x.kind) != comparable(&y.kind),
        _ => true,
    })?;
    Some(Divergence {
        a: a.get(at).map(|e| DivergentEvent::of(e)),
        b: b.get(at).map(|e| DivergentEvent::of(e)),
    })
}

/// What an event says happened: its JSON without timing, a round's
/// roster, or a finished run's result document (its summary and stop
/// reason stay; the document repeats the run's history).
fn comparable(kind: &EventKind) -> Value {
    let mut value = serde_json::to_value(kind).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut value {
        for field in TIMING {
            fields.remove(*field);
        }
        match kind {
            EventKind::RoundStarted { .. } => {
                fields.remove("speakers");
            }
            EventKind::RunFinished { .. } => {
                fields.remove("result");
            }
            _ => {}
        }
    }
    value
}
