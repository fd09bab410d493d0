//! Fast-forward: a fork's served part on the real clock. The calls before
//! a fork's gate are served from its parent's recording; played back at
//! once they would end before their siblings start, and the fork would do
//! in another order what its parent did. Played back at their recorded
//! times they keep the order, but the person who forked waits out the
//! parent's time to the gate. So until the fork goes live the run clock
//! moves the way the virtual clock does: whenever the run has nothing
//! left to do but wait on the clock, it jumps to the earliest time a wait
//! is for. The run's events keep their parent's order and times, and the
//! served part takes no time at all.
//!
//! The run's task is wrapped in [`Forwarded`], which sees when the run is
//! idle: polled, it went back to waiting and nothing woke it meanwhile.
//! Only waits on the run clock are jumped; a pause stops the jumps.

use super::RunClock;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use tokio::sync::Notify;

/// The clock's fast-forward, while it lasts.
#[derive(Debug, Default)]
pub(super) struct Forward {
    on: AtomicBool,
    /// The run times (nanoseconds) waits are for, each with how many
    /// wait for it.
    deadlines: Mutex<BTreeMap<u64, usize>>,
    /// Wakes the waits when the clock jumps or stops forwarding.
    moved: Notify,
}

/// A wait's deadline, held while it waits.
struct Held<'a> {
    forward: &'a Forward,
    at: u64,
}

impl Forward {
    fn hold(&self, at: u64) -> Held<'_> {
        *self.deadlines().entry(at).or_default() += 1;
        Held { forward: self, at }
    }

    fn deadlines(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, usize>> {
        self.deadlines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut deadlines = self.forward.deadlines();
        if let Some(count) = deadlines.get_mut(&self.at) {
            *count -= 1;
            if *count == 0 {
                deadlines.remove(&self.at);
            }
        }
    }
}

impl RunClock {
    /// Fast-forward from now until [`RunClock::stop_forwarding`].
    pub(crate) fn forward(&self) {
        self.inner.forward.on.store(true, Ordering::Release);
    }

    /// Go on in real time from where the clock stands.
    pub(crate) fn stop_forwarding(&self) {
        self.inner.forward.on.store(false, Ordering::Release);
        self.inner.forward.moved.notify_waiters();
    }

    /// Whether the clock fast-forwards.
    pub(crate) fn forwards(&self) -> bool {
        self.inner.forward.on.load(Ordering::Acquire)
    }

    /// Wait until the clock reads `at` (later than now) while it
    /// forwards: in real time, unless a jump gets there first.
    pub(super) async fn forward_to(&self, at: Duration) {
        let nanos = u64::try_from(at.as_nanos()).unwrap_or(u64::MAX - 1);
        let forward = &self.inner.forward;
        let moved = forward.moved.notified();
        tokio::pin!(moved);
        moved.as_mut().enable();
        let _held = forward.hold(nanos);
        let now = self.elapsed();
        if now >= at || !self.forwards() {
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(at - now) => {}
            () = moved => {}
        }
    }

    /// Move the clock on to the earliest time a wait is for and wake the
    /// waits; false when it does not forward, is paused, or nothing
    /// waits on it.
    fn jump(&self) -> bool {
        if !self.forwards() || self.is_paused() {
            return false;
        }
        let Some(next) = self.inner.forward.deadlines().keys().next().copied() else {
            return false;
        };
        let now = u64::try_from(self.elapsed().as_nanos()).unwrap_or(u64::MAX);
        if next > now {
            self.inner.jumped.fetch_add(next - now, Ordering::AcqRel);
        }
        self.inner.forward.moved.notify_waiters();
        true
    }
}

/// A run's task while its clock may fast-forward: when the run has
/// nothing to do but wait on the clock, the clock jumps.
pub(crate) struct Forwarded<F> {
    clock: RunClock,
    run: Pin<Box<F>>,
    woken: Arc<WokenFlag>,
}

impl<F: Future> Forwarded<F> {
    pub(crate) fn new(clock: RunClock, run: F) -> Self {
        Forwarded {
            clock,
            run: Box::pin(run),
            woken: Arc::new(WokenFlag::default()),
        }
    }
}

