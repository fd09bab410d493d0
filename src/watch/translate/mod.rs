//! A watched run as the bus's events, so that the dashboard's units draw
//! it as they draw Conclave's own runs: the run's start (a swarm of the
//! agents the spans name, seated with none), each span as it arrived
//! (`span_arrived`, for the span tree only a watched run has), each model
//! call as a turn of its agent with a `call_started`/`call_finished`
//! pair carrying its tokens and cost, each tool call as a call and a
//! `tool_used`, each handoff as a transfer asked for and accepted, and
//! the run's end with the watch's own summary as its result.
//!
//! Incremental: each span is read once, at its arrival, and told once.
//! Spans arrive when they end, children before their parents, so a
//! model, tool, agent or handoff span is told as soon as the agent it
//! works for can be known: when the nearest span above it that names an
//! agent has arrived, or no span above it is still missing, or at once
//! for a model call that names its agent itself. Until then
//! it waits under the missing span, and is looked at again only when that
//! span arrives; what still waits when the run finishes is told then,
//! by the names the calls give themselves. A span's telling costs its
//! depth in the tree, never the run's size. The rules are the summary's
//! (`summary.rs`, `acting.rs`), applied in the order spans are told
//! rather than over the whole run at its end. Pure: spans in, events out.

mod calls;
mod chain;
mod read_off;
pub(crate) mod recorded;
mod seat;

use super::acting::priced;
use super::forest::Forest;
use super::read::{MessageUsage, Readings, read};
use super::runs::{Arrival, Came};
use super::summary::WatchSummary;
use super::vocab::Kind;
use crate::bus::{ClockMode, Event, EventKind, RunStarted, WatchedSpan};
use crate::scenario::{PatternKind, PriceTable};
use crate::span::{SpanId, TraceId, trace_hex};
use chain::Chain;
use read_off::{cost_word, ending_of, kind_word, missing_above};
pub(crate) use seat::{UNSEATED, WATCH_SOURCE, seat_of};
use std::collections::HashMap;
use std::sync::Arc;

/// The events of one watched run, numbered as a run's are.
pub(crate) struct Translator {
    out: Out,
    trace: TraceId,
    /// The call number of each model and tool span, given at its arrival.
    calls: HashMap<SpanId, u64>,
    next_call: u64,
    /// Spans whose agent cannot be known yet, by the missing span above
    /// them they wait for.
    waiting: HashMap<SpanId, Vec<SpanId>>,
    chain: Chain,
    /// Messages' model calls kept back until a model span tells the
    /// same call or the run ends: once a model span came, the run's
    /// calls have spans (AutoGen with its client instrumented), and a
    /// message told first would take the place of its span's call,
    /// model and price.
    held: Vec<MessageUsage>,
    /// A model span came.
    models_seen: bool,
    finished: bool,
}

/// Where the events go: numbered in order, on the run's clock.
pub(super) struct Out {
    run: crate::bus::RunId,
    seq: u64,
    t_ms: u64,
    pub(super) events: Vec<Event>,
}

impl Out {
    /// The next event at `t_ms`, or at the last one's time when that is
    /// later: a run's clock never goes back (a hook's decisions count
    /// from its first call, spans from the first span's arrival).
    pub(super) fn push(&mut self, t_ms: u64, kind: EventKind) {
        self.seq += 1;
        self.t_ms = self.t_ms.max(t_ms);
        self.events.push(Event {
            run: self.run,
            seq: self.seq,
            t_ms: self.t_ms,
            kind,
        });
    }
}

impl Translator {
    /// The translator of trace `trace`, told as run `run` of the process.
    pub(crate) fn new(run: crate::bus::RunId, trace: TraceId) -> Translator {
        Translator {
            out: Out {
                run,
                seq: 0,
                t_ms: 0,
                events: Vec::new(),
            },
            trace,
            calls: HashMap::new(),
            next_call: 0,
            waiting: HashMap::new(),
            chain: Chain::default(),
            held: Vec::new(),
            models_seen: false,
            finished: false,
        }
    }

