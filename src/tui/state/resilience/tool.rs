//! One tool's health as the gateway's events tell it: its breaker and
//! bulkhead, its calls, failures and refusals, the calls that ended in the
//! last `ERROR_WINDOW_MS` (kept with running counts, so the error rate
//! costs nothing per event), recent latencies, its traffic over the whole
//! run, and its health score at the last ranking.

use super::health::{Band, Signals, Trend, sickness};
use super::history::History;
use super::latencies::Latencies;
use crate::bus::{BreakerState, CallOutcome};
use crate::scenario::{FailureRule, ResilienceSpec};
use std::collections::VecDeque;

/// How far back the error rate looks.
pub const ERROR_WINDOW_MS: u64 = 10_000;
/// How many latencies the shown percentiles are taken over.
const LATENCY_SAMPLES: usize = 512;
/// A bound on the ended calls kept for the error rate.
const RECENT_CAP: usize = 8192;

#[derive(Clone, Debug, PartialEq)]
pub struct ToolHealth {
    pub name: String,
    pub breaker: Option<BreakerView>,
    pub bulkhead: Option<BulkheadView>,
    /// Calls that reached the tool (one per attempt).
    pub calls: u64,
    /// Calls that timed out or failed.
    pub failures: u64,
    pub retries: u64,
    /// Calls served its last good answer instead (stale).
    pub stale: u64,
    /// Model calls the endpoint refused a feature of by name, asked again
    /// another way: fallbacks, neither failures nor latencies.
    pub fallbacks: u64,
    /// Attempts the gateway failed fast, for any reason.
    pub rejected: u64,
    /// The longest timeout an attempt of the tool was given (the
    /// scenario's, until an attempt says).
    pub(crate) timeout_ms: Option<u64>,
    /// The calls that ended lately, oldest first.
    recent: VecDeque<Ended>,
    /// How many of `recent` failed.
    recent_failed: u32,
    /// The latencies of the finished calls in `recent`.
    recent_latencies: Latencies,
    latencies: VecDeque<u64>,
    /// The whole run, in buckets, for the charts.
    pub(crate) history: History,
    /// The health score at the last ranking, its band and trend.
    pub(crate) rank: Rank,
    /// The last streamed call's time to its first token and its tokens a
    /// second (the model's, once an answer streamed).
    pub(crate) streaming: Option<Streaming>,
}

/// How fast a streamed answer came.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Streaming {
    pub(crate) first_token_ms: u64,
    pub(crate) tokens_per_s: Option<f64>,
}

