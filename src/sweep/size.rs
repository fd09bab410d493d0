//! How many runs a sweep makes, counted from its arguments before anything
//! is made (seeds × combinations, in 128 bits so that no range or flag
//! list overflows the count), and the caps on a sweep: the runs it may make
//! (`CONCLAVE_MAX_SWEEP_RUNS`) and the threads it may run them on.

use super::plan::SweepPlan;
use std::fmt;
use std::ops::RangeInclusive;

/// The runs a sweep may make unless `CONCLAVE_MAX_SWEEP_RUNS` says
/// otherwise. A sweep keeps each run's result (a few hundred bytes) to
/// tally it, so a million runs hold a few hundred MB by their end.
pub const DEFAULT_MAX_RUNS: u64 = 1_000_000;

/// The environment variable that changes [`DEFAULT_MAX_RUNS`].
pub const MAX_RUNS_VAR: &str = "CONCLAVE_MAX_SWEEP_RUNS";

/// The most threads `--parallel` may ask for: each is a thread of the
/// system with its own stack and runtime, and far past the cores a run on
/// the virtual clock gains nothing; runs waiting on a real model or
/// program gain up to about this many.
pub const MAX_PARALLEL: usize = 1024;

/// The cap on a sweep's runs: [`MAX_RUNS_VAR`] when set, else
/// [`DEFAULT_MAX_RUNS`]; a setting that is not a count of 1 or more is an
/// error that says so rather than a silent default.
pub fn max_runs() -> Result<u64, String> {
    match std::env::var(MAX_RUNS_VAR) {
        Err(std::env::VarError::NotPresent) => Ok(DEFAULT_MAX_RUNS),
        Ok(value) => max_runs_of(&value),
        Err(std::env::VarError::NotUnicode(value)) => max_runs_of(&value.to_string_lossy()),
    }
}

fn max_runs_of(value: &str) -> Result<u64, String> {
    value
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| {
            let shown: String = value.chars().take(80).collect();
            format!(
                "{MAX_RUNS_VAR}: expected a whole number of runs, 1 or more (the default is {DEFAULT_MAX_RUNS}), found {:?}",
                crate::sanitize::clean(&shown)
            )
        })
}

/// A sweep asked for more runs than its cap, and what makes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooManyRuns {
    seeds: RangeInclusive<u64>,
    flags: usize,
    /// `None`: more than 128 bits count.
    combinations: Option<u128>,
    runs: Option<u128>,
    cap: u64,
}

impl fmt::Display for TooManyRuns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (from, to) = (self.seeds.start(), self.seeds.end());
        let runs = count_words(self.runs);
        if self.flags == 0 {
            write!(
                f,
                "--seeds {from}..{to} makes {runs} runs, more than the {} a sweep may make; sweep fewer seeds, or raise the cap with {MAX_RUNS_VAR}=<runs>",
                self.cap
            )
        } else {
            write!(
                f,
                "--seeds {from}..{to} ({}) under the values of {} ({} combinations) makes {runs} runs, more than the {} a sweep may make; sweep fewer seeds or flags, or raise the cap with {MAX_RUNS_VAR}=<runs>",
                match seed_count(&self.seeds) {
                    1 => "1 seed".to_string(),
                    n => format!("{n} seeds"),
                },
                crate::words::plural(self.flags as u64, "--flag"),
                count_words(self.combinations),
                self.cap
            )
        }
    }
}

/// A count, or what is known of it past 128 bits.
fn count_words(count: Option<u128>) -> String {
    count.map_or_else(|| format!("more than {}", u128::MAX), |n| n.to_string())
}

/// The seeds of a range, both ends included (2^64 for the whole range).
fn seed_count(seeds: &RangeInclusive<u64>) -> u128 {
    if seeds.start() > seeds.end() {
        return 0;
    }
    u128::from(*seeds.end()) - u128::from(*seeds.start()) + 1
}

impl SweepPlan {
    /// The seeds each combination runs.
    pub(crate) fn seed_count(&self) -> u128 {
        seed_count(&self.seeds)
    }

    /// The combinations of the flag values: the product of each flag's
    /// number of values; `None` past 128 bits.
    pub(crate) fn combinations_counted(&self) -> Option<u128> {
        self.flags.iter().try_fold(1u128, |n, (_, values)| {
            n.checked_mul(u128::try_from(values.len()).ok()?)
        })
    }