    /// The events `arrivals` make, the spans already in `forest` (the
    /// run's, which holds every span that arrived, these included); each
    /// span's reading is made here, into `readings`.
    pub(crate) fn take(
        &mut self,
        arrivals: &[Arrival],
        forest: &Forest,
        readings: &mut Readings,
        prices: Option<&PriceTable>,
    ) -> Vec<Event> {
        for a in arrivals {
            readings.insert(a.span.span_id, Box::new(read(&a.span)));
        }
        let came: Vec<Came> = arrivals.iter().map(Came::of).collect();
        self.take_read(&came, forest, readings, prices)
    }

    /// [`Translator::take`], each span's reading made already (the watch
    /// reads a span once, as it takes it in, and its run holds the
    /// readings): `came` in the order the spans came, the spans
    /// themselves `forest`'s.
    pub(crate) fn take_read(
        &mut self,
        came: &[Came],
        forest: &Forest,
        readings: &Readings,
        prices: Option<&PriceTable>,
    ) -> Vec<Event> {
        let Some(last) = came.last() else {
            return Vec::new();
        };
        let span_of = |c: &Came| forest.get(c.span).and_then(|n| n.span.as_ref());
        if self.out.seq == 0 {
            self.start(span_of(&came[0]).map(|s| (&**s, came[0].at_ms)), forest);
        }
        let mut ready = Vec::new();
        for arrival in came {
            let id = arrival.span;
            let (Some(span), Some(reading)) = (span_of(arrival), readings.get(&id)) else {
                continue;
            };
            let kind = reading.kind();
            self.models_seen |= kind == Kind::Model;
            let call = matches!(kind, Kind::Model | Kind::Tool).then(|| {
                self.next_call += 1;
                self.calls.insert(id, self.next_call);
                self.next_call
            });
            let (cost, priced_as) = match kind {
                Kind::Model => priced(reading, prices),
                _ => (None, None),
            };
            let agent = (kind == Kind::Agent)
                .then(|| reading.agent.clone())
                .flatten();
            let (name, top) = (
                crate::sanitize::clean(&span.name).into_owned(),
                span.parent.is_none(),
            );
            let span = WatchedSpan::of(Arc::clone(span));
            self.out.push(
                arrival.at_ms,
                EventKind::SpanArrived {
                    span_kind: kind_word(kind),
                    under_placeholder: arrival.under_placeholder,
                    call,
                    cost_from: cost.map(|(_, from)| cost_word(from).to_string()),
                    priced_as,
                    name,
                    top,
                    agent,
                    span,
                },
            );
            ready.push(id);
            ready.extend(self.waiting.remove(&id).unwrap_or_default());
        }
        let mut now = Vec::new();
        for id in ready {
            match missing_above(id, forest, readings) {
                Some(missing) => self.waiting.entry(missing).or_default().push(id),
                None => now.push(id),
            }
        }
        self.tell(now, (forest, readings), prices, last.at_ms);
        std::mem::take(&mut self.out.events)
    }

    /// A steering decision made in the run at `t_ms` (on its clock), in
    /// `said`, the words the watch's screen says it. Told only while the
    /// run is going: its start comes with its first span.
    pub(crate) fn steered(
        &mut self,
        t_ms: u64,
        said: String,
        decision: serde_json::Value,
    ) -> Vec<Event> {
        if self.out.seq == 0 || self.finished {
            return Vec::new();
        }
        let said = crate::sanitize::clean(&said).into_owned();
        self.out.push(
            t_ms,
            EventKind::Steered {
                said,
                decision: Box::new(decision),
            },
        );
        std::mem::take(&mut self.out.events)
    }

