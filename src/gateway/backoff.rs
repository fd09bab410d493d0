//! The delay before each retry of one call: a list of delays or
//! exponential backoff, randomised by one of the jitter modes of the AWS
//! architecture blog's "Exponential Backoff And Jitter". Draws only from
//! the run's seeded source, so the same run waits the same delays. It
//! computes delays and never waits.

use crate::rng::RunRng;
use crate::scenario::{BackoffSpec, Jitter};
use std::time::Duration;

/// The delays of one call's retries, in order.
#[derive(Clone, Debug)]
pub(crate) struct Backoff {
    spec: BackoffSpec,
    jitter: Jitter,
    /// The last delay drawn, for decorrelated jitter.
    previous_ms: Option<u64>,
}

impl Backoff {
    pub(crate) fn new(spec: BackoffSpec, jitter: Jitter) -> Self {
        Backoff {
            spec,
            jitter,
            previous_ms: None,
        }
    }

    /// The delay before retry `retry` (1 for the first) without jitter:
    /// the list's entry (the last repeats), or base × 2^(retry-1) capped.
    pub(crate) fn base_delay_ms(&self, retry: u32) -> u64 {
        match &self.spec {
            BackoffSpec::List(delays) => {
                let index = (retry.max(1) - 1) as usize;
                delays
                    .get(index)
                    .or(delays.last())
                    .copied()
                    .unwrap_or_default()
            }
            BackoffSpec::Exponential(e) => {
                let doublings = (retry.max(1) - 1).min(63);
                e.base_ms.saturating_mul(1u64 << doublings).min(e.max_ms)
            }
        }
    }

    /// The first delay and the longest one: decorrelated jitter's floor
    /// and cap.
    fn floor_and_cap(&self) -> (u64, u64) {
        match &self.spec {
            BackoffSpec::List(delays) => (
                delays.first().copied().unwrap_or_default(),
                delays.iter().copied().max().unwrap_or_default(),
            ),
            BackoffSpec::Exponential(e) => (e.base_ms, e.max_ms),
        }
    }

    /// The delay before retry `retry`, jittered.
    pub(crate) fn next(&mut self, retry: u32, rng: &RunRng) -> Duration {
        let delay = self.base_delay_ms(retry);
        let ms = match self.jitter {
            Jitter::None => delay,
            Jitter::Full => rng.between(0, delay),
            Jitter::Equal => delay / 2 + rng.between(0, delay - delay / 2),
            Jitter::Decorrelated => {
                // sleep = min(cap, random_between(base, sleep * 3)), from base.
                let (base, cap) = self.floor_and_cap();
                let previous = self.previous_ms.unwrap_or(base);
                rng.between(base, previous.saturating_mul(3).max(base))
                    .min(cap)
            }
        };
        self.previous_ms = Some(ms);
        crate::duration::clamp_millis(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ExponentialBackoff;

    const DRAWS: u32 = 2000;

    fn exponential(base_ms: u64, max_ms: u64) -> BackoffSpec {
        BackoffSpec::Exponential(ExponentialBackoff { base_ms, max_ms })
    }

    #[test]
    fn delays_follow_the_list_or_double_up_to_the_cap() {
        let list = Backoff::new(BackoffSpec::List(vec![250, 750]), Jitter::None);
        let delays: Vec<u64> = (1..=4).map(|r| list.base_delay_ms(r)).collect();
        assert_eq!(delays, vec![250, 750, 750, 750], "the last repeats");
        let exp = Backoff::new(exponential(100, 1000), Jitter::None);
        let delays: Vec<u64> = (1..=6).map(|r| exp.base_delay_ms(r)).collect();
        assert_eq!(delays, vec![100, 200, 400, 800, 1000, 1000]);
        assert_eq!(exp.base_delay_ms(200), 1000, "no overflow far out");
    }

    #[test]
    fn no_jitter_waits_the_delay_and_draws_nothing() {
        let rng = RunRng::seeded(3);
        let mut b = Backoff::new(exponential(100, 1000), Jitter::None);
        assert_eq!(b.next(3, &rng), Duration::from_millis(400));
        let untouched = RunRng::seeded(3);
        assert_eq!(rng.between(0, 1 << 40), untouched.between(0, 1 << 40));
    }

    #[test]
    fn full_jitter_stays_within_zero_and_the_delay() {
        let rng = RunRng::seeded(11);
        let mut b = Backoff::new(exponential(100, 1600), Jitter::Full);
        let mut seen = Vec::new();
        for i in 0..DRAWS {
            let retry = i % 6 + 1;
            let cap = b.base_delay_ms(retry);
            let ms = b.next(retry, &rng).as_millis() as u64;
            assert!(ms <= cap, "retry {retry}: {ms} > {cap}");
            seen.push(ms);
        }
        assert!(seen.iter().any(|ms| *ms < 50), "reaches down to zero");
        assert!(seen.iter().any(|ms| *ms > 1500), "reaches up to the cap");
    }

    #[test]
    fn equal_jitter_keeps_half_the_delay() {
        let rng = RunRng::seeded(12);
        let mut b = Backoff::new(BackoffSpec::List(vec![250, 751]), Jitter::Equal);
        for i in 0..DRAWS {
            let retry = i % 3 + 1;
            let delay = b.base_delay_ms(retry);
            let ms = b.next(retry, &rng).as_millis() as u64;
            assert!(
                (delay / 2..=delay).contains(&ms),
                "retry {retry}: {ms} outside {}..={delay}",
                delay / 2
            );
        }
    }

    #[test]
    fn decorrelated_jitter_stays_between_the_base_and_three_times_the_last_capped() {
        let rng = RunRng::seeded(13);
        for _ in 0..DRAWS / 10 {
            let mut b = Backoff::new(exponential(100, 5000), Jitter::Decorrelated);
            let mut previous = 100;
            for retry in 1..=10 {
                let ms = b.next(retry, &rng).as_millis() as u64;
                assert!((100..=5000).contains(&ms), "{ms}");
                assert!(ms <= previous * 3, "{ms} > 3 × {previous}");
                previous = ms;
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_delays() {
        let draws = |seed| {
            let rng = RunRng::seeded(seed);
            let mut b = Backoff::new(exponential(100, 2000), Jitter::Full);
            (1..=20).map(|r| b.next(r, &rng)).collect::<Vec<_>>()
        };
        assert_eq!(draws(5), draws(5));
        assert_ne!(draws(5), draws(6));
    }
}
