//! One tool's circuit breaker as a pure state machine over run time (003):
//! closed → open on `fail_threshold` consecutive failures or a failure rate
//! over the last calls; open fails fast for `open_for_ms`; the first call
//! after that turns it half-open and goes through as a probe; at most
//! `half_open_probes` probes pass; all succeeding closes it, any failing
//! reopens it. It never reads a clock or publishes: the gateway passes the
//! time in and publishes the transitions it returns.

use crate::bus::{BreakerReason, BreakerState};
use crate::scenario::BreakerRule;
use std::collections::VecDeque;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Breaker {
    rule: BreakerRule,
    state: BreakerState,
    opened_at: Duration,
    consecutive: u32,
    /// The last calls' outcomes, `true` for a failure (the failure-rate
    /// window).
    window: VecDeque<bool>,
    probes_admitted: u32,
    probes_passed: u32,
    /// Bumped on every change of state, so a probe of an earlier half-open
    /// period cannot close or reopen a later one.
    generation: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Transition {
    pub(crate) from: BreakerState,
    pub(crate) to: BreakerState,
    pub(crate) reason: BreakerReason,
}

/// A call the breaker let through; its outcome goes back with
/// [`Breaker::record`] or, if it never ran, [`Breaker::abandon`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ticket {
    generation: u64,
    probe: bool,
}

impl Breaker {
    pub(crate) fn new(rule: BreakerRule) -> Self {
        Breaker {
            rule,
            state: BreakerState::Closed,
            opened_at: Duration::ZERO,
            consecutive: 0,
            window: VecDeque::new(),
            probes_admitted: 0,
            probes_passed: 0,
            generation: 0,
        }
    }

    #[cfg(test)]
    pub(crate) fn state(&self) -> BreakerState {
        self.state
    }

    fn open_for(&self) -> Duration {
        crate::duration::clamp_millis(self.rule.open_for_ms)
    }

    fn moved(&mut self, to: BreakerState, reason: BreakerReason) -> Transition {
        let from = self.state;
        self.state = to;
        self.generation += 1;
        self.probes_admitted = 0;
        self.probes_passed = 0;
        Transition { from, to, reason }
    }

    fn open(&mut self, now: Duration, reason: BreakerReason) -> Transition {
        self.opened_at = now;
        self.moved(BreakerState::Open, reason)
    }

    /// May a call go through at run time `now`? `Err` means fail fast. The
    /// transition is the open → half-open move this call makes, if any.
    pub(crate) fn admit(&mut self, now: Duration) -> (Result<Ticket, ()>, Option<Transition>) {
        let mut transition = None;
        if self.state == BreakerState::Open {
            if now.saturating_sub(self.opened_at) < self.open_for() {
                return (Err(()), None);
            }
            transition = Some(self.moved(BreakerState::HalfOpen, BreakerReason::CooledDown));
        }
        let ticket = match self.state {
            BreakerState::HalfOpen if self.probes_admitted >= self.rule.half_open_probes => {
                return (Err(()), transition);
            }
            BreakerState::HalfOpen => {
                self.probes_admitted += 1;
                Ticket {
                    generation: self.generation,
                    probe: true,
                }
            }
            _ => Ticket {
                generation: self.generation,
                probe: false,
            },
        };
        (Ok(ticket), transition)
    }

    /// The outcome of a call it let through. While closed every outcome
    /// counts, a late one too; while open none does; while half-open only
    /// this period's probes do.
    pub(crate) fn record(
        &mut self,
        ticket: Ticket,
        failed: bool,
        now: Duration,
    ) -> Option<Transition> {
        match self.state {
            BreakerState::Closed => {
                self.window.push_back(failed);
                if let Some(rate) = self.rule.failure_rate {
                    while self.window.len() > rate.window as usize {
                        self.window.pop_front();
                    }
                }
                self.consecutive = if failed { self.consecutive + 1 } else { 0 };
                if self
                    .rule
                    .fail_threshold
                    .is_some_and(|n| self.consecutive >= n)
                {
                    return Some(self.open(now, BreakerReason::FailureThreshold));
                }
                // The rate is evaluated on every call, a success too, as
                // resilience4j does once the window holds `min_calls`.
                if self.rate_tripped() {
                    return Some(self.open(now, BreakerReason::FailureRate));
                }
                None
            }
            BreakerState::Open => None,
            BreakerState::HalfOpen => {
                if !ticket.probe || ticket.generation != self.generation {
                    return None;
                }
                if failed {
                    return Some(self.open(now, BreakerReason::ProbeFailed));
                }
                self.probes_passed += 1;
                if self.probes_passed >= self.rule.half_open_probes {
                    self.consecutive = 0;
                    self.window.clear();
                    return Some(self.moved(BreakerState::Closed, BreakerReason::ProbesSucceeded));
                }
                None
            }
        }
    }

