//! One watched run: its spans as they came (its forest and readings, its
//! arrivals for the recording), whether it ended and how, and the limits
//! that bound every run of a watch (settle, idle, runs and spans held).

use super::forest::Forest;
use super::read::Readings;
use super::vocab::Kind;
use crate::span::{Span, SpanId, TraceId};
use serde::Serialize;
use std::time::Duration;
use tokio::time::Instant;

/// The default settle time (`--settle-ms`).
pub const DEFAULT_SETTLE_MS: u64 = 2000;
/// The default idle bound (`--idle-secs`): a run whose top span has not
/// come ends as incomplete after this long without a span. Spans arrive
/// when they end, so a run in one long model call sends nothing for as
/// long as the call takes: two minutes covers a slow reasoning model's
/// answer, and a killed run still ends while someone is watching.
pub const DEFAULT_IDLE_SECS: u64 = 120;
/// The default most runs held at once.
pub const DEFAULT_MAX_RUNS: usize = 64;
/// The default most spans kept per run.
pub const DEFAULT_MAX_SPANS: usize = 20_000;

/// The assembly's limits.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub settle: Duration,
    /// How long a run whose top has not come may go without a span
    /// before it ends as incomplete.
    pub idle: Duration,
    pub max_runs: usize,
    pub max_spans: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            settle: Duration::from_millis(DEFAULT_SETTLE_MS),
            idle: Duration::from_secs(DEFAULT_IDLE_SECS),
            max_runs: DEFAULT_MAX_RUNS,
            max_spans: DEFAULT_MAX_SPANS,
        }
    }
}

/// One span's arrival in a run's event stream: what the dashboard and
/// the recording are handed, in arrival order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Arrival {
    /// Milliseconds since the run's first span arrived.
    pub at_ms: u64,
    /// The span, as received (compact, cut to size).
    pub(crate) span: Span,
    /// What the table says it is.
    pub(crate) kind: Kind,
    /// Its parent had not arrived, neither before it nor in the same
    /// request: it hangs under a placeholder.
    pub under_placeholder: bool,
}

/// A span's arrival without the span (the run's forest holds it): what
/// the telling of it as events needs besides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Came {
    pub(crate) span: SpanId,
    pub(crate) at_ms: u64,
    pub(crate) under_placeholder: bool,
}

impl Came {
    pub(crate) fn of(arrival: &Arrival) -> Came {
        Came {
            span: arrival.span.span_id,
            at_ms: arrival.at_ms,
            under_placeholder: arrival.under_placeholder,
        }
    }
}

/// One watched run.
#[derive(Debug)]
pub struct Run {
    pub trace_id: TraceId,
    pub(crate) forest: Forest,
    /// Each kept span's reading, made once as it came: its telling as
    /// events and the run's summary at its end take it.
    pub(crate) readings: Readings,
    pub first_at: Instant,
    pub last_at: Instant,
    /// Every kept span's arrival, in order.
    pub arrivals: Vec<Arrival>,
    /// The conversation the run belongs to, if its spans name one (the
    /// first span that does); other runs may belong to it too.
    pub conversation: Option<String>,
    pub finished: bool,
    /// Why the run ended before its top span came; `None` for a run that
    /// ended whole.
    pub incomplete: Option<Incomplete>,
}

/// Why a run ended without its top span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Incomplete {
    /// No span came for the idle bound (`--idle-secs`).
    Idle,
    /// The watch stopped (a signal, or the end of its input).
    WatchStopped,
    /// Every place for a run was taken and a new trace came: the oldest
    /// run made room for it.
    MadeRoom,
}

impl Run {
    /// Whether the run ends at `now`: settled, or idle past the bound
    /// without its top (then incomplete).
    pub(super) fn ends(&self, now: Instant, limits: &Limits) -> Option<Option<Incomplete>> {
        let quiet = now.saturating_duration_since(self.last_at);
        if self.forest.rooted() {
            (quiet >= limits.settle).then_some(None)
        } else {
            (quiet >= limits.idle).then_some(Some(Incomplete::Idle))
        }
    }

    /// When the run ends if nothing more comes.
    pub(super) fn end_at(&self, limits: &Limits) -> Instant {
        let wait = if self.forest.rooted() {
            limits.settle
        } else {
            limits.idle
        };
        self.last_at.checked_add(wait).unwrap_or(self.last_at)
    }
}
