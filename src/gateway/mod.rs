//! The gateway: the one place that decides whether and how a call happens.
//! Every model call and every worker or tool call of every pattern passes
//! here; it applies the timeouts, the retries (with backoff, jitter and the
//! retry budget), the circuit breakers, the bulkheads, safe mode and the
//! run's call, token and dollar budgets (pricing every model answer once,
//! in the meter), interrupts a call when the run is cancelled, and
//! publishes one `call_started` and one `call_finished` per attempt that
//! reaches its tool. Pattern runners never time or retry calls themselves.

mod answers;
mod asking;
mod attempts;
mod backoff;
mod breaker;
mod bulkhead;
pub(crate) mod endpoint;
mod error;
mod guarded;
mod last_good;
mod limits;
mod meter;
mod model;
mod prompt_hash;
mod reading;
mod retry;
mod retry_budget;
mod safe_mode;
mod served;
mod shield;
#[cfg(test)]
mod tests;
mod text;
mod tool;

pub(crate) use crate::scenario::MODEL_TOOL;
pub(crate) use error::CallError;
use guarded::{CallDetails, Cancelled, Shielded};
pub(crate) use last_good::{CacheError, LastKnownGood};
pub(crate) use limits::DispatchLimits;
pub(crate) use meter::{Meter, Usage};
pub(crate) use model::{Check, Checked};
pub(crate) use reading::{Reading, ReadingPolicy};
pub(crate) use safe_mode::SafeModeVerdict;
pub(crate) use tool::{
    MIN_ATTEMPT_TIMEOUT, REAL_CALL_TIMEOUT, TimeoutFrom, ToolCall, ToolPolicy, ToolReport,
};

use crate::bus::Bus;
use crate::cassette::Cassette;
use crate::control::Switches;
use crate::provider::{Provider, Workers};
use crate::rng::RunRng;
use crate::scenario::ResilienceSpec;
use crate::stop::StopReason;
use retry::Retrier;
use shield::{Shields, ToolShield};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(Debug)]
pub(crate) struct Gateway {
    bus: Bus,
    provider: Arc<Provider>,
    workers: Arc<Workers>,
    cancel: CancellationToken,
    next_call: AtomicU64,
    shields: Shields,
    /// The run time at which the run's `max_seconds` is up: no wait an
    /// endpoint asks for is taken past it.
    run_limit: Option<Duration>,
    /// What the last model call that failed for good failed with, and its
    /// words.
    last_failure: std::sync::Mutex<Option<(StopReason, String)>>,
    /// The tools' last good answers, when safe mode falls back to them.
    last_good: Option<Arc<LastKnownGood>>,
    /// The run's tokens and dollars, and its budgets over them.
    meter: Meter,
    /// The recording that serves the run's calls, when it runs from one.
    cassette: Option<Arc<Cassette>>,
    /// Every call is served: no program or server is started.
    offline: bool,
    /// A live call would have started a program nobody allowed, which
    /// stopped the run: the refusal, naming the file and the place.
    refused: std::sync::Mutex<Option<String>>,
    /// How many times an answer that fails its contract is asked for
    /// again (`provider.output_retries`).
    output_retries: u32,
    /// Every question about the kind of the provider, answered once.
    reading: ReadingPolicy,
    /// The last model answer that failed its contract, was cut or was a
    /// refusal: what a run stopped by an answer says about it.
    answer_failure: std::sync::Mutex<Option<model::AnswerFailure>>,
}

impl Gateway {
    /// A gateway without a resilience section: every call goes straight to
    /// its tool, timed and retried only as its pattern says.
    pub(crate) fn new(
        bus: Bus,
        provider: Arc<Provider>,
        workers: Arc<Workers>,
        cancel: CancellationToken,
    ) -> Self {
        Gateway {
            shields: Shields::new(None, Switches::all_on(), RunRng::seeded(0), bus.clone()),
            bus,
            reading: ReadingPolicy::of(&provider),
            provider,
            workers,
            cancel,
            next_call: AtomicU64::new(1),
            run_limit: None,
            last_failure: std::sync::Mutex::new(None),
            meter: Meter::default(),
            last_good: None,
            cassette: None,
            offline: false,
            refused: std::sync::Mutex::new(None),
            output_retries: 0,
            answer_failure: std::sync::Mutex::new(None),
        }
    }

    /// Ask an answer that fails its contract again up to `retries` times.
    pub(crate) fn with_output_retries(mut self, retries: u32) -> Self {
        self.output_retries = retries;
        self
    }

    /// Serve the run's calls from `cassette` while it holds them;
    /// `offline` when it serves them all (nothing real is started).
    pub(crate) fn with_cassette(mut self, cassette: Option<Arc<Cassette>>, offline: bool) -> Self {
        self.cassette = cassette;
        self.offline = offline;
        self
    }

    /// What the recording measured for `measure`, while the run is served
    /// from it: the served run gives the recorded value back. `measure`
    /// is made only then.
    pub(crate) fn served_measure(
        &self,
        measure: impl FnOnce() -> crate::cassette::Measure,
    ) -> Option<u64> {
        self.cassette.as_ref().and_then(|c| c.measured(&measure()))
    }

