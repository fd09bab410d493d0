//! The run's retry budget (the SRE book's per-client budget): retries may
//! not exceed a share of first calls, plus a small allowance. It counts;
//! it never waits or retries.

use crate::scenario::RetryBudgetSpec;
use parking_lot::Mutex;

#[derive(Debug)]
pub(crate) struct RetryBudget {
    ratio: f64,
    min_retries: u64,
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    first_calls: u64,
    retries: u64,
}

impl RetryBudget {
    pub(crate) fn new(spec: &RetryBudgetSpec) -> Self {
        RetryBudget {
            ratio: spec.ratio,
            min_retries: spec.min_retries.unwrap_or(0),
            counts: Mutex::new(Counts::default()),
        }
    }

    /// A call made its first attempt.
    pub(crate) fn first_call(&self) {
        self.counts.lock().first_calls += 1;
    }

    /// May one more retry happen? It is counted when it may.
    pub(crate) fn try_retry(&self) -> bool {
        let mut counts = self.counts.lock();
        let allowed = self.min_retries as f64 + self.ratio * counts.first_calls as f64;
        if (counts.retries + 1) as f64 <= allowed + 1e-9 {
            counts.retries += 1;
            true
        } else {
            false
        }
    }

    /// (first calls, retries) so far.
    #[cfg(test)]
    fn counts(&self) -> (u64, u64) {
        let counts = self.counts.lock();
        (counts.first_calls, counts.retries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(ratio: f64, min_retries: Option<u64>) -> RetryBudget {
        RetryBudget::new(&RetryBudgetSpec { ratio, min_retries })
    }

    #[test]
    fn retries_stay_within_the_share_of_first_calls() {
        let b = budget(0.1, None);
        for _ in 0..9 {
            b.first_call();
        }
        assert!(!b.try_retry(), "0.9 retries allowed after 9 calls");
        b.first_call();
        assert!(b.try_retry(), "1 after 10");
        assert!(!b.try_retry(), "and only 1");
        for _ in 0..10 {
            b.first_call();
        }
        assert!(b.try_retry());
        assert!(!b.try_retry());
        assert_eq!(b.counts(), (20, 2), "refused retries are not counted");
    }

    #[test]
    fn min_retries_lets_the_first_failures_retry() {
        let b = budget(0.5, Some(2));
        b.first_call();
        assert!(b.try_retry());
        assert!(b.try_retry());
        assert!(!b.try_retry(), "2 + 0.5 × 1 = 2.5");
        b.first_call();
        assert!(b.try_retry(), "2 + 0.5 × 2 = 3");
        let none = budget(0.0, None);
        none.first_call();
        assert!(!none.try_retry());
    }
}