/// Says whether the run was woken, and passes the wake on to its task.
#[derive(Default)]
struct WokenFlag {
    woken: AtomicBool,
    task: Mutex<Option<Waker>>,
}

impl Wake for WokenFlag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        if let Some(task) = self
            .task
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            task.wake_by_ref();
        }
    }
}

impl<F: Future> Future for Forwarded<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        {
            let mut task = this
                .woken
                .task
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if !task.as_ref().is_some_and(|t| t.will_wake(cx.waker())) {
                *task = Some(cx.waker().clone());
            }
        }
        let waker = Waker::from(Arc::clone(&this.woken));
        loop {
            this.woken.woken.store(false, Ordering::Release);
            if let Poll::Ready(output) = this.run.as_mut().poll(&mut Context::from_waker(&waker)) {
                return Poll::Ready(output);
            }
            // Woken while it ran: more to do, not idle.
            if this.woken.woken.load(Ordering::Acquire) || !this.clock.jump() {
                return Poll::Pending;
            }
            // The jump woke nothing of the run's: it waits on something
            // else, which will wake it.
            if !this.woken.woken.load(Ordering::Acquire) {
                return Poll::Pending;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ClockMode;

    /// `run` polled once, on the real clock that fast-forwards.
    fn poll_once<F: Future>(run: &mut Forwarded<F>) -> Poll<F::Output> {
        let mut cx = Context::from_waker(Waker::noop());
        Pin::new(run).poll(&mut cx)
    }

    fn forwarding() -> RunClock {
        let clock = RunClock::start_on(ClockMode::Real);
        clock.forward();
        clock
    }

    #[tokio::test]
    async fn a_run_waiting_only_on_the_clock_gets_each_wait_in_order_at_once() {
        let clock = forwarding();
        let ended = Arc::new(Mutex::new(Vec::new()));
        let wait = |secs: u64| {
            let (clock, ended) = (clock.clone(), Arc::clone(&ended));
            async move {
                clock.sleep(Duration::from_secs(secs)).await;
                ended
                    .lock()
                    .unwrap()
                    .push((secs, clock.elapsed().as_secs()));
            }
        };
        let mut run = Forwarded::new(clock.clone(), async {
            tokio::join!(wait(300), wait(100), wait(200));
            wait(50).await;
        });
        // One poll: every wait is over, none waited in real time.
        assert!(poll_once(&mut run).is_ready());
        assert_eq!(
            *ended.lock().unwrap(),
            [(100, 100), (200, 200), (300, 300), (50, 350)]
        );
    }

    #[tokio::test]
    async fn a_paused_clock_or_one_that_stopped_forwarding_waits_in_real_time() {
        let clock = forwarding();
        clock.pause();
        let waits = clock.clone();
        let mut run = Forwarded::new(clock.clone(), async move {
            waits.sleep(Duration::from_secs(60)).await;
        });
        assert!(poll_once(&mut run).is_pending());
        assert_eq!(clock.elapsed().as_secs(), 0, "no jump while paused");
        clock.resume();
        clock.stop_forwarding();
        assert!(poll_once(&mut run).is_pending());
        assert!(clock.elapsed() < Duration::from_secs(60));
        assert!(!clock.forwards());
    }

    #[tokio::test]
    async fn a_wait_the_run_does_not_hold_does_not_spin_it() {
        let clock = forwarding();
        let (tell, told) = tokio::sync::oneshot::channel::<()>();
        // Another task's wait on the clock: the jump wakes nothing of the
        // run, which goes back to waiting on what it waits for.
        let other = clock.clone();
        let _held = tokio::spawn(async move { other.sleep(Duration::from_secs(600)).await });
        tokio::task::yield_now().await;
        let mut run = Forwarded::new(clock.clone(), async move { told.await.is_ok() });
        assert!(poll_once(&mut run).is_pending());
        tell.send(()).unwrap();
        assert_eq!(poll_once(&mut run), Poll::Ready(true));
    }
}
