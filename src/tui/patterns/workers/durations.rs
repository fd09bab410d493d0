//! How long the orchestrator's worker attempts took, as a histogram kept as
//! attempts finish: a run of 100,000 tasks is read from its shape (most in
//! 20–50 ms, a tail at the timeout) where its rows could never all be shown.

/// The upper bound of each bin, in milliseconds: a 1-2-5 scale from 1 ms
/// to a minute, the last bin open.
pub(crate) const BOUNDS_MS: [u64; 16] = [
    1,
    2,
    5,
    10,
    20,
    50,
    100,
    200,
    500,
    1_000,
    2_000,
    5_000,
    10_000,
    30_000,
    60_000,
    u64::MAX,
];

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Durations {
    bins: [u64; BOUNDS_MS.len()],
    count: u64,
    max_ms: u64,
}

impl Durations {
    /// Count one finished attempt that took `ms`.
    pub(crate) fn add(&mut self, ms: u64) {
        let bin = BOUNDS_MS.partition_point(|bound| *bound < ms);
        self.bins[bin] += 1;
        self.count += 1;
        self.max_ms = self.max_ms.max(ms);
    }

    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    pub(crate) fn max_ms(&self) -> u64 {
        self.max_ms
    }

    /// The bins from the first to the last that holds an attempt, each
    /// with its upper bound; empty before any attempt finished.
    pub(crate) fn span(&self) -> &[u64] {
        let first = self.bins.iter().position(|n| *n > 0);
        let last = self.bins.iter().rposition(|n| *n > 0);
        match (first, last) {
            (Some(first), Some(last)) => &self.bins[first..=last],
            _ => &[],
        }
    }

    /// The upper bound of the first bin shown by [`Durations::span`].
    pub(crate) fn span_start_ms(&self) -> u64 {
        self.bins
            .iter()
            .position(|n| *n > 0)
            .map_or(0, |first| BOUNDS_MS[first])
    }

    /// The bound under which `per_cent` of the attempts finished: the
    /// upper bound of the bin the percentile falls in (the longest attempt
    /// for the open last bin).
    pub(crate) fn at_most_ms(&self, per_cent: u64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let wanted = (self.count * per_cent).div_ceil(100).max(1);
        let mut seen = 0;
        for (bin, n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= wanted {
                return Some(BOUNDS_MS[bin].min(self.max_ms));
            }
        }
        Some(self.max_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_land_in_the_bin_of_their_upper_bound() {
        let mut durations = Durations::default();
        for ms in [0, 1, 2, 3, 20, 21, 50, 49, 2_000, 90_000] {
            durations.add(ms);
        }
        assert_eq!(durations.count(), 10);
        assert_eq!(durations.max_ms(), 90_000);
        // 0 and 1 ≤ 1; 2 ≤ 2; 3 ≤ 5; 20 ≤ 20; 21, 49, 50 ≤ 50; 2 s; 90 s open.
        assert_eq!(
            durations.bins,
            [2, 1, 1, 0, 1, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        );
        assert_eq!(durations.span().len(), 16);
        assert_eq!(durations.span_start_ms(), 1);
    }

    #[test]
    fn percentiles_are_the_bound_of_the_bin_they_fall_in() {
        let mut durations = Durations::default();
        assert_eq!(durations.at_most_ms(50), None);
        assert!(durations.span().is_empty());
        for ms in 1..=100 {
            durations.add(ms);
        }
        // 50 of 100 attempts took at most 50 ms; 95 at most 100 ms.
        assert_eq!(durations.at_most_ms(50), Some(50));
        assert_eq!(durations.at_most_ms(95), Some(100));
        assert_eq!(durations.at_most_ms(100), Some(100));
        durations.add(45_000);
        assert_eq!(durations.at_most_ms(100), Some(45_000));
        assert_eq!(durations.span_start_ms(), 1);
        assert_eq!(durations.span().len(), 15);
    }
}
