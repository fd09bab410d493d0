//! Events to spans: one run's events, in seq order, become the spans of
//! one trace, each handed over as soon as it is finished. A pure state
//! machine over [`Event`]s (a live run's and a recording's are the same),
//! with no clock, no I/O and no OpenTelemetry type; times are the run's
//! own `t_ms`, placed on its wall-clock start, and within one millisecond
//! ordered as the bus ordered the events (the `tick`), so that spans a
//! run began in one millisecond keep their order in any viewer that
//! sorts by start time (parallel calls, a graph's parallel nodes).
//! What a pattern's events
//! make of the trace is the pattern's own ([`Shapes`]), handed in from
//! above.

mod book;
mod calls;
mod chat;
mod shape;
mod spans;
#[cfg(test)]
mod tests;
mod tools;

pub(crate) use shape::Shapes;
pub use shape::TraceShapes;
pub(crate) use spans::TraceSpans;

use super::names as n;
use super::span::{AttrValue, Attrs, FinishedSpan, SpanEvent, SpanNo, SpanStatus};
use crate::bus::{Event, EventKind, RunStarted};
use crate::scenario::PatternKind;
use calls::Calls;
use serde::Serialize;
use std::collections::BTreeMap;

/// The root span's number.
pub(crate) const ROOT: SpanNo = 1;

/// One run's trace as it is built.
#[derive(Debug)]
pub(crate) struct TraceBuilder {
    /// Model prompts and outputs go into the trace (`--otlp-content`).
    content: bool,
    /// The run's wall-clock start, ms since the Unix epoch.
    start_ms: u64,
    /// The latest `t_ms` seen.
    last_t: u64,
    /// The current event's `t_ms` and how many events came before it in
    /// that millisecond: the nanoseconds a span or span event it makes is
    /// placed at past the millisecond (at most [`MAX_RANK`]).
    tick: Option<(u64, u64)>,
    next_no: SpanNo,
    open: BTreeMap<SpanNo, OpenSpan>,
    pattern: Option<PatternKind>,
    /// Who serves the run's model calls and which model, when known.
    provider: Option<String>,
    model: Option<String>,
    /// Who answered the calls a fork serves, and which model, when not
    /// the run's own (its parent's).
    served_by: Option<(String, String)>,
    /// What the run's pattern events make of the trace.
    shapes: Box<dyn Shapes>,
    /// Spans ended since the shapes were last told.
    ended_spans: Vec<SpanNo>,
    calls: Calls,
    finished: Vec<FinishedSpan>,
    /// The run's last event was seen; later events are ignored.
    ended: bool,
}

#[derive(Debug)]
struct OpenSpan {
    parent: Option<SpanNo>,
    name: String,
    start_t: u64,
    attrs: Attrs,
    events: Vec<SpanEvent>,
    status: SpanStatus,
    /// The span's own work ended then, but it waits for the work it asked
    /// for (an agent's tool or member calls): it ends with the last of its
    /// children, whenever it is closed.
    done_at: Option<u64>,
    /// When the latest of its children ended.
    last_child_end: u64,
    /// The start's nanoseconds past its millisecond.
    start_rank: u64,
    /// When the latest of its children ended, in wall-clock nanoseconds.
    last_child_end_ns: u64,
}

/// The most nanoseconds an event's rank adds to its millisecond, so that
/// a time never reaches the next millisecond.
const MAX_RANK: u64 = 999_999;

impl TraceBuilder {
    pub(crate) fn new(content: bool, shapes: TraceShapes) -> Self {
        TraceBuilder {
            content,
            start_ms: 0,
            last_t: 0,
            tick: None,
            next_no: ROOT,
            open: BTreeMap::new(),
            pattern: None,
            provider: None,
            model: None,
            served_by: None,
            shapes: shapes.for_run(),
            ended_spans: Vec::new(),
            calls: Calls::default(),
            finished: Vec::new(),
            ended: false,
        }
    }

    /// Whether the run's finish was seen: every span is handed over.
    pub(crate) fn is_done(&self) -> bool {
        self.ended
    }

