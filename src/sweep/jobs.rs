//! A sweep's runs made one at a time, by index, in the plan's order:
//! combination-major, then seed ascending, the first flag varying
//! slowest. Nothing here holds a run before an executor takes it, so what
//! a sweep holds before its runs does not grow with its size.

use super::job::Job;
use super::plan::SweepPlan;

impl SweepPlan {
    /// How many combinations of flag values the sweep runs, as an index
    /// bound (`usize::MAX` for a count past it).
    pub(crate) fn combination_count(&self) -> usize {
        self.combinations_counted()
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// The flag values of combination `index`, in the order the flags were
    /// given; `None` past the last combination. One empty combination
    /// without flags.
    pub fn combination(&self, index: usize) -> Option<Vec<(String, bool)>> {
        if u128::try_from(index).ok()? >= self.combinations_counted()? {
            return None;
        }
        // The index in mixed radix, the last flag's digit lowest.
        let mut rest = index;
        let mut flags = Vec::with_capacity(self.flags.len());
        for (name, values) in self.flags.iter().rev() {
            let on = *values.get(rest % values.len())?;
            rest /= values.len();
            flags.push((name.clone(), on));
        }
        flags.reverse();
        Some(flags)
    }

    /// Job `index` of the sweep; `None` past the last.
    pub fn job(&self, index: usize) -> Option<Job> {
        let seeds = self.seed_count();
        if seeds == 0 {
            return None;
        }
        let index = u128::try_from(index).ok()?;
        let combination = usize::try_from(index / seeds).ok()?;
        let seed = self
            .seeds
            .start()
            .checked_add(u64::try_from(index % seeds).ok()?)?;
        Some(Job::new(combination, seed, self.combination(combination)?))
    }

    /// Every job, made as it is taken.
    pub fn jobs(&self) -> Jobs<'_> {
        Jobs {
            plan: self,
            next: 0,
            end: self.total(),
        }
    }
}

/// A plan's jobs in order, each made when it is taken.
#[derive(Clone, Debug)]
pub struct Jobs<'p> {
    plan: &'p SweepPlan,
    next: usize,
    end: usize,
}

impl Iterator for Jobs<'_> {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        if self.next >= self.end {
            return None;
        }
        let job = self.plan.job(self.next);
        self.next += 1;
        job
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Jobs<'_> {}

/// The jobs an executor hands out, taken by index from any thread: a
/// plan's, made as they are taken, or a list made beforehand.
pub trait JobList: Sync {
    /// How many jobs there are.
    fn count(&self) -> usize;
    /// Job `index`, `None` past the last.
    fn job(&self, index: usize) -> Option<Job>;
}

impl JobList for Jobs<'_> {
    fn count(&self) -> usize {
        self.end - self.next
    }

    fn job(&self, index: usize) -> Option<Job> {
        let index = self.next.checked_add(index).filter(|i| *i < self.end)?;
        self.plan.job(index)
    }
}

impl JobList for Vec<Job> {
    fn count(&self) -> usize {
        self.len()
    }