    /// The run finished at `t_ms` (on its clock): what still waits is
    /// told, and the run ends with `summary`, the watch's own, as its
    /// result: `stopped` (cancelled) when a steerer stopped it, else ok.
    pub(crate) fn finish(
        &mut self,
        (forest, readings): (&Forest, &Readings),
        summary: &WatchSummary,
        prices: Option<&PriceTable>,
        t_ms: u64,
    ) -> Vec<Event> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let waiting: Vec<SpanId> = self.waiting.drain().flat_map(|(_, ids)| ids).collect();
        self.tell(waiting, (forest, readings), prices, t_ms);
        self.messages(false, t_ms);
        let result = serde_json::to_value(summary).unwrap_or_default();
        let (status, stop_reason) = ending_of(summary);
        self.out.push(
            t_ms,
            EventKind::RunFinished {
                status,
                stop_reason,
                phase: None,
                result: Arc::new(crate::bus::ResultDoc::from_value(&result)),
                summary: Box::new(crate::bus::RunSummary::of_result(&result)),
                error: None,
            },
        );
        std::mem::take(&mut self.out.events)
    }

    /// A hooked run whose hook spoke before any of its spans came (a run
    /// held at its first gate has exported nothing yet): it starts now,
    /// at `t_ms`, so that it can be stepped; its service and framework
    /// are not known yet.
    pub(crate) fn start_hooked(&mut self, t_ms: u64) -> Vec<Event> {
        if self.out.seq == 0 {
            self.start(None, &Forest::new(1));
            if let Some(first) = self.out.events.first_mut() {
                first.t_ms = t_ms;
            }
            self.out.t_ms = t_ms;
        }
        std::mem::take(&mut self.out.events)
    }

    /// Whether the run's start has been told.
    pub(crate) fn started(&self) -> bool {
        self.out.seq > 0
    }

    /// The run's first event, at its first span's arrival (or, for a
    /// hooked run, at its hook's first word).
    fn start(&mut self, first: Option<(&crate::span::Span, u64)>, forest: &Forest) {
        let span = first.map(|(s, _)| s);
        let trace = trace_hex(self.trace);
        let scenario = seat_of(span);
        let goal = scenario.goal.clone();
        let started_at_ms = forest
            .arrived()
            .map(|s| s.start_ns)
            .min()
            .or(span.map(|s| s.start_ns))
            .unwrap_or(0)
            / 1_000_000;
        self.out.push(
            first.map_or(0, |(_, at_ms)| at_ms),
            EventKind::RunStarted(RunStarted {
                pattern: PatternKind::Swarm,
                seed: 0,
                goal,
                clock: ClockMode::Real,
                flags: Vec::new(),
                source: Some(format!("{WATCH_SOURCE}{trace}")),
                started_at_ms,
                model: None,
                forked_from: None,
                scenario: Arc::new(scenario),
            }),
        );
    }

    /// Tell spans `ids`, in order of their start, at `t_ms`.
    fn tell(
        &mut self,
        mut ids: Vec<SpanId>,
        (forest, readings): (&Forest, &Readings),
        p: Option<&PriceTable>,
        t_ms: u64,
    ) {
        let start = |id: &SpanId| {
            forest
                .get(*id)
                .and_then(|n| n.span.as_ref())
                .map(|s| s.start_ns)
        };
        ids.sort_by_key(|id| (start(id), *id));
        let agents = super::acting::Agents { forest, readings };
        self.chain.mark_wrappers(&ids, &agents);
        for id in &ids {
            let Some(span) = forest.get(*id).and_then(|n| n.span.as_ref()) else {
                continue;
            };
            let call = self.calls.get(id).copied();
            self.chain.tell(span, &agents, call, p, t_ms, &mut self.out);
        }
        // A message's model calls after the spans': a model span told in
        // the same breath is matched to it, never added to it.
        for id in &ids {
            if let Some(r) = readings.get(id) {
                self.held.extend(r.message_usage.iter().cloned());
            }
        }
        self.messages(self.models_seen, t_ms);
        self.chain.quiet_turns(t_ms, &mut self.out);
    }

    /// The messages' model calls kept back, each told, matched to a
    /// model span's call, or (`hold`) kept back still.
    fn messages(&mut self, hold: bool, t_ms: u64) {
        let mut kept = Vec::new();
        for usage in std::mem::take(&mut self.held) {
            let call = self.next_call + 1;
            match self
                .chain
                .message_call(&usage, call, t_ms, &mut self.out, hold)
            {
                chain::Message::Told => self.next_call = call,
                chain::Message::Matched => {}
                chain::Message::Held => kept.push(usage),
            }
        }
        self.held = kept;
    }
}

/// How a watched run ended: `ok` and `success` when it ended whole;
/// `stopped` and `incomplete:<why>` (`incomplete:idle`) when its top
#[cfg(test)]
mod live_tests;
#[cfg(test)]
mod recorded_tests;
#[cfg(test)]
pub(crate) mod tests;
