//! The order in which a run's turns take their numbers when agents take
//! turns side by side: member calls of one coordinator turn, and the turns
//! of the member teams inside them. A turn's number is its gate (`turn 5`),
//! the key compare aligns two runs by and what a fork stops at, so it must
//! not depend on which model answered first. The run decides it instead.
//!
//! Every chain of turns that runs on its own is a *lane*: the scenario's
//! own team, and each member call (a plain member's conversation, or a
//! member team's run). The live lanes stand in a ring, in declaration
//! order: the scenario's lane first; a member call's lanes where their
//! caller stood, in the order the caller named them. Numbers go round the
//! ring: the lane whose place it is takes the next number when it starts
//! its next turn, and the place passes on. A lane that is still busy (its
//! model answering, a tool running) keeps the place until it starts a turn
//! or ends, so a lane never overtakes the one before it: member calls move
//! in rounds, turn by turn, whatever the endpoint's latency.
//!
//! A lane that calls members steps out of the ring for their time and
//! takes the place of its last member when they are all done. When a turn
//! names more calls than may run at once, a waiting call starts in the
//! place of the one that ended before it, at that call's place in the
//! round (which call ends first would otherwise decide the order).

use parking_lot::Mutex;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;
use tokio::sync::Notify;

/// One chain of turns of a run.
pub(crate) type Lane = u64;

/// The scenario's own team.
pub(crate) const SCENARIO_LANE: Lane = 0;

/// The run's ring of lanes and the numbers given so far.
#[derive(Default)]
pub(crate) struct TurnOrder {
    ring: Mutex<Ring>,
}

struct Ring {
    /// The live lanes, in the order the numbers go round.
    lanes: Vec<Lane>,
    /// Index into `lanes` of the lane whose place it is.
    place: usize,
    numbered: u32,
    /// A turn met a stop of the whole run: no member call starts after.
    run_stopped: bool,
    next_lane: Lane,
    /// The member calls of each lane that called members.
    calls: HashMap<Lane, Calls>,
    /// The caller of each running member call.
    caller: HashMap<Lane, Lane>,
    /// What wakes a lane that waits for its place.
    waiting: HashMap<Lane, Arc<Notify>>,
}

impl Default for Ring {
    fn default() -> Self {
        Ring {
            lanes: vec![SCENARIO_LANE],
            place: 0,
            numbered: 0,
            run_stopped: false,
            next_lane: SCENARIO_LANE + 1,
            calls: HashMap::new(),
            caller: HashMap::new(),
            waiting: HashMap::new(),
        }
    }
}

/// The member calls one turn made: those running, and those still to
/// start (a range of lanes, so that a turn of 100,000 calls holds no more
/// than the calls in flight).
struct Calls {
    running: usize,
    to_start: Range<Lane>,
}

impl Ring {
    /// Where `lane` stands in the ring: looked up from the place first,
    /// where a lane that numbers a turn or ends a call almost always is
    /// (the ring holds up to 256 member calls).
    fn index_of(&self, lane: Lane) -> Option<usize> {
        if self.holds_place(lane) {
            return Some(self.place);
        }
        self.lanes.iter().position(|&l| l == lane)
    }

    fn holds_place(&self, lane: Lane) -> bool {
        self.lanes.get(self.place) == Some(&lane)
    }

    /// Wake the lane whose place it now is, if it waits (or give it the
    /// wake-up for when it does). A lane that never waited has nothing to
    /// wake: it finds its place when it looks (`TurnOrder::at_place`
    /// registers a lane before it lets the ring go), so no `Notify` is
    /// made for it; most member calls of a coordinator's fan-out never
    /// wait (the `coordinator_100k` row).
    fn wake_holder(&mut self) {
        let Some(&holder) = self.lanes.get(self.place) else {
            return;
        };
        if let Some(waiting) = self.waiting.get(&holder) {
            waiting.notify_one();
        }
    }

    fn notify_of(&mut self, lane: Lane) -> Arc<Notify> {
        Arc::clone(self.waiting.entry(lane).or_default())
    }

    fn pass_place(&mut self) {
        self.place = (self.place + 1) % self.lanes.len().max(1);
        self.wake_holder();
    }

    /// Take `lane` out of the ring; its caller comes back in its place
    /// when it was the caller's last call.
    fn remove(&mut self, lane: Lane) {
        self.waiting.remove(&lane);
        let Some(index) = self.index_of(lane) else {
            return;
        };
        let caller = self.caller.remove(&lane);
        let back = caller.filter(|caller| {
            let Some(calls) = self.calls.get_mut(caller) else {
                return false;
            };
            calls.running = calls.running.saturating_sub(1);
            calls.running == 0 && calls.to_start.is_empty()
        });
        match back {
            Some(caller) => {
                self.calls.remove(&caller);
                self.lanes[index] = caller;
            }
            None => {
                self.lanes.remove(index);
                if index < self.place {
                    self.place -= 1;
                }
            }
        }
        if self.place >= self.lanes.len() {
            self.place = 0;
        }
        self.wake_holder();
    }
}

/// A turn's number, given while its lane holds the place: the place
/// passes on when this is dropped, so a turn's gate is passed before the
/// next lane's turn starts.
pub(crate) struct Numbered<'a> {
    order: &'a TurnOrder,
    lane: Lane,
    pub(crate) number: u32,
}