    fn job(&self, index: usize) -> Option<Job> {
        self.get(index).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::ops::RangeInclusive;

    fn plan(seeds: RangeInclusive<u64>, flags: &[(&str, &[bool])]) -> SweepPlan {
        SweepPlan::new(
            seeds,
            flags
                .iter()
                .map(|(name, values)| (name.to_string(), values.to_vec()))
                .collect(),
        )
        .unwrap()
    }

    /// The order every sweep had when its jobs were made all at once:
    /// each combination extends every earlier prefix by each value in
    /// turn, and the jobs go combination by combination, seed ascending.
    fn made_at_once(plan: &SweepPlan) -> Vec<Job> {
        let mut combinations: Vec<Vec<(String, bool)>> = vec![Vec::new()];
        for (name, values) in &plan.flags {
            combinations = combinations
                .into_iter()
                .flat_map(|prefix| {
                    values.iter().map(move |&on| {
                        let mut next = prefix.clone();
                        next.push((name.clone(), on));
                        next
                    })
                })
                .collect();
        }
        combinations
            .into_iter()
            .enumerate()
            .flat_map(|(c, flags)| {
                plan.seeds
                    .clone()
                    .map(move |seed| Job::new(c, seed, flags.clone()))
            })
            .collect()
    }

    #[test]
    fn without_flags_there_is_one_empty_combination() {
        let plan = plan(3..=5, &[]);
        assert_eq!(plan.combination_count(), 1);
        assert_eq!(plan.combination(0), Some(Vec::new()));
        assert_eq!(plan.combination(1), None);
        let ids: Vec<String> = plan.jobs().map(|j| j.id).collect();
        assert_eq!(ids, ["c0-s3", "c0-s4", "c0-s5"]);
        assert_eq!(plan.total(), 3);
    }

    #[test]
    fn the_first_flag_varies_slowest_and_jobs_are_combination_major() {
        let plan = plan(1..=2, &[("a", &[true, false]), ("b", &[false, true])]);
        let shown: Vec<String> = (0..plan.combination_count())
            .map(|c| {
                plan.combination(c)
                    .unwrap()
                    .iter()
                    .map(|(n, on)| format!("{n}={}", if *on { "on" } else { "off" }))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            shown,
            ["a=on b=off", "a=on b=on", "a=off b=off", "a=off b=on"]
        );
        let jobs = plan.jobs();
        assert_eq!(jobs.len(), 8);
        assert_eq!(plan.total(), 8);
        let third = jobs.job(2).unwrap();
        assert_eq!(third.id, "c1-s1");
        assert_eq!((third.combination, third.seed), (1, 1));
        assert_eq!(third.flags, vec![("a".into(), true), ("b".into(), true)]);
        assert_eq!(jobs.job(7).unwrap().id, "c3-s2");
        assert_eq!(jobs.job(8), None);
    }

    #[test]
    fn a_sweep_too_large_to_hold_is_made_one_job_at_a_time() {
        // 2^64 seeds under 2^40 combinations: nothing of it is held.
        let flags: Vec<(String, Vec<bool>)> = (0..40)
            .map(|i| (format!("f{i}"), vec![true, false]))
            .collect();
        let plan = SweepPlan::new(0..=u64::MAX, flags).unwrap();
        let mut jobs = plan.jobs();
        assert_eq!(jobs.len(), usize::MAX);
        let first = jobs.next().unwrap();
        assert_eq!((first.combination, first.seed), (0, 0));
        assert!(first.flags.iter().all(|(_, on)| *on));
        assert_eq!(jobs.next().unwrap().seed, 1);
        let last = plan.job(usize::MAX).unwrap();
        assert_eq!(last.combination, 0, "2^64 seeds in the first");
        assert_eq!(last.seed, u64::MAX);
        assert!(!plan.combination((1 << 40) - 1).unwrap()[39].1);
        assert_eq!(plan.combination(1 << 40), None);
    }

    #[test]
    fn a_list_of_jobs_is_handed_out_as_it_is() {
        let list = vec![Job::new(0, 7, Vec::new()), Job::new(1, 9, Vec::new())];
        assert_eq!(list.count(), 2);
        assert_eq!(JobList::job(&list, 1).map(|j| j.seed), Some(9));
        assert_eq!(JobList::job(&list, 2), None);
    }

    proptest! {
        /// Made one at a time, by index or in turn, the jobs are those
        /// made all at once, in the same order: documents stay the same.
        #[test]
        fn jobs_by_index_are_the_jobs_made_at_once(
            from in 0u64..1000,
            width in 0u64..6,
            values in proptest::collection::vec(
                prop_oneof![
                    Just(vec![true, false]),
                    Just(vec![false, true]),
                    Just(vec![true]),
                    Just(vec![false]),
                ],
                0..5,
            ),
        ) {
            let flags: Vec<(String, Vec<bool>)> = values
                .into_iter()
                .enumerate()
                .map(|(i, v)| (format!("flag_{i}"), v))
                .collect();
            let plan = SweepPlan::new(from..=from + width, flags).unwrap();
            let at_once = made_at_once(&plan);
            prop_assert_eq!(plan.total(), at_once.len());
            let in_turn: Vec<Job> = plan.jobs().collect();
            prop_assert_eq!(&in_turn, &at_once);
            let jobs = plan.jobs();
            for (i, job) in at_once.iter().enumerate() {
                prop_assert_eq!(jobs.job(i), Some(job.clone()));
            }
            prop_assert_eq!(jobs.job(at_once.len()), None);
        }
    }
}
