//! The first event where two runs of one scenario stop doing the same
//! thing. Events are compared one by one after the runs' starts (their
//! setups are compared as facts) on what happened, not when: the run clock
//! and what follows from it (latencies, elapsed times, deadlines, attempt
//! timeouts, backoff delays) are left out, or two runs on a real clock
//! would diverge at their first call. A round's roster is left out too: it
//! follows from the scenario and the flags, which the setup and the flag
//! changes already compare, so the runs diverge where someone first acts
//! differently (a seated analyst's first turn to speak), not where the
//! roster is announced. A model call's text as it streamed
//! (`call_delta`) is left out as well: how it was cut into deltas is a
//! matter of time, and what the text said shows in the events it led to.
//! So are the person's control of the run (`paused`, `resumed`, `stepped`,
//! `flag_changed`): pausing and stepping change when the run went on, not
//! what it did, and a flag change shows where its effect does (an analyst
//! who joins, a call refused). They are listed apart, in
//! [`Control`], with a fork's going live at its gate. Whether a call was
//! served from a cassette or made live is left out too: a fork and its
//! parent diverge where the fork first does something else. A watched
//! run's spans are left out (their ids and times are the framework's);
//! the events they led to are compared.

use super::CompareRules;
use crate::bus::describe::{describe, kind_name};
use crate::bus::{Event, EventKind};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// Fields that say where a call's answer came from rather than what the
/// run did with it: a call served from a cassette and the same call made
/// live are the same call (what it answered shows in the events it led
/// to).
const PROVENANCE: &[&str] = &["served", "record"];

/// Fields that measure time rather than say what happened.
const TIMING: &[&str] = &[
    "latency_ms",
    "elapsed_ms",
    "deadline_ms",
    "timeout_ms",
    "delay_ms",
    "first_token_ms",
    "tokens_per_s",
    // A call's record keeps when its attempt ended, for a cassette.
    "span_ms",
    "ended_us",
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

/// Whether `kind` is the control of the run rather than what the run
/// did: a person's, or a fork going live at its gate.
fn is_control(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Paused { .. }
            | EventKind::Resumed { .. }
            | EventKind::Stepped { .. }
            | EventKind::FlagChanged { .. }
            | EventKind::WentLive { .. }
    )
}

/// Whether `kind` is left out of the comparison of what the runs did: a
/// streamed text's deltas, the person's control, and the moment a fork
/// went live (which changes where its answers come from, not what they
/// are).
fn left_out(kind: &EventKind) -> bool {
    matches!(
        kind,
        // The servers' descriptions are part of the setup. A watched
        // run's span is how its framework told what happened, with ids
        // and times of its own: what it did is told by the other events
        // the span led to, as `compare --headless` compares
        // them.
        EventKind::CallDelta { .. }
            | EventKind::WentLive { .. }
            | EventKind::ToolsDescribed { .. }
            | EventKind::SpanArrived { .. }
    ) || is_control(kind)
}

/// How each run was controlled, when the runs were not controlled alike:
/// their pauses, resumes, steps and flag changes, in order. Both lists are
/// empty when the runs had the same ones (or none).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Control {
    pub a: Vec<DivergentEvent>,
    pub b: Vec<DivergentEvent>,
}

impl Control {
    pub(crate) fn is_empty(&self) -> bool {
        self.a.is_empty() && self.b.is_empty()
    }
}

/// The runs' control events, when they differ (see [`Control`]).
pub(super) fn control(a: &[Arc<Event>], b: &[Arc<Event>]) -> Control {
    fn of(events: &[Arc<Event>]) -> Vec<&Arc<Event>> {
        events.iter().filter(|e| is_control(&e.kind)).collect()
    }
    let (a, b) = (of(a), of(b));
    let alike = a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| comparable(&x.kind, None) == comparable(&y.kind, None));
    if alike {
        return Control::default();
    }
    let listed =
        |events: Vec<&Arc<Event>>| events.into_iter().map(|e| DivergentEvent::of(e)).collect();
    Control {
        a: listed(a),
        b: listed(b),
    }
}

/// The first place the runs' events differ, past their starts and
/// leaving out the control of the runs; `None` when one run did what the
/// other did, times aside.
pub(super) fn first(
    a: &[Arc<Event>],
    b: &[Arc<Event>],
    rules: &dyn CompareRules,
) -> Option<Divergence> {
    let skip = |events: &[Arc<Event>]| {
        usize::from(matches!(
            events.first().map(|e| &e.kind),
            Some(EventKind::RunStarted(_))
        ))
    };
    let said = |events: &[Arc<Event>]| -> Vec<Arc<Event>> {
        events[skip(events)..]
            .iter()
            .filter(|e| !left_out(&e.kind))
            .cloned()
            .collect()
    };
    let (a, b) = (said(a), said(b));
    let at = (0..a.len().max(b.len())).find(|&i| match (a.get(i), b.get(i)) {
        (Some(x), Some(y)) => comparable(&x.kind, Some(rules)) != comparable(&y.kind, Some(rules)),
        _ => true,
    })?;
    Some(Divergence {
        a: a.get(at).map(|e| DivergentEvent::of(e)),
        b: b.get(at).map(|e| DivergentEvent::of(e)),
    })
}

/// What an event says happened: its JSON without timing, what the
/// pattern's `rules` leave out (a round's roster), or a finished run's
/// result document (its summary and stop reason stay; the document
/// repeats the run's history).
fn comparable(kind: &EventKind, rules: Option<&dyn CompareRules>) -> Value {
    let mut value = serde_json::to_value(kind).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut value {
        for field in TIMING.iter().chain(PROVENANCE) {
            fields.remove(*field);
        }
        if let EventKind::RunFinished { .. } = kind {
            fields.remove("result");
        }
        if let Some(rules) = rules {
            rules.leave_out(kind, fields);
        }
    }
    value
}