    fn rate_tripped(&self) -> bool {
        let Some(rate) = self.rule.failure_rate else {
            return false;
        };
        let calls = self.window.len();
        if calls < rate.min_calls as usize {
            return false;
        }
        let failures = self.window.iter().filter(|f| **f).count();
        failures as f64 / calls as f64 >= rate.threshold
    }

    /// A call it let through never ran (cancelled, or refused by the
    /// bulkhead): its probe slot is free again.
    pub(crate) fn abandon(&mut self, ticket: Ticket) {
        if ticket.probe && ticket.generation == self.generation && self.probes_admitted > 0 {
            self.probes_admitted -= 1;
        }
    }

    /// Forget everything: a flag switched the breaker off.
    pub(crate) fn reset(&mut self) -> Option<Transition> {
        self.consecutive = 0;
        self.window.clear();
        if self.state == BreakerState::Closed {
            self.generation += 1;
            return None;
        }
        Some(self.moved(BreakerState::Closed, BreakerReason::SwitchedOff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::FailureRule;
    use BreakerState::{Closed, HalfOpen, Open};

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    fn breaker(threshold: u32, probes: u32) -> Breaker {
        Breaker::new(BreakerRule {
            fail_threshold: Some(threshold),
            open_for_ms: 1000,
            half_open_probes: probes,
            failure_rate: None,
        })
    }

    /// Let a call through at `at` and record its outcome; the transitions
    /// it caused.
    fn call(b: &mut Breaker, at: u64, failed: bool) -> Vec<Transition> {
        let (ticket, moved) = b.admit(ms(at));
        let mut all: Vec<Transition> = moved.into_iter().collect();
        let ticket = ticket.expect("let through");
        all.extend(b.record(ticket, failed, ms(at)));
        all
    }

    fn to(t: &[Transition]) -> Vec<(BreakerState, BreakerReason)> {
        t.iter().map(|t| (t.to, t.reason)).collect()
    }

    #[test]
    fn consecutive_failures_open_it_and_a_success_resets_the_count() {
        let mut b = breaker(3, 1);
        assert!(call(&mut b, 0, true).is_empty());
        assert!(call(&mut b, 10, true).is_empty());
        assert!(call(&mut b, 20, false).is_empty(), "reset by a success");
        assert!(call(&mut b, 30, true).is_empty());
        assert!(call(&mut b, 40, true).is_empty());
        let opened = call(&mut b, 50, true);
        assert_eq!(
            opened,
            vec![Transition {
                from: Closed,
                to: Open,
                reason: BreakerReason::FailureThreshold
            }]
        );
    }

    #[test]
    fn open_fails_fast_until_open_for_has_passed_then_probes() {
        let mut b = breaker(1, 1);
        call(&mut b, 100, true);
        assert_eq!(b.state(), Open);
        for at in [100, 500, 1099] {
            assert_eq!(b.admit(ms(at)), (Err(()), None), "at {at} ms");
        }
        let (ticket, moved) = b.admit(ms(1100));
        assert_eq!(
            moved.map(|t| (t.from, t.to, t.reason)),
            Some((Open, HalfOpen, BreakerReason::CooledDown))
        );
        assert_eq!(b.admit(ms(1100)), (Err(()), None), "one probe at a time");
        assert_eq!(
            b.record(ticket.unwrap(), false, ms(1200))
                .map(|t| (t.to, t.reason)),
            Some((Closed, BreakerReason::ProbesSucceeded))
        );
        assert!(call(&mut b, 1300, false).is_empty());
    }

    #[test]
    fn half_open_lets_every_probe_through_and_closes_when_all_succeed() {
        let mut b = breaker(1, 3);
        call(&mut b, 0, true);
        let probes: Vec<Ticket> = (0..3).map(|_| b.admit(ms(1000)).0.unwrap()).collect();
        assert_eq!(b.state(), HalfOpen);
        assert_eq!(b.admit(ms(1000)).0, Err(()), "a fourth is rejected");
        assert_eq!(b.record(probes[0], false, ms(1100)), None);
        assert_eq!(b.record(probes[1], false, ms(1100)), None);
        assert_eq!(b.state(), HalfOpen, "not before the last probe");
        assert_eq!(
            b.record(probes[2], false, ms(1200)).map(|t| t.to),
            Some(Closed)
        );
    }

    #[test]
    fn a_failed_probe_reopens_it_for_a_new_period_and_stale_probes_are_ignored() {
        let mut b = breaker(1, 2);
        call(&mut b, 0, true);
        let first = b.admit(ms(1000)).0.unwrap();
        let second = b.admit(ms(1000)).0.unwrap();
        assert_eq!(
            to(&b
                .record(first, true, ms(1500))
                .into_iter()
                .collect::<Vec<_>>()),
            vec![(Open, BreakerReason::ProbeFailed)]
        );
        assert_eq!(b.record(second, false, ms(1600)), None, "open ignores it");
        assert_eq!(b.admit(ms(2499)).0, Err(()), "open for 1000 ms from 1500");
        let probe = b.admit(ms(2500)).0.unwrap();
        assert_eq!(
            b.record(second, false, ms(2600)),
            None,
            "a probe of the last period"
        );
        assert_eq!(b.state(), HalfOpen);
        assert_eq!(b.record(probe, false, ms(2600)), None);
        let other = b.admit(ms(2600)).0.unwrap();
        assert_eq!(b.record(other, false, ms(2700)).map(|t| t.to), Some(Closed));
    }

    #[test]
    fn an_abandoned_probe_frees_its_slot() {
        let mut b = breaker(1, 1);
        call(&mut b, 0, true);
        let probe = b.admit(ms(1000)).0.unwrap();
        assert_eq!(b.admit(ms(1000)).0, Err(()));
        b.abandon(probe);
        assert!(b.admit(ms(1000)).0.is_ok());
    }

    #[test]
    fn the_failure_rate_over_the_window_opens_it() {
        let mut b = Breaker::new(BreakerRule {
            fail_threshold: None,
            open_for_ms: 1000,
            half_open_probes: 1,
            failure_rate: Some(FailureRule {
                window: 4,
                threshold: 0.5,
                min_calls: 4,
            }),
        });
        for (i, failed) in [true, false, true].into_iter().enumerate() {
            assert!(
                call(&mut b, i as u64, failed).is_empty(),
                "fewer than min_calls"
            );
        }
        assert_eq!(
            to(&call(&mut b, 3, false)),
            vec![(Open, BreakerReason::FailureRate)],
            "2 of the last 4 failed"
        );
        // The window slides: only the last 4 count.
        let mut b = Breaker::new(BreakerRule {
            fail_threshold: None,
            open_for_ms: 1000,
            half_open_probes: 1,
            failure_rate: Some(FailureRule {
                window: 4,
                threshold: 0.75,
                min_calls: 2,
            }),
        });
        for (i, failed) in [true, false, false, false, true, true]
            .into_iter()
            .enumerate()
        {
            assert!(call(&mut b, i as u64, failed).is_empty(), "call {i}");
        }
        assert_eq!(
            to(&call(&mut b, 6, true)),
            vec![(Open, BreakerReason::FailureRate)],
            "3 of the last 4"
        );
    }

    #[test]
    fn reset_closes_it_and_forgets_its_failures() {
        let mut b = breaker(2, 1);
        call(&mut b, 0, true);
        assert_eq!(b.reset(), None, "already closed");
        assert!(call(&mut b, 1, true).is_empty(), "the count starts again");
        call(&mut b, 2, true);
        assert_eq!(b.state(), Open);
        assert_eq!(
            b.reset().map(|t| (t.from, t.to, t.reason)),
            Some((Open, Closed, BreakerReason::SwitchedOff))
        );
        assert!(b.admit(ms(3)).0.is_ok());
    }
}