    /// The call the cassette did not hold, which stopped the run, in
    /// words.
    pub(crate) fn cassette_missed(&self) -> Option<String> {
        self.cassette.as_ref().and_then(|c| c.missed())
    }

    /// The program a live call would have started and nobody allowed,
    /// which stopped the run: why, naming the file and the place.
    pub(crate) fn refused_program(&self) -> Option<String> {
        self.refused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Remember every tool's good answers in `store`, and serve them to
    /// calls that fail fast while safe mode is on.
    pub(crate) fn with_last_good(mut self, store: Option<Arc<LastKnownGood>>) -> Self {
        self.last_good = store;
        self
    }

    /// Keep the good answers of this run for the next (`--cache DIR`).
    pub(crate) fn save_last_good(&self) -> Result<(), CacheError> {
        self.last_good.as_ref().map_or(Ok(()), |store| store.save())
    }

    /// Price and count every model answer with `meter`, and stop the run's
    /// model calls once it is past its budgets.
    pub(crate) fn with_meter(mut self, meter: Meter) -> Self {
        self.meter = meter;
        self
    }

    /// The budget the run has spent past (`max_tokens`, then `max_cost`),
    /// for a pattern to stop at its gate.
    pub(crate) fn spend_stop(&self) -> Option<StopReason> {
        self.meter.over()
    }

    /// Whether the run's cost went past the largest number under a dollar
    /// budget, even on its last call.
    pub(crate) fn cost_overflowed(&self) -> bool {
        self.meter.cost_overflowed()
    }

    /// The run's `usage`: tokens and dollars, in all and by who spent them.
    pub(crate) fn usage(&self) -> Usage {
        self.meter.usage()
    }

    /// The tokens and dollars `spender` has used so far, as its entry of
    /// the run's `usage.by_agent` says them.
    pub(crate) fn spent_by(&self, spender: &str) -> (u64, f64) {
        self.meter.spent_by(spender)
    }

    /// The tokens and dollars `spender` and the spenders under it
    /// (`NODE/AGENT`, `NODE#2/AGENT`) have used so far.
    pub(crate) fn spent_under(&self, spender: &str) -> (u64, f64) {
        self.meter.spent_under(spender)
    }

    /// The run's time budget (`max_seconds`) on the run clock: a retry
    /// whose wait the endpoint asked for (`Retry-After`) and that would
    /// start past it fails at once with `max_seconds` instead.
    pub(crate) fn with_run_limit(mut self, limit: Duration) -> Self {
        self.run_limit = Some(limit);
        self
    }

    /// Shield the calls as `spec` says, with the mechanisms `switches`
    /// turns on; jitter draws from `rng`, the run's seeded source.
    pub(crate) fn with_resilience(
        mut self,
        spec: Option<ResilienceSpec>,
        switches: Switches,
        rng: RunRng,
    ) -> Self {
        self.shields = Shields::new(spec, switches, rng, self.bus.clone());
        self
    }

    /// Tools safe mode skipped so far, in the order first skipped: the
    /// `degraded` list of a partial result.
    pub(crate) fn degraded(&self) -> Vec<String> {
        self.shields.degraded()
    }

    /// The run is over: no program a real worker started may outlive it.
    /// Start the real workers' servers; the descriptions they give, by
    /// worker or tool name.
    /// A run cancelled meanwhile does not wait for a server's handshake:
    /// whatever had started is stopped with the unfinished start.
    /// A cassette gives the descriptions its recorded servers gave (the
    /// prompts that hold them must match), and no server starts before a
    /// live call needs it (a served call never does).
    pub(crate) async fn start_workers(&self) -> Vec<(String, String)> {
        let started = if self.offline || self.cassette.is_some() {
            Vec::new()
        } else {
            tokio::select! {
                biased;
                () = self.cancel.cancelled() => Vec::new(),
                described = self.workers.start() => described,
            }
        };
        self.cassette
            .as_ref()
            .and_then(|cassette| cassette.described())
            .unwrap_or(started)
    }

    pub(crate) fn shutdown_workers(&self) {
        self.workers.shutdown();
    }

    /// Attempts a call to `tool` may make, its first included, when its
    /// pattern allows `own_max_attempts`.
    pub(crate) fn max_attempts(&self, tool: &str, own_max_attempts: u32) -> u32 {
        self.retrier(&self.shields.tool(tool), own_max_attempts)
            .max_attempts()
    }

    fn next_call_id(&self) -> u64 {
        self.next_call.fetch_add(1, Ordering::Relaxed)
    }

    fn retrier(&self, shield: &ToolShield, own_max_attempts: u32) -> Retrier {
        match &shield.settings.retries {
            Some(rule) if self.shields.retries_on() => Retrier::configured(rule),
            _ => Retrier::own(own_max_attempts),
        }
    }
}

/// A lock's value, whoever panicked while holding it: every value kept
/// behind one here is whole between statements.
fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