/// A call that ended: when, whether it failed, and how long it took
/// (`None` for a refusal).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ended {
    t_ms: u64,
    failed: bool,
    latency_ms: Option<u64>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Rank {
    pub(crate) score: u32,
    pub(crate) band: Band,
    pub(crate) trend: Trend,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BreakerView {
    pub state: BreakerState,
    /// Consecutive failures while closed (the count that opened it, once
    /// open).
    pub failures: u32,
    pub threshold: Option<u32>,
    pub(crate) failure_rate: Option<FailureRule>,
    /// The last outcomes for the failure rate, `true` for a failure.
    pub(crate) window: VecDeque<bool>,
    /// Run time of the last transition.
    pub(crate) since_ms: u64,
    pub(crate) open_for_ms: u64,
    pub probes_used: u32,
    pub probes: u32,
    /// How often it opened.
    pub(crate) opened: u32,
    /// Whether a flag has it switched off.
    pub(crate) off: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BulkheadView {
    pub in_flight: u32,
    pub(crate) max: u32,
    pub queued: u32,
    pub(crate) rejected: u64,
    pub(crate) max_wait_ms: u64,
    pub(crate) off: bool,
}

impl ToolHealth {
    pub(super) fn new(name: &str, spec: Option<&ResilienceSpec>) -> Self {
        let settings = spec.map(|s| s.for_tool(name)).unwrap_or_default();
        let breaker = settings.breaker.map(|rule| BreakerView {
            state: BreakerState::Closed,
            failures: 0,
            threshold: rule.fail_threshold,
            failure_rate: rule.failure_rate,
            window: VecDeque::new(),
            since_ms: 0,
            open_for_ms: rule.open_for_ms,
            probes_used: 0,
            probes: rule.half_open_probes,
            opened: 0,
            off: false,
        });
        ToolHealth {
            name: name.to_string(),
            history: History::new(breaker.as_ref().map(|b| b.state)),
            breaker,
            bulkhead: settings.bulkhead.map(|rule| BulkheadView {
                in_flight: 0,
                max: rule.max_in_flight,
                queued: 0,
                rejected: 0,
                max_wait_ms: rule.max_wait_ms,
                off: false,
            }),
            calls: 0,
            failures: 0,
            retries: 0,
            stale: 0,
            fallbacks: 0,
            rejected: 0,
            timeout_ms: settings.timeout_ms,
            recent: VecDeque::new(),
            recent_failed: 0,
            recent_latencies: Latencies::default(),
            latencies: VecDeque::new(),
            rank: Rank::default(),
            streaming: None,
        }
    }

    /// The share of calls that failed among those that ended in the
    /// `ERROR_WINDOW_MS` before `now_ms`: timeouts, errors, and attempts
    /// its breaker or bulkhead refused (the caller's call failed all the
    /// same); `None` without any.
    pub fn error_rate(&self, now_ms: u64) -> Option<f64> {
        let from = now_ms.saturating_sub(ERROR_WINDOW_MS);
        let (mut ended, mut failed) = (self.recent.len() as u32, self.recent_failed);
        for stale in self.recent.iter().take_while(|e| e.t_ms < from) {
            ended -= 1;
            failed -= u32::from(stale.failed);
        }
        (ended > 0).then(|| f64::from(failed) / f64::from(ended))
    }

    /// The `p`-th percentile (0–100) of the recent latencies, nearest rank.
    pub fn latency(&self, p: u32) -> Option<u64> {
        if self.latencies.is_empty() {
            return None;
        }
        let mut sorted: Vec<u64> = self.latencies.iter().copied().collect();
        sorted.sort_unstable();
        let rank = (u64::from(p.min(100)) * sorted.len() as u64).div_ceil(100);
        Some(sorted[(rank.max(1) - 1) as usize])
    }

    /// What the health score reads now; the window must have been
    /// trimmed to `now_ms` (see `forget_before`).
    pub(super) fn signals(&self) -> Signals {
        let breaker = self.breaker.as_ref().filter(|b| !b.off);
        let ended = self.recent.len() as u32;
        Signals {
            breaker: breaker.map(|b| b.state),
            error_rate: (ended > 0).then(|| f64::from(self.recent_failed) / f64::from(ended)),
            latency_ratio: self
                .recent_latencies
                .percentile(95)
                .zip(self.timeout_ms.filter(|t| *t > 0))
                .map(|(p95, timeout)| p95 as f64 / timeout as f64),
            saturated: self
                .bulkhead
                .as_ref()
                .is_some_and(|b| !b.off && (b.queued > 0 || b.in_flight >= b.max)),
        }
    }

    /// Score the tool at the window's end; its band moves past the
    /// hysteresis only.
    pub(super) fn rank(&mut self, now_ms: u64) {
        self.forget_before(now_ms.saturating_sub(ERROR_WINDOW_MS));
        let score = sickness(&self.signals());
        self.rank = Rank {
            score,
            band: Band::settle(self.rank.band, score),
            trend: Trend::between(self.rank.score, score),
        };
    }

    /// Drop the ended calls older than `from_ms` from the window.
    fn forget_before(&mut self, from_ms: u64) {
        while self.recent.len() > RECENT_CAP
            || self.recent.front().is_some_and(|e| e.t_ms < from_ms)
        {
            let Some(old) = self.recent.pop_front() else {
                break;
            };
            self.recent_failed -= u32::from(old.failed);
            if let Some(latency) = old.latency_ms {
                self.recent_latencies.remove(latency);
            }
        }
    }

    fn ended(&mut self, ended: Ended) {
        self.recent.push_back(ended);
        self.recent_failed += u32::from(ended.failed);
        if let Some(latency) = ended.latency_ms {
            self.recent_latencies.add(latency);
        }
        self.forget_before(ended.t_ms.saturating_sub(ERROR_WINDOW_MS));
    }

    pub(super) fn started(&mut self, t_ms: u64) {
        self.calls += 1;
        self.history.started(t_ms);
        if let Some(b) = &mut self.breaker
            && b.state == BreakerState::HalfOpen
            && !b.off
        {
            b.probes_used += 1;
        }
    }

    pub(super) fn finished(&mut self, t_ms: u64, outcome: CallOutcome, latency_ms: u64) {
        let failed = match outcome {
            CallOutcome::Ok => false,
            CallOutcome::Timeout | CallOutcome::Error => true,
            CallOutcome::Cancelled | CallOutcome::Refused => return,
        };
        self.failures += u64::from(failed);
        self.ended(Ended {
            t_ms,
            failed,
            latency_ms: Some(latency_ms),
        });
        self.history.finished(t_ms, failed, latency_ms);
        self.latencies.push_back(latency_ms);
        if self.latencies.len() > LATENCY_SAMPLES {
            self.latencies.pop_front();
        }
        // Counted as the gateway's breaker counts: only while closed.
        if let Some(b) = &mut self.breaker
            && b.state == BreakerState::Closed
            && !b.off
        {
            b.failures = if failed { b.failures + 1 } else { 0 };
            if let Some(rate) = b.failure_rate {
                b.window.push_back(failed);
                while b.window.len() > rate.window as usize {
                    b.window.pop_front();
                }
            }
        }
    }

    /// An attempt ended refused for a feature the run then asked without:
    /// a fallback, which says nothing of the tool's health (its breaker
    /// counts nothing either).
    pub(super) fn fell_back(&mut self) {
        self.fallbacks += 1;
    }

    /// The gateway failed an attempt fast; `by_shield` when the tool's own
    /// breaker or bulkhead refused it, which counts as a failed call. (A
    /// refusal for the run's sake, its time or retry budget spent, says
    /// nothing of the tool.)
    pub(super) fn refused(&mut self, t_ms: u64, by_shield: bool) {
        self.rejected += 1;
        if by_shield {
            self.ended(Ended {
                t_ms,
                failed: true,
                latency_ms: None,
            });
            self.history.refused(t_ms);
        }
    }

    pub(super) fn moved(&mut self, t_ms: u64, to: BreakerState) {
        if let Some(b) = &mut self.breaker {
            b.state = to;
            b.since_ms = t_ms;
            match to {
                BreakerState::Closed => {
                    b.failures = 0;
                    b.window.clear();
                }
                BreakerState::HalfOpen => b.probes_used = 0,
                BreakerState::Open => b.opened += 1,
            }
            if !b.off {
                self.history.breaker(t_ms, to);
            }
        }
    }

    /// A call streamed its answer: its first token came `first_token_ms`
    /// after it started.
    pub(super) fn streamed(&mut self, first_token_ms: u64, tokens_per_s: Option<f64>) {
        self.streaming = Some(Streaming {
            first_token_ms,
            tokens_per_s,
        });
    }

    /// An attempt was given `timeout_ms`: the tool's own timeout, or less
    /// when the run's time was running out, so the longest is kept.
    pub(super) fn attempt_timeout(&mut self, timeout_ms: u64) {
        self.timeout_ms = Some(self.timeout_ms.map_or(timeout_ms, |t| t.max(timeout_ms)));
    }
}