impl Numbered<'_> {
    /// The turn met a stop of the whole run (cancelled, out of time, out
    /// of calls or money) before its call: no member call starts after it.
    pub(crate) fn stop_run(self) {
        self.order.ring.lock().run_stopped = true;
    }
}

impl Drop for Numbered<'_> {
    fn drop(&mut self) {
        let mut ring = self.order.ring.lock();
        if ring.holds_place(self.lane) {
            ring.pass_place();
        }
    }
}

impl TurnOrder {
    /// The next number, for `lane`'s turn, once it is the lane's place.
    pub(crate) async fn number(&self, lane: Lane) -> Numbered<'_> {
        let take = |ring: &mut Ring| {
            ring.numbered += 1;
            ring.numbered
        };
        let number = match self.at_place(lane, take).await {
            Some(number) => number,
            // A lane that is not in the ring (it can only be one whose run
            // is being dropped) numbers on without an order.
            None => {
                let mut ring = self.ring.lock();
                ring.numbered += 1;
                ring.numbered
            }
        };
        Numbered {
            order: self,
            lane,
            number,
        }
    }

    /// `caller` calls `count` members, at most `at_once` at a time: the
    /// lanes of the calls, in the order named. The first `at_once` run
    /// now, in the caller's place; the others wait for [`TurnOrder::end`]
    /// to start them.
    pub(crate) fn call(&self, caller: Lane, count: usize, at_once: usize) -> Range<Lane> {
        let mut ring = self.ring.lock();
        let first = ring.next_lane;
        let lanes = first..first + count as u64;
        if count == 0 {
            return lanes;
        }
        ring.next_lane = lanes.end;
        let now = count.min(at_once.max(1));
        let running = first..first + now as u64;
        for lane in running.clone() {
            ring.caller.insert(lane, caller);
        }
        ring.calls.insert(
            caller,
            Calls {
                running: now,
                to_start: running.end..lanes.end,
            },
        );
        match ring.index_of(caller) {
            Some(index) => {
                ring.lanes.splice(index..=index, running);
                if index < ring.place {
                    ring.place += now - 1;
                }
            }
            // A caller outside the ring (see `number`) keeps its calls
            // in order at the end.
            None => ring.lanes.extend(running),
        }
        ring.wake_holder();
        lanes
    }

    /// `lane`'s member call ended; `stops_run` when it met a stop of the
    /// whole run, after which none of its caller's calls still to start
    /// does. The call that starts in its place, if one does.
    pub(crate) async fn end(&self, lane: Lane, stops_run: bool) -> Option<Lane> {
        let at_place = |ring: &mut Ring| {
            let caller = ring.caller.get(&lane).copied();
            let calls = caller.and_then(|caller| ring.calls.get_mut(&caller))?;
            if stops_run || ring.run_stopped {
                calls.to_start.end = calls.to_start.start;
            }
            let Some(next) = calls.to_start.next() else {
                ring.remove(lane);
                return None;
            };
            let index = ring.index_of(lane).expect("the lane holds the place");
            ring.caller.remove(&lane);
            ring.waiting.remove(&lane);
            ring.caller
                .insert(next, caller.expect("a running call has a caller"));
            ring.lanes[index] = next;
            ring.wake_holder();
            Some(next)
        };
        {
            // Without calls still to start, the end changes no one's
            // order: out at once, wherever the place is.
            let mut ring = self.ring.lock();
            let starts_one = !ring.run_stopped
                && ring
                    .caller
                    .get(&lane)
                    .and_then(|caller| ring.calls.get(caller))
                    .is_some_and(|calls| !calls.to_start.is_empty());
            if !starts_one {
                ring.remove(lane);
                return None;
            }
        }
        // Which call ends first must not decide where the next starts: it
        // starts at this call's place in the round.
        self.at_place(lane, at_place).await.flatten()
    }

    /// A lane of its own, outside the ring, for a chain of turns no lane
    /// of the ring called (a graph's team node): its turns number as they
    /// come, and the member calls it makes join the ring.
    pub(crate) fn outside(&self) -> Lane {
        let mut ring = self.ring.lock();
        let lane = ring.next_lane;
        ring.next_lane += 1;
        lane
    }

    /// `lane` is gone without ending (its run was dropped): out of the
    /// ring at once, so that no other lane waits for it.
    pub(crate) fn leave(&self, lane: Lane) {
        let mut ring = self.ring.lock();
        if let Some(caller) = ring.caller.get(&lane).copied()
            && let Some(calls) = ring.calls.get_mut(&caller)
        {
            calls.to_start.end = calls.to_start.start;
        }
        ring.remove(lane);
    }

    /// Run `take` on the ring once `lane` holds the place, until it is
    /// done; `None` when the lane is not in the ring.
    async fn at_place<T>(&self, lane: Lane, take: impl FnOnce(&mut Ring) -> T) -> Option<T> {
        loop {
            let notify = {
                let mut ring = self.ring.lock();
                if ring.holds_place(lane) {
                    return Some(take(&mut ring));
                }
                ring.index_of(lane)?;
                // Registered before the ring is let go: a place passed to
                // this lane from then on wakes it.
                ring.notify_of(lane)
            };
            // A wake-up given since the lock was let go is kept.
            notify.notified().await;
        }
    }
}

#[cfg(test)]
#[path = "turn_order_tests.rs"]
mod tests;