    /// Fold in the run's next event; the spans it finished.
    pub(crate) fn apply(&mut self, event: &Event) -> Vec<FinishedSpan> {
        if self.ended {
            return Vec::new();
        }
        self.tick = Some(match self.tick {
            Some((t, rank)) if t == event.t_ms => (t, rank.saturating_add(1).min(MAX_RANK)),
            _ => (event.t_ms, 0),
        });
        if let EventKind::RunStarted(started) = &event.kind {
            if self.open.contains_key(&ROOT) {
                return Vec::new();
            }
            self.start(started, event);
            return std::mem::take(&mut self.finished);
        }
        // A recording that lost its first line has nothing to hang spans on.
        if !self.open.contains_key(&ROOT) {
            return Vec::new();
        }
        self.last_t = self.last_t.max(event.t_ms);
        let t = event.t_ms;
        match &event.kind {
            EventKind::RunFinished {
                status,
                stop_reason,
                summary,
                error,
                result,
                ..
            } => {
                let root = self.span(ROOT);
                root.attrs.set(n::STATUS, wire(status));
                root.attrs.set(n::STOP_REASON, stop_reason.to_string());
                // The verdict as its pattern wrote it: a word, or the
                // agent that answered.
                for (value, attribute) in [
                    ("decision", n::DECISION),
                    ("health", n::HEALTH),
                    ("final_agent", n::FINAL_AGENT),
                ] {
                    if let Some(text) = summary.text(value) {
                        root.attrs.set(attribute, text);
                    }
                }
                if *status == crate::bus::RunStatus::Stopped {
                    root.status = SpanStatus::Error(match error {
                        Some(words) => format!("{stop_reason}: {words}"),
                        None => stop_reason.to_string(),
                    });
                    root.attrs.set(n::ERROR_TYPE, error_type(stop_reason));
                }
                if self.content {
                    let answer = summary.answer().map(str::to_string).or_else(|| {
                        result
                            .get("final_answer")
                            .and_then(|v| v.as_str())
                            .map(str::to_string)
                    });
                    if let Some(answer) = answer {
                        self.content_event(ROOT, t, n::OUTPUT_MESSAGES, "assistant", &answer);
                    }
                }
                self.end_all(t);
            }
            kind => {
                if !self.apply_call(kind, t) {
                    self.apply_shape(kind, t);
                }
            }
        }
        self.forget_ended();
        std::mem::take(&mut self.finished)
    }

    /// The recording ended without the run's finish: every span still
    /// open ends at the last moment seen.
    pub(crate) fn finish(&mut self) -> Vec<FinishedSpan> {
        if !self.ended && self.open.contains_key(&ROOT) {
            let t = self.last_t;
            self.span(ROOT).status =
                SpanStatus::Error("the run's events end before its finish".into());
            self.end_all(t);
        }
        self.ended = true;
        std::mem::take(&mut self.finished)
    }

    fn start(&mut self, started: &RunStarted, event: &Event) {
        self.start_ms = started.started_at_ms;
        self.last_t = event.t_ms;
        self.pattern = Some(started.pattern);
        if let Some(model) = &started.model {
            self.provider = Some(provider_name(model.provider).to_string());
            self.model = Some(model.name.clone());
        }
        self.served_by = chat::served_by(started);
        let scenario = &started.scenario.name;
        let mut attrs = Attrs::default()
            .with(n::OPERATION_NAME, n::OP_INVOKE_WORKFLOW)
            .with(n::SCENARIO, scenario.as_str())
            .with(n::PATTERN, wire(&started.pattern))
            .with(n::SEED, started.seed)
            .with(n::CLOCK, wire(&started.clock))
            .with(n::RUN, event.run)
            .with(
                n::FLAGS,
                AttrValue::List(
                    started
                        .flags
                        .iter()
                        .map(|f| format!("{}={}", f.name, if f.on { "on" } else { "off" }))
                        .collect(),
                ),
            );
        if let Some(source) = &started.source {
            attrs.set(n::SOURCE, source.as_str());
        }
        if let (Some(provider), Some(model)) = (&self.provider, &self.model) {
            attrs.set(n::PROVIDER_NAME, provider.as_str());
            attrs.set(n::REQUEST_MODEL, model.as_str());
        }
        let root = self.open_span(
            None,
            format!("{} {scenario}", n::OP_INVOKE_WORKFLOW),
            event.t_ms,
        );
        self.span(root).attrs = attrs;
        if self.content {
            self.content_event(ROOT, event.t_ms, n::INPUT_MESSAGES, "user", &started.goal);
        }
    }
}

/// A value's name on the wire (`go_with_caution`, `half_open`), as the
/// recording writes it.
pub(crate) fn wire<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// `error.type` for a stop reason: its name without the tool or agent it
/// names (`circuit_open`, `worker_error`), and every kind of timeout as
/// `timeout`, so that the value stays low in cardinality.
fn error_type(reason: &crate::stop::StopReason) -> String {
    match reason {
        timeout if timeout.is_timeout() => "timeout".into(),
        other => {
            let text = other.to_string();
            match text.split_once(':') {
                Some((kind, _)) => kind.to_string(),
                None => text,
            }
        }
    }
}

/// `gen_ai.provider.name` for a provider kind: the conventions' name for
/// OpenAI, Conclave's own for its simulated model.
fn provider_name(kind: crate::scenario::ProviderKind) -> &'static str {
    match kind {
        crate::scenario::ProviderKind::Openai => "openai",
        crate::scenario::ProviderKind::Sim => SIM_PROVIDER,
    }
}

/// `gen_ai.provider.name` of Conclave's simulated model.
const SIM_PROVIDER: &str = "conclave.sim";
