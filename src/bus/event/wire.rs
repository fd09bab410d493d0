//! Reading an event: a run's finish recorded before summaries were written
//! reads with the summary its result document stands for, so old
//! recordings replay as they always did.

use super::named::{Named, read_named};
use super::{
    ClockMode, Event, EventKind, FlagState, PatternKind, RunId, RunModel, RunStarted, RunStatus,
};
use crate::bus::ResultDoc;
use crate::bus::pattern::PatternPayload;
use crate::bus::summary::RunSummary;
use crate::stop::StopReason;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;

#[derive(Deserialize)]
#[serde(bound(deserialize = "P: PatternPayload"))]
pub(super) struct WireEvent<P> {
    run: RunId,
    seq: u64,
    t_ms: u64,
    #[serde(flatten)]
    kind: EventKind<P>,
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
struct Finished<'a> {
    status: RunStatus,
    stop_reason: StopReason,
    #[serde(default)]
    phase: Option<String>,
    #[serde(borrow)]
    result: &'a RawValue,
    #[serde(default)]
    summary: Box<RunSummary>,
    #[serde(default)]
    error: Option<String>,
}

/// A run's start read straight from the text, its scenario as the loader
/// reads a file (see [`crate::scenario::recorded`]): through the enum's
/// tag, a recorded plan of 100,000 tasks is buffered and built as a tree.
/// The fields of [`RunStarted`], the scenario left as text.
#[derive(Deserialize)]
struct Started<'a> {
    pattern: PatternKind,
    seed: u64,
    goal: String,
    clock: ClockMode,
    flags: Vec<FlagState>,
    #[serde(default)]
    source: Option<String>,
    started_at_ms: u64,
    #[serde(default)]
    model: Option<RunModel>,
    #[serde(default)]
    forked_from: Option<crate::bus::cassette::ForkedFrom>,
    #[serde(borrow)]
    scenario: &'a RawValue,
}

impl Started<'_> {
    fn read(self) -> Option<RunStarted> {
        let scenario = crate::scenario::recorded(self.scenario.get().to_string()).ok()?;
        Some(RunStarted {
            pattern: self.pattern,
            seed: self.seed,
            goal: self.goal,
            clock: self.clock,
            flags: self.flags,
            source: self.source,
            started_at_ms: self.started_at_ms,
            model: self.model,
            forked_from: self.forked_from,
            scenario: Arc::new(scenario),
        })
    }
}

impl<P: PatternPayload> Event<P> {
    /// Read one event from its JSON text: its place and its kind in two
    /// looks at the text rather than one through `flatten`, which buffers
    /// every field and then the kind's again. `None` when either fails;
    /// reading it as an [`Event`] then says why.
    pub(crate) fn from_text(text: &str) -> Option<Event<P>> {
        let head: Head = serde_json::from_str(text).ok()?;
        let kind = if head.kind == "run_started" {
            let started: Started = serde_json::from_str(text).ok()?;
            EventKind::RunStarted(started.read()?)
        } else if head.kind == "run_finished" {
            let finished: Finished = serde_json::from_str(text).ok()?;
            let result = ResultDoc::read(finished.result);
            finished.ending().kind(result)
        } else {
            read_named(Named {
                kind: &head.kind,
                text,
            })
            .ok()?
        };
        Some(Event::from(WireEvent {
            run: head.run,
            seq: head.seq,
            t_ms: head.t_ms,
            kind,
        }))
    }

    /// [`Event::from_text`] for a line the caller gives up: a run's finish
    /// keeps its result in the line's own memory rather than a copy. The
    /// line back when it holds no event.
    pub(crate) fn from_line(line: String) -> Result<Event<P>, String> {
        let head = serde_json::from_str::<Head>(&line).ok();
        let Some(Head {
            run,
            seq,
            t_ms,
            kind,
        }) = head
        else {
            return Err(line);
        };
        if kind != "run_finished" {
            return Event::from_text(&line).ok_or(line);
        }
        let Ok(finished) = serde_json::from_str::<Finished>(&line) else {
            return Err(line);
        };
        let text = finished.result.get();
        let at = text.as_ptr() as usize - line.as_ptr() as usize;
        let span = at..at + text.len();
        let ending = finished.ending();
        let kind = ending.kind(ResultDoc::within(line, span));
        Ok(Event::from(WireEvent {
            run,
            seq,
            t_ms,
            kind,
        }))
    }
}

/// A run's finish without its result, which is read apart.
struct Ending {
    status: RunStatus,
    stop_reason: StopReason,
    phase: Option<String>,
    summary: Box<RunSummary>,
    error: Option<String>,
}

impl Finished<'_> {
    fn ending(self) -> Ending {
        Ending {
            status: self.status,
            stop_reason: self.stop_reason,
            phase: self.phase,
            summary: self.summary,
            error: self.error,
        }
    }
}

impl Ending {
    fn kind<P>(self, result: ResultDoc) -> EventKind<P> {
        EventKind::RunFinished {
            status: self.status,
            stop_reason: self.stop_reason,
            phase: self.phase,
            result: Arc::new(result),
            summary: self.summary,
            error: self.error,
        }
    }
}

impl<P> From<WireEvent<P>> for Event<P> {
    fn from(wire: WireEvent<P>) -> Event<P> {
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
