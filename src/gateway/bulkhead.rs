//! One tool's bulkhead (003): at most `max_in_flight` calls to the tool at
//! once, so a slow dependency cannot take every worker with it. One more
//! waits for a slot up to `max_wait_ms`, first come first served, then is
//! refused. Every change of occupancy is published as a `bulkhead` event.
//! It never calls the tool or retries.

use crate::bus::{Bus, EventKind};
use crate::scenario::BulkheadRule;
use parking_lot::Mutex;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

#[derive(Debug)]
pub(crate) struct Bulkhead {
    rule: BulkheadRule,
    permits: Arc<Semaphore>,
    occupancy: Arc<Occupancy>,
}

/// Calls running and waiting, published on every change.
#[derive(Debug)]
struct Occupancy {
    tool: String,
    max: u32,
    bus: Bus,
    counts: Mutex<(u32, u32)>,
}

impl Occupancy {
    fn change(&self, in_flight: i32, queued: i32) {
        let (now_in_flight, now_queued) = {
            let mut counts = self.counts.lock();
            counts.0 = counts.0.saturating_add_signed(in_flight);
            counts.1 = counts.1.saturating_add_signed(queued);
            *counts
        };
        self.bus.publish(EventKind::Bulkhead {
            tool: self.tool.clone(),
            in_flight: now_in_flight,
            max: self.max,
            queued: now_queued,
        });
    }
}

/// A slot held by a running call; dropping it frees the slot.
#[derive(Debug)]
pub(crate) struct Slot {
    _permit: OwnedSemaphorePermit,
    occupancy: Arc<Occupancy>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.occupancy.change(-1, 0);
    }
}

/// A call waiting for a slot; dropping it (cancelled, or given up) leaves
/// the queue.
struct Waiting {
    occupancy: Arc<Occupancy>,
    seated: bool,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if !self.seated {
            self.occupancy.change(0, -1);
        }
    }
}

impl Bulkhead {
    pub(crate) fn new(tool: &str, rule: BulkheadRule, bus: Bus) -> Self {
        Bulkhead {
            rule,
            permits: Arc::new(Semaphore::new(rule.max_in_flight as usize)),
            occupancy: Arc::new(Occupancy {
                tool: tool.to_string(),
                max: rule.max_in_flight,
                bus,
                counts: Mutex::new((0, 0)),
            }),
        }
    }

    /// A slot, at once or after waiting up to `max_wait_ms`; `Err` when the
    /// bulkhead stayed full.
    pub(crate) async fn enter(&self) -> Result<Slot, ()> {
        if let Ok(permit) = Arc::clone(&self.permits).try_acquire_owned() {
            self.occupancy.change(1, 0);
            return Ok(self.slot(permit));
        }
        if self.rule.max_wait_ms == 0 {
            return Err(());
        }
        self.occupancy.change(0, 1);
        let mut waiting = Waiting {
            occupancy: Arc::clone(&self.occupancy),
            seated: false,
        };
        let wait = crate::duration::clamp_millis(self.rule.max_wait_ms);
        match tokio::time::timeout(wait, Arc::clone(&self.permits).acquire_owned()).await {
            Ok(Ok(permit)) => {
                waiting.seated = true;
                self.occupancy.change(1, -1);
                Ok(self.slot(permit))
            }
            // Waited too long (or the semaphore closed, which it never is).
            _ => Err(()),
        }
    }

    fn slot(&self, permit: OwnedSemaphorePermit) -> Slot {
        Slot {
            _permit: permit,
            occupancy: Arc::clone(&self.occupancy),
        }
    }

    #[cfg(test)]
    pub(crate) fn counts(&self) -> (u32, u32) {
        *self.occupancy.counts.lock()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{Delivery, Hub};
    use crate::clock::RunClock;
    use std::time::Duration;

    fn bulkhead(max_in_flight: u32, max_wait_ms: u64) -> (Bulkhead, crate::bus::Subscription) {
        let hub = Hub::new(256);
        let sub = hub.subscribe();
        let bus = Bus::new(1, RunClock::start(), hub, None);
        let rule = BulkheadRule {
            max_in_flight,
            max_wait_ms,
        };
        (Bulkhead::new("search", rule, bus), sub)
    }

    fn occupancy(sub: &mut crate::bus::Subscription) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        while let Some(Delivery::Event(e)) = sub.try_next() {
            if let EventKind::Bulkhead {
                in_flight, queued, ..
            } = e.kind
            {
                out.push((in_flight, queued));
            }
        }
        out
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_bulkhead_without_wait_refuses_at_once() {
        let (b, mut sub) = bulkhead(2, 0);
        let one = b.enter().await.unwrap();
        let _two = b.enter().await.unwrap();
        let start = tokio::time::Instant::now();
        assert!(b.enter().await.is_err());
        assert_eq!(start.elapsed(), Duration::ZERO);
        drop(one);
        assert!(b.enter().await.is_ok(), "a freed slot is taken");
        assert_eq!(
            occupancy(&mut sub),
            vec![(1, 0), (2, 0), (1, 0), (2, 0), (1, 0)]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_call_gets_the_next_free_slot_or_gives_up_after_max_wait() {
        let (b, mut sub) = bulkhead(1, 500);
        let held = b.enter().await.unwrap();
        let start = tokio::time::Instant::now();
        let release = async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            drop(held);
        };
        let (seated, ()) = tokio::join!(b.enter(), release);
        assert!(seated.is_ok());
        assert_eq!(
            start.elapsed(),
            Duration::from_millis(200),
            "seated when freed"
        );
        assert_eq!(b.counts(), (1, 0));

        let start = tokio::time::Instant::now();
        assert!(b.enter().await.is_err(), "still held");
        assert_eq!(
            start.elapsed(),
            Duration::from_millis(500),
            "waited max_wait_ms"
        );
        assert_eq!(b.counts(), (1, 0), "left the queue");
        assert_eq!(
            occupancy(&mut sub),
            vec![(1, 0), (1, 1), (0, 1), (1, 0), (1, 1), (1, 0)]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn waiters_are_seated_first_come_first_served() {
        let (b, _sub) = bulkhead(1, 10_000);
        let held = b.enter().await.unwrap();
        let order = Mutex::new(Vec::new());
        let waiter = |name: &'static str| {
            let (b, order) = (&b, &order);
            async move {
                let slot = b.enter().await.unwrap();
                order.lock().push(name);
                tokio::time::sleep(Duration::from_millis(10)).await;
                drop(slot);
            }
        };
        let release = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            drop(held);
        };
        tokio::join!(waiter("first"), waiter("second"), waiter("third"), release);
        assert_eq!(*order.lock(), vec!["first", "second", "third"]);
        assert_eq!(b.counts(), (0, 0));
    }
}
