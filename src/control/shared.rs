//! One run's gate shared by the steps it runs at once (the orchestrator's
//! tasks and their retries, a coordinator's member calls). One step passes
//! at a time; while the run is paused, every step that reaches a gate waits
//! there, and no new step starts until it has passed. It never decides what
//! a step does; it only holds steps and answers the allowlist.

use super::{Cancelled, Flags, Gate};
use crate::bus::GatePoint;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::Notify;

#[derive(Debug)]
pub(crate) struct SharedGate<'g> {
    gate: tokio::sync::Mutex<&'g mut Gate>,
    /// The flags as the last gate left them, readable without waiting for
    /// a gate that is held while paused.
    flags: Mutex<Flags>,
    /// Steps inside [`SharedGate::pass`]. A pass that is not paused ends
    /// within one poll, so another step sees a count above 0 only while
    /// the run is held at a gate.
    passing: AtomicUsize,
    /// Wakes the steps waiting to start when the last pass ends.
    passed: Notify,
}

impl<'g> SharedGate<'g> {
    pub(crate) fn new(gate: &'g mut Gate) -> Self {
        let flags = Mutex::new(gate.flags().clone());
        SharedGate {
            gate: tokio::sync::Mutex::new(gate),
            flags,
            passing: AtomicUsize::new(0),
            passed: Notify::new(),
        }
    }

    /// Pass the gate at `at`: apply waiting commands and, while paused,
    /// wait for resume or step. Flag changes hold from here on.
    pub(crate) async fn pass(&self, at: GatePoint) -> Result<(), Cancelled> {
        let _passing = Passing::enter(self);
        let mut gate = self.gate.lock().await;
        let passed = gate.pass(at).await;
        *self.flags.lock() = gate.flags().clone();
        passed
    }

    /// Ask `question` at `at` (see [`Gate::ask`]): a graph's human node,
    /// while other nodes run.
    pub(crate) async fn ask(
        &self,
        at: GatePoint,
        question: &crate::bus::Question,
    ) -> Result<Option<crate::bus::Answer>, Cancelled> {
        let _passing = Passing::enter(self);
        let mut gate = self.gate.lock().await;
        let asked = gate.ask(at, question).await;
        *self.flags.lock() = gate.flags().clone();
        asked
    }

    /// Wait until no step is held at a gate. A step that would start
    /// beside others waits here, so that a paused run starts its steps in
    /// the order and at the run times it would have unpaused, and what it
    /// publishes comes in the same order.
    pub(crate) async fn unheld(&self) {
        // Nothing held, as almost always: no waiter is registered (a
        // coordinator's 100,000 member calls each pass here).
        if self.passing.load(Ordering::Acquire) == 0 {
            return;
        }
        loop {
            // Registered before the count is read, so that a pass ending
            // in between is not missed.
            let passed = self.passed.notified();
            tokio::pin!(passed);
            passed.as_mut().enable();
            if self.passing.load(Ordering::Acquire) == 0 {
                return;
            }
            passed.await;
        }
    }

    /// Whether `name` is inside the execution allowlist as the last gate
    /// left it.
    pub(crate) fn allows(&self, name: &str) -> bool {
        self.flags.lock().allows(name)
    }

    /// The flag that keeps `name` outside the execution allowlist as the
    /// last gate left it, if one does.
    pub(crate) fn gated_by(&self, name: &str) -> Option<String> {
        self.flags.lock().gated_by(name).map(str::to_string)
    }
}

/// A step inside the gate, counted until it leaves (passed, cancelled,
/// or dropped with its run).
struct Passing<'s, 'g>(&'s SharedGate<'g>);

impl<'s, 'g> Passing<'s, 'g> {
    fn enter(gate: &'s SharedGate<'g>) -> Self {
        gate.passing.fetch_add(1, Ordering::AcqRel);
        Passing(gate)
    }
}

impl Drop for Passing<'_, '_> {
    fn drop(&mut self) {
        if self.0.passing.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.passed.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{Bus, Hub};
    use crate::clock::RunClock;
    use crate::control::channel;
    use crate::scenario::Scenario;
    use std::sync::Arc;
    use std::time::Duration;

    fn scenario() -> Arc<Scenario> {
        Arc::new(
            serde_json::from_value(serde_json::json!({
                "name": "t", "pattern": "orchestrator", "goal": "g", "context": {},
                "provider": {"kind": "sim"},
                "workers": {"inventory_worker": {}},
                "flags": {"inventory": {"default": true, "workers": ["inventory_worker"]}}
            }))
            .unwrap(),
        )
    }

    #[tokio::test(start_paused = true)]
    async fn a_flag_change_reaches_the_allowlist_at_the_next_gate() {
        let bus = Bus::new(1, RunClock::start(), Hub::new(16), None);
        let flags = Flags::new(scenario(), &[]).unwrap();
        let (controller, mut gate) = channel(flags, bus, false);
        let shared = SharedGate::new(&mut gate);
        assert!(shared.allows("inventory_worker"));
        controller.set_flag("inventory", false).unwrap();
        assert!(
            shared.allows("inventory_worker"),
            "not before the next gate"
        );
        shared.pass(GatePoint::Wave { wave: 2 }).await.unwrap();
        assert!(!shared.allows("inventory_worker"));
    }

    #[tokio::test(start_paused = true)]
    async fn while_one_step_is_paused_the_others_wait_at_their_gates() {
        let bus = Bus::new(1, RunClock::start(), Hub::new(16), None);
        let flags = Flags::new(scenario(), &[]).unwrap();
        let (controller, mut gate) = channel(flags, bus, true);
        let shared = SharedGate::new(&mut gate);
        let first = shared.pass(GatePoint::Wave { wave: 1 });
        let second = shared.pass(GatePoint::Retry {
            task: "t1".into(),
            attempt: 2,
        });
        let both = async { tokio::join!(first, second) };
        let held = tokio::time::timeout(Duration::from_secs(60), both).await;
        assert!(held.is_err(), "paused: neither passes");

        let first = shared.pass(GatePoint::Wave { wave: 1 });
        let second = shared.pass(GatePoint::Retry {
            task: "t1".into(),
            attempt: 2,
        });
        controller.resume().unwrap();
        let (a, b) = tokio::join!(first, second);
        assert_eq!((a, b), (Ok(()), Ok(())));
    }
}