    /// The runs the sweep makes: seeds × combinations; `None` past 128 bits.
    pub fn runs(&self) -> Option<u128> {
        self.combinations_counted()?.checked_mul(self.seed_count())
    }

    /// How many runs the sweep makes, as an index bound (a plan within
    /// its cap always fits; a larger one reads as `usize::MAX`).
    pub fn total(&self) -> usize {
        self.runs()
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// The plan makes at most `cap` runs; else the error names the flags,
    /// the count and the cap.
    pub fn within(&self, cap: u64) -> Result<(), TooManyRuns> {
        match self.runs() {
            Some(runs) if runs <= u128::from(cap) => Ok(()),
            runs => Err(TooManyRuns {
                seeds: self.seeds.clone(),
                flags: self.flags.len(),
                combinations: self.combinations_counted(),
                runs,
                cap,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn flags(n: usize) -> Vec<(String, Vec<bool>)> {
        (0..n)
            .map(|i| (format!("f{i}"), vec![true, false]))
            .collect()
    }

    #[test]
    fn the_whole_range_of_seeds_is_counted_not_overflowed() {
        let plan = SweepPlan::new(0..=u64::MAX, Vec::new()).unwrap();
        assert_eq!(plan.runs(), Some(1u128 << 64));
        let error = plan.within(DEFAULT_MAX_RUNS).unwrap_err().to_string();
        assert_eq!(
            error,
            "--seeds 0..18446744073709551615 makes 18446744073709551616 runs, more than the 1000000 a sweep may make; sweep fewer seeds, or raise the cap with CONCLAVE_MAX_SWEEP_RUNS=<runs>"
        );
    }

    #[test]
    fn flags_multiply_the_runs_and_are_named_in_the_refusal() {
        let plan = SweepPlan::new(1..=1, flags(40)).unwrap();
        assert_eq!(plan.runs(), Some(1u128 << 40));
        let error = plan.within(DEFAULT_MAX_RUNS).unwrap_err().to_string();
        assert!(
            error.starts_with(
                "--seeds 1..1 (1 seed) under the values of 40 --flags (1099511627776 combinations) makes 1099511627776 runs, more than the 1000000"
            ),
            "{error}"
        );
        let plan = SweepPlan::new(0..=u64::MAX, flags(200)).unwrap();
        assert_eq!(plan.runs(), None);
        assert_eq!(plan.total(), usize::MAX);
        let error = plan.within(u64::MAX).unwrap_err().to_string();
        assert!(
            error.contains(&format!("makes more than {} runs", u128::MAX)),
            "{error}"
        );
    }

    #[test]
    fn the_cap_itself_is_allowed() {
        let plan = SweepPlan::new(1..=500, flags(1)).unwrap();
        assert_eq!(plan.within(1000), Ok(()));
        assert!(plan.within(999).is_err());
    }

    #[test]
    fn the_cap_is_a_count_of_one_or_more() {
        assert_eq!(max_runs_of("5000"), Ok(5000));
        assert_eq!(max_runs_of(" 18446744073709551615 "), Ok(u64::MAX));
        for bad in ["0", "-1", "1e6", "", "many", "18446744073709551616"] {
            let error = max_runs_of(bad).unwrap_err();
            assert!(
                error.starts_with("CONCLAVE_MAX_SWEEP_RUNS: expected a whole number of runs"),
                "{bad}: {error}"
            );
        }
    }

    proptest! {
        /// The count is the product, exactly, whenever it fits 128 bits.
        #[test]
        fn the_count_is_seeds_times_combinations(
            from in any::<u64>(),
            width in any::<u64>(),
            values in proptest::collection::vec(1usize..=2, 0..80),
        ) {
            let to = from.saturating_add(width);
            let flags: Vec<(String, Vec<bool>)> = values
                .iter()
                .enumerate()
                .map(|(i, n)| (format!("f{i}"), [true, false][..*n].to_vec()))
                .collect();
            let plan = SweepPlan::new(from..=to, flags).unwrap();
            let twos = values.iter().filter(|n| **n == 2).count() as u32;
            let seeds = u128::from(to - from) + 1;
            let expected = 2u128.checked_pow(twos).and_then(|c| c.checked_mul(seeds));
            prop_assert_eq!(plan.runs(), expected);
            let cap = u64::try_from(expected.unwrap_or(u128::MAX)).unwrap_or(u64::MAX);
            prop_assert_eq!(plan.within(cap).is_ok(), expected.is_some_and(|n| n <= u128::from(cap)));
        }
    }
}
