//! The engine's run clock: time since the run started on `tokio::time`, less
//! the time the run spent paused at a gate. Budgets (`max_seconds`) and every
//! event's `t_ms` read it, so a paused run neither ages nor times out, and
//! the sim's calls take their time on it, so a call in flight while the run
//! is held at a gate takes as long as it would have. It never reads the
//! wall clock. A fork's served part on the real clock fast-forwards
//! ([`forward`]).

mod forward;

pub(crate) use forward::Forwarded;

use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

/// Which time a run runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockMode {
    /// tokio's paused clock, advanced only by the run's own timers.
    Virtual,
    Real,
}

const NOT_PAUSED: u64 = u64::MAX;

#[derive(Clone, Debug)]
pub struct RunClock {
    inner: Arc<ClockInner>,
}

#[derive(Debug)]
struct ClockInner {
    source: Source,
    /// Nanoseconds since `origin` at which the current pause began.
    paused_at: AtomicU64,
    /// Total nanoseconds spent in finished pauses.
    paused_total: AtomicU64,
    /// Wakes what waits on the clock when a pause ends.
    resumed: Notify,
    /// Nanoseconds the clock jumped while it fast-forwarded.
    jumped: AtomicU64,
    forward: forward::Forward,
}

impl RunClock {
    /// A clock on tokio's time, which a paused runtime advances.
    #[cfg(test)]
    pub(crate) fn start() -> Self {
        RunClock::start_on(ClockMode::Virtual)
    }

    /// A clock that starts now on `mode`'s time.
    pub fn start_on(mode: ClockMode) -> Self {
        let source = match mode {
            ClockMode::Virtual => Source::Tokio {
                origin: tokio::time::Instant::now(),
            },
            ClockMode::Real => Source::Monotonic {
                origin: std::time::Instant::now(),
            },
        };
        RunClock {
            inner: Arc::new(ClockInner {
                source,
                paused_at: AtomicU64::new(NOT_PAUSED),
                paused_total: AtomicU64::new(0),
                resumed: Notify::new(),
                jumped: AtomicU64::new(0),
                forward: forward::Forward::default(),
            }),
        }
    }

    fn since_origin(&self) -> u64 {
        let nanos = match &self.inner.source {
            Source::Tokio { origin } => origin.elapsed().as_nanos(),
            Source::Monotonic { origin } => origin.elapsed().as_nanos(),
        };
        let jumped = self.inner.jumped.load(Ordering::Acquire);
        u64::try_from(nanos)
            .unwrap_or(u64::MAX - 1)
            .saturating_add(jumped)
            .min(u64::MAX - 1)
    }

    /// Run time so far, pauses excluded.
    pub(crate) fn elapsed(&self) -> Duration {
        let paused_at = self.inner.paused_at.load(Ordering::Acquire);
        let now = if paused_at == NOT_PAUSED {
            self.since_origin()
        } else {
            paused_at
        };
        let total = self.inner.paused_total.load(Ordering::Acquire);
        Duration::from_nanos(now.saturating_sub(total))
    }

    /// Whether the clock is tokio's paused one, where waiting costs no
    /// wall time.
    pub(crate) fn is_virtual(&self) -> bool {
        matches!(self.inner.source, Source::Tokio { .. })
    }

    pub(crate) fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Wait until the run clock reads `at`. Time spent paused does not
    /// count: a pause that falls inside the wait extends it. A time past
    /// the most the clock can read (some 584 years) is that most.
    pub(crate) async fn sleep_until(&self, at: Duration) {
        // The clock reads at most this: a later time is waited for as this.
        let at = at.min(Duration::from_nanos(u64::MAX - 1));
        loop {
            // Registered before the pause is looked at, so that a resume
            // in between is not missed.
            let resumed = self.inner.resumed.notified();
            tokio::pin!(resumed);
            resumed.as_mut().enable();
            if self.is_paused() {
                resumed.await;
                continue;
            }
            let now = self.elapsed();
            if now >= at {
                return;
            }
            if self.forwards() {
                self.forward_to(at).await;
                continue;
            }
            tokio::time::sleep(at - now).await;
        }
    }

    /// Wait `took` of run time, as a simulated call takes it.
    pub(crate) async fn sleep(&self, took: Duration) {
        self.sleep_until(self.elapsed().saturating_add(took)).await;
    }

    /// `future`'s output, or `None` when `limit` of run time passes
    /// first; an output ready at the limit is in time.
    pub(crate) async fn timeout<F: std::future::Future>(
        &self,
        limit: Duration,
        future: F,
    ) -> Option<F::Output> {
        tokio::select! {
            biased;
            output = future => Some(output),
            () = self.sleep(limit) => None,
        }
    }

    fn is_paused(&self) -> bool {
        self.inner.paused_at.load(Ordering::Acquire) != NOT_PAUSED
    }

    /// Stop the clock (the run halted at a gate). Idempotent.
    pub(crate) fn pause(&self) {
        let now = self.since_origin();
        let _ = self.inner.paused_at.compare_exchange(
            NOT_PAUSED,
            now,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// Start the clock again. Idempotent.
    pub(crate) fn resume(&self) {
        let paused_at = self.inner.paused_at.swap(NOT_PAUSED, Ordering::AcqRel);
        if paused_at != NOT_PAUSED {
            let spent = self.since_origin().saturating_sub(paused_at);
            self.inner.paused_total.fetch_add(spent, Ordering::AcqRel);
            self.inner.resumed.notify_waiters();
        }
    }
}

/// Where the clock reads its time.
#[derive(Debug)]
enum Source {
    /// tokio's clock, which a paused runtime advances.
    Tokio { origin: tokio::time::Instant },
    /// The system's monotonic clock: tokio's takes a lock per read (its
    /// test clock is built in), std's is a vDSO call.
    Monotonic { origin: std::time::Instant },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn pauses_do_not_count() {
        let clock = RunClock::start();
        tokio::time::sleep(Duration::from_millis(300)).await;
        clock.pause();
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(clock.elapsed_ms(), 300);
        clock.resume();
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(clock.elapsed_ms(), 500);
        clock.resume();
        assert_eq!(clock.elapsed_ms(), 500, "a second resume changes nothing");
    }

    #[tokio::test(start_paused = true)]
    async fn sleep_until_waits_for_run_time_not_for_tokio_time() {
        let clock = RunClock::start();
        let waiter = {
            let clock = clock.clone();
            tokio::spawn(async move {
                clock.sleep_until(Duration::from_millis(1000)).await;
                tokio::time::Instant::now()
            })
        };
        let start = tokio::time::Instant::now();
        tokio::time::sleep(Duration::from_millis(400)).await;
        clock.pause();
        tokio::time::sleep(Duration::from_millis(5000)).await;
        clock.resume();
        let woke = waiter.await.unwrap();
        assert_eq!(woke - start, Duration::from_millis(6000));
        assert_eq!(clock.elapsed_ms(), 1000);
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_in_flight_through_a_pause_takes_its_run_time_and_is_not_timed_out() {
        let clock = RunClock::start();
        let call = {
            let clock = clock.clone();
            tokio::spawn(async move {
                let took = clock.sleep(Duration::from_millis(400));
                let answered = clock.timeout(Duration::from_millis(500), took).await;
                (answered, clock.elapsed_ms())
            })
        };
        tokio::time::sleep(Duration::from_millis(100)).await;
        clock.pause();
        tokio::time::sleep(Duration::from_secs(60)).await;
        clock.resume();
        assert_eq!(call.await.unwrap(), (Some(()), 400));
    }
}
