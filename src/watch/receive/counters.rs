//! The receiver's live counts: what it accepted, refused (by answer) and
//! forwarded, in all and per `--forward` target. Atomics, so that counting
//! never waits on a lock (only a failed forward takes one, to keep why).

use serde::Serialize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a request was refused; each is one answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// 400 / `INVALID_ARGUMENT`: a body that does not decode.
    BadRequest,
    /// 401 / `UNAUTHENTICATED`: no token or the wrong one.
    Unauthorized,
    /// 404 or 405: another path or method than `POST /v1/traces`.
    NotFound,
    /// 408: headers or body not sent in time.
    Timeout,
    /// 413 / `RESOURCE_EXHAUSTED`: a body over the limit.
    TooLarge,
    /// 415: another content type or encoding.
    Unsupported,
    /// 429 / `RESOURCE_EXHAUSTED` with a retry hint: the queue was full.
    QueueFull,
    /// 503 / `UNAVAILABLE`: the consumer has stopped.
    Unavailable,
}

const REFUSALS: usize = 8;

impl Refusal {
    /// The HTTP status the refusal is answered with.
    pub fn status(self) -> u16 {
        match self {
            Refusal::BadRequest => 400,
            Refusal::Unauthorized => 401,
            Refusal::NotFound => 404,
            Refusal::Timeout => 408,
            Refusal::TooLarge => 413,
            Refusal::Unsupported => 415,
            Refusal::QueueFull => 429,
            Refusal::Unavailable => 503,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

#[derive(Debug, Default)]
pub(super) struct Counters {
    /// Each `--forward` target's own counts, in the order given.
    targets: Vec<TargetCounter>,
    requests_accepted: AtomicU64,
    spans_accepted: AtomicU64,
    spans_rejected: AtomicU64,
    spans_refused: AtomicU64,
    refused: [AtomicU64; REFUSALS],
    forward_sent: AtomicU64,
    forward_dropped: AtomicU64,
    forward_failed: AtomicU64,
}

/// A snapshot of the counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReceiveCounts {
    /// Requests accepted (answered 200).
    pub requests_accepted: u64,
    /// Spans handed on to the consumer.
    pub spans_accepted: u64,
    /// Spans taken out of accepted requests for invalid ids (named in
    /// each answer's `partial_success`).
    pub spans_rejected: u64,
    /// Spans in requests refused because the queue was full (the sender
    /// is asked to retry them).
    pub spans_refused: u64,
    refused: [u64; REFUSALS],
    /// Batches the forward targets answered with success.
    pub forward_sent: u64,
    /// Batches not forwarded because a target's queue was full.
    pub forward_dropped: u64,
    /// Batches a target refused, or did not answer in time.
    pub forward_failed: u64,
}

impl ReceiveCounts {
    /// Requests refused for `why`.
    pub(crate) fn refused(&self, why: Refusal) -> u64 {
        self.refused[why.index()]
    }

    /// Requests refused for any reason.
    pub(crate) fn refused_total(&self) -> u64 {
        self.refused.iter().sum()
    }
}

impl ReceiveCounts {
    /// The answers given, by HTTP status (gRPC's mapped as the page says),
    /// the ones given at least once, lowest status first: 200 for the
    /// accepted requests, then each refusal's.
    pub fn answers(&self) -> Vec<(u16, u64)> {
        let mut out = vec![(200, self.requests_accepted)];
        for why in <Refusal as strum::IntoEnumIterator>::iter() {
            out.push((why.status(), self.refused(why)));
        }
        out.retain(|(_, n)| *n > 0);
        out
    }
}

/// One `--forward` target's counts.
#[derive(Debug)]
struct TargetCounter {
    target: String,
    sent: AtomicU64,
    dropped: AtomicU64,
    failed: AtomicU64,
    last_failure: Mutex<Option<String>>,
}

/// What one `--forward` target got.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ForwardCounts {
    /// The target as given (`--forward URL`).
    pub target: String,
    /// Batches it answered with success.
    pub sent: u64,
    /// Batches not sent because its queue was full.
    pub dropped: u64,
    /// Batches it refused or did not answer in time.
    pub failed: u64,
    /// Why the last failed one failed (`connection refused`, `answered
    /// 503`, `no answer in 10 s`).
    pub last_failure: Option<String>,
}

/// Everything the receiver counts, as one typed snapshot: the counts in
/// all, and each forward target's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReceiverStatus {
    pub counts: ReceiveCounts,
    pub forwards: Vec<ForwardCounts>,
}

fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

impl Counters {
    /// Counters for the `--forward` targets `targets`, each named as
    /// given but for a `user:password@` in it (shown as `***@`: the
    /// counts are said on the screen and on stderr).
    pub(super) fn for_targets(targets: &[String]) -> Counters {
        Counters {
            targets: targets
                .iter()
                .map(|t| TargetCounter {
                    target: crate::sanitize::clean(&crate::nats::shown_url(t)).into_owned(),
                    sent: AtomicU64::new(0),
                    dropped: AtomicU64::new(0),
                    failed: AtomicU64::new(0),
                    last_failure: Mutex::new(None),
                })
                .collect(),
            ..Counters::default()
        }
    }

    /// Target `at` answered a forward with success.
    pub(super) fn forward_sent_to(&self, at: usize) {
        self.forward_sent();
        if let Some(t) = self.targets.get(at) {
            add(&t.sent, 1);
        }
    }

    /// Target `at`'s queue had no room for a forward.
    pub(super) fn forward_dropped_to(&self, at: usize) {
        self.forward_dropped();
        if let Some(t) = self.targets.get(at) {
            add(&t.dropped, 1);
        }
    }

    /// Target `at` refused a forward or did not answer it, for `why`.
    pub(super) fn forward_failed_to(&self, at: usize, why: String) {
        self.forward_failed();
        if let Some(t) = self.targets.get(at) {
            add(&t.failed, 1);
            if let Ok(mut last) = t.last_failure.lock() {
                *last = Some(why);
            }
        }
    }

    pub(super) fn status(&self) -> ReceiverStatus {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        ReceiverStatus {
            counts: self.snapshot(),
            forwards: self
                .targets
                .iter()
                .map(|t| ForwardCounts {
                    target: t.target.clone(),
                    sent: load(&t.sent),
                    dropped: load(&t.dropped),
                    failed: load(&t.failed),
                    last_failure: t.last_failure.lock().ok().and_then(|l| l.clone()),
                })
                .collect(),
        }
    }

    pub(super) fn accepted(&self, spans: u64, rejected: u64) {
        add(&self.requests_accepted, 1);
        add(&self.spans_accepted, spans);
        add(&self.spans_rejected, rejected);
    }

    pub(super) fn refused(&self, why: Refusal) {
        add(&self.refused[why.index()], 1);
    }

    pub(super) fn refused_spans(&self, spans: u64) {
        add(&self.spans_refused, spans);
    }

    pub(super) fn forward_sent(&self) {
        add(&self.forward_sent, 1);
    }

    pub(super) fn forward_dropped(&self) {
        add(&self.forward_dropped, 1);
    }

    pub(super) fn forward_failed(&self) {
        add(&self.forward_failed, 1);
    }

    pub(super) fn snapshot(&self) -> ReceiveCounts {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        ReceiveCounts {
            requests_accepted: load(&self.requests_accepted),
            spans_accepted: load(&self.spans_accepted),
            spans_rejected: load(&self.spans_rejected),
            spans_refused: load(&self.spans_refused),
            refused: std::array::from_fn(|i| load(&self.refused[i])),
            forward_sent: load(&self.forward_sent),
            forward_dropped: load(&self.forward_dropped),
            forward_failed: load(&self.forward_failed),
        }
    }
}
