//! The run's one seeded random source. Every random choice of a run
//! (simulated latency, backoff jitter) draws from it in the order the run
//! makes them, so the same seed gives the same run.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::{Arc, Mutex, PoisonError};

#[derive(Clone, Debug)]
pub(crate) struct RunRng {
    inner: Arc<Mutex<ChaCha8Rng>>,
}

impl RunRng {
    pub(crate) fn seeded(seed: u64) -> Self {
        RunRng {
            inner: Arc::new(Mutex::new(ChaCha8Rng::seed_from_u64(seed))),
        }
    }

    /// A whole number drawn uniformly from `min..=max`.
    pub(crate) fn between(&self, min: u64, max: u64) -> u64 {
        if min >= max {
            return min;
        }
        let mut rng = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        rng.random_range(min..=max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_numbers() {
        let a = RunRng::seeded(7);
        let b = RunRng::seeded(7);
        let draws_a: Vec<u64> = (0..50).map(|_| a.between(150, 700)).collect();
        let draws_b: Vec<u64> = (0..50).map(|_| b.between(150, 700)).collect();
        assert_eq!(draws_a, draws_b);
        assert!(draws_a.iter().all(|d| (150..=700).contains(d)));
        let c = RunRng::seeded(8);
        let draws_c: Vec<u64> = (0..50).map(|_| c.between(150, 700)).collect();
        assert_ne!(draws_a, draws_c, "another seed, other draws");
    }
}
