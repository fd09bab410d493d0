//! A sweep's results as bars: per combination, one bar per outcome, stop
//! reason, verdict or bin of a measure, counting the runs it holds. Every
//! combination gets the same bars in the same order (bins span all the
//! combinations' values), so bars of two combinations compare row by row.

use super::chart::Chart;
use crate::sweep::{JobResult, Tally};
use std::collections::BTreeSet;

/// One bar: what it counts and the runs in it (indexes into the
/// combination's results).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bar {
    pub(crate) label: String,
    pub(crate) runs: Vec<usize>,
}

/// A combination's bars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    pub(crate) combination: usize,
    pub(crate) bars: Vec<Bar>,
}

/// The most bars a measure is split into.
const MAX_BINS: u64 = 8;

/// Every combination's bars of `chart`.
pub(crate) fn groups(tally: &Tally, chart: Chart) -> Vec<Group> {
    let combinations = 0..tally.combination_count();
    match chart {
        Chart::Outcomes => by_label(tally, |r| vec![r.outcome.clone()]),
        Chart::StopReasons => by_label(tally, |r| vec![r.stop_reason.to_string()]),
        Chart::Verdicts => by_label(tally, |r| vec![r.verdict.clone().unwrap_or("-".into())]),
        Chart::Used => by_used(tally),
        Chart::ModelCalls => by_bins(tally, combinations, |r| r.model_calls),
        Chart::Tokens => binned(
            tally,
            combinations,
            |r| r.input_tokens.saturating_add(r.output_tokens),
            held_count,
        ),
        Chart::FailedTasks => {
            by_bins_of(tally, combinations, |r| r.failed_tasks, |v| v.to_string())
        }
        Chart::ToolCalls => by_tool(tally),
        Chart::Cost => by_bins_of(
            tally,
            combinations,
            // Tenths of a micro-dollar: the bins stay whole numbers.
            |r| r.cost_usd.map(|usd| (usd * 1e7).round() as u64),
            |v| match v {
                u64::MAX => format!(
                    "${} or more (past what the chart holds)",
                    crate::figures::dollars(v as f64 / 1e7)
                ),
                v => format!("${}", crate::figures::dollars(v as f64 / 1e7)),
            },
        ),
    }
}

/// Per tool any run called, in name order, its runs by calls, binned as
/// [`by_bins`] does: `enrichment_worker 11 (5 failed)`.
fn by_tool(tally: &Tally) -> Vec<Group> {
    let tools: BTreeSet<String> = (0..tally.combination_count())
        .flat_map(|c| tally.results(c).iter())
        .flat_map(|r| r.tool_calls_by_tool.keys().cloned())
        .collect();
    let mut groups: Vec<Group> = (0..tally.combination_count())
        .map(|combination| Group {
            combination,
            bars: Vec::new(),
        })
        .collect();
    for tool in &tools {
        let calls = |r: &JobResult| r.tool_calls_by_tool.get(tool).map_or(0, |c| c.calls);
        let binned = by_bins(tally, 0..tally.combination_count(), calls);
        for (group, binned) in groups.iter_mut().zip(binned) {
            let results = tally.results(group.combination);
            group.bars.extend(binned.bars.into_iter().map(|bar| {
                let failed: u64 = bar
                    .runs
                    .iter()
                    .map(|&i| {
                        results[i]
                            .tool_calls_by_tool
                            .get(tool)
                            .map_or(0, |c| c.failed)
                    })
                    .sum();
                let label = if bar.runs.is_empty() {
                    format!("{tool} {}", bar.label)
                } else {
                    // The failed calls per run of the bar, on average.
                    let per_run = failed as f64 / bar.runs.len() as f64;
                    format!("{tool} {} ({per_run:.1} failed)", bar.label)
                };
                Bar {
                    label,
                    runs: bar.runs,
                }
            }));
        }
    }
    groups
}

/// [`by_bins`] over the runs that have the measure, labelled by `label`;
/// no bars when none has it.
fn by_bins_of(
    tally: &Tally,
    combinations: std::ops::Range<usize>,
    value: impl Fn(&JobResult) -> Option<u64>,
    label: impl Fn(u64) -> String,
) -> Vec<Group> {
    let any = combinations
        .clone()
        .any(|c| tally.results(c).iter().any(|r| value(r).is_some()));
    if !any {
        return combinations
            .map(|combination| Group {
                combination,
                bars: Vec::new(),
            })
            .collect();
    }
    binned(tally, combinations, |r| value(r).unwrap_or(0), label)
}

/// A bar per label any run has, in label order.
fn by_label(tally: &Tally, labels: impl Fn(&JobResult) -> Vec<String>) -> Vec<Group> {
    let all: BTreeSet<String> = (0..tally.combination_count())
        .flat_map(|c| tally.results(c).iter().flat_map(&labels))
        .collect();
    (0..tally.combination_count())
        .map(|combination| {
            let results = tally.results(combination);
            let bars = all
                .iter()
                .map(|label| Bar {
                    label: label.clone(),
                    runs: by_seed(results, |r| labels(r).contains(label)),
                })
                .collect();
            Group { combination, bars }
        })
        .collect()
}

/// A bar per budget measure and value ("rounds 2"), in the order of the
/// measures, then of the values.
fn by_used(tally: &Tally) -> Vec<Group> {
    let results = (0..tally.combination_count()).flat_map(|c| tally.results(c).iter());
    let names = crate::sweep::merged_names(results.clone().map(|r| &r.used));
    let mut keys: BTreeSet<(usize, u64)> = BTreeSet::new();
    for r in results {
        for (name, value) in r.used.named() {
            if let Some(place) = names.iter().position(|n| *n == name) {
                keys.insert((place, value));
            }
        }
    }
    (0..tally.combination_count())
        .map(|combination| {
            let results = tally.results(combination);
            let bars = keys
                .iter()
                .map(|&(place, value)| {
                    let name = names[place];
                    Bar {
                        label: format!("{} {value}", name.replace('_', " ")),
                        runs: by_seed(results, |r| r.used.get(name) == Some(value)),
                    }
                })
                .collect();
            Group { combination, bars }
        })
        .collect()
}

/// A bar per value when there are few, else per equal bin of the range
/// of every combination's values.
fn by_bins(
    tally: &Tally,
    combinations: std::ops::Range<usize>,
    value: impl Fn(&JobResult) -> u64,
) -> Vec<Group> {
    binned(tally, combinations, value, |v| v.to_string())
}

/// [`by_bins`], each value named by `label`.
fn binned(
    tally: &Tally,
    combinations: std::ops::Range<usize>,
    value: impl Fn(&JobResult) -> u64,
    label: impl Fn(u64) -> String,
) -> Vec<Group> {
    let values: BTreeSet<u64> = combinations
        .clone()
        .flat_map(|c| tally.results(c).iter().map(&value))
        .collect();
    let bins: Vec<(u64, u64)> = match (values.first(), values.last()) {
        (Some(&low), Some(&high)) if values.len() as u64 > MAX_BINS => {
            // In 128 bits: a bin's end past 2^64 − 1 (counts near the
            // largest) is the highest value, never a count that wrapped.
            let (low, high) = (u128::from(low), u128::from(high));
            let width = (high - low).div_ceil(u128::from(MAX_BINS)).max(1);
            let within = |v: u128| u64::try_from(v.min(high)).unwrap_or(u64::MAX);
            (0..u128::from(MAX_BINS))
                .map(|i| low + i * width)
                .filter(|from| *from <= high)
                .map(|from| (within(from), within(from + width - 1)))
                .collect()
        }
        _ => values.iter().map(|&v| (v, v)).collect(),
    };
    combinations
        .map(|combination| {
            let results = tally.results(combination);
            let bars = bins
                .iter()
                .map(|&(from, to)| Bar {
                    label: if from == to {
                        label(from)
                    } else {
                        format!("{}–{}", label(from), label(to))
                    },
                    runs: by_seed(results, |r| (from..=to).contains(&value(r))),
                })
                .collect();
            Group { combination, bars }
        })
        .collect()
}

/// A count as a bar names it: the largest count says it was held there.
fn held_count(count: u64) -> String {
    match count {
        u64::MAX => format!("{count} (held: past the largest count)"),
        count => count.to_string(),
    }
}

/// The indexes of the results that `keep`, in order of seed.
fn by_seed(results: &[JobResult], keep: impl Fn(&JobResult) -> bool) -> Vec<usize> {
    let mut runs: Vec<usize> = (0..results.len()).filter(|&i| keep(&results[i])).collect();
    runs.sort_by_key(|&i| results[i].seed);
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::RunStatus;
    use crate::stop::StopReason;
    use crate::sweep::{SweepPlan, Used};

    fn tally(results: &[(usize, u64, &str, u64)]) -> Tally {
        let plan = SweepPlan::new(1..=20, vec![("x".into(), vec![true, false])]).unwrap();
        let mut tally = Tally::new(&plan);
        for &(combination, seed, verdict, calls) in results {
            tally.add(JobResult {
                job: format!("c{combination}-s{seed}"),
                combination,
                seed,
                outcome: format!("ok/success/{verdict}"),
                status: RunStatus::Ok,
                stop_reason: StopReason::Success,
                verdict: Some(verdict.into()),
                used: Used::new([("rounds", calls % 3)]),
                model_calls: calls,
                tool_calls: 0,
                input_tokens: calls * 100,
                output_tokens: 0,
                cached_tokens: 0,
                reasoning_tokens: 0,
                partial: false,
                failed_tasks: None,
                tool_calls_by_tool: Default::default(),
                cost_usd: None,
            });
        }
        tally
    }

    #[test]
    fn every_combination_gets_the_same_bars_and_runs_by_seed() {
        let tally = tally(&[(0, 3, "go", 4), (0, 1, "go", 5), (1, 2, "no_go", 4)]);
        let groups = groups(&tally, Chart::Verdicts);
        let labels = |g: &Group| g.bars.iter().map(|b| b.label.clone()).collect::<Vec<_>>();
        assert_eq!(labels(&groups[0]), ["go", "no_go"]);
        assert_eq!(labels(&groups[1]), ["go", "no_go"]);
        let seeds: Vec<u64> = groups[0].bars[0]
            .runs
            .iter()
            .map(|&i| tally.results(0)[i].seed)
            .collect();
        assert_eq!(seeds, [1, 3]);
        assert!(groups[1].bars[0].runs.is_empty());
    }

    #[test]
    fn many_values_are_binned_over_every_combination() {
        let results: Vec<(usize, u64, &str, u64)> = (0..20)
            .map(|i| (usize::from(i % 2 == 0), i + 1, "go", i * 10))
            .collect();
        let tally = tally(&results);
        let groups = groups(&tally, Chart::ModelCalls);
        assert_eq!(groups[0].bars.len(), MAX_BINS as usize);
        assert_eq!(groups[0].bars[0].label, "0–23");
        let counted: usize = groups
            .iter()
            .flat_map(|g| &g.bars)
            .map(|b| b.runs.len())
            .sum();
        assert_eq!(counted, 20, "every run in one bin");
        let used = super::groups(&tally, Chart::Used);
        assert_eq!(used[0].bars[0].label, "rounds 0");
    }

    #[test]
    fn counts_up_to_the_largest_are_binned_without_wrapping_and_held_ones_say_so() {
        let mut tally = tally(&[]);
        for seed in 1..=12u64 {
            let input = if seed == 12 { u64::MAX } else { seed };
            tally.add(JobResult {
                input_tokens: input,
                output_tokens: u64::from(seed == 12),
                ..tally_result(seed)
            });
        }
        let groups = groups(&tally, Chart::Tokens);
        let bars = &groups[0].bars;
        let counted: usize = bars.iter().map(|b| b.runs.len()).sum();
        assert_eq!(counted, 12, "every run in a bar: {bars:?}");
        let last = bars.last().unwrap();
        assert!(
            last.label
                .ends_with("18446744073709551615 (held: past the largest count)"),
            "{last:?}"
        );
        assert_eq!(last.runs.len(), 1, "{bars:?}");
    }

    fn tally_result(seed: u64) -> JobResult {
        let tally = tally(&[(0, seed, "go", 1)]);
        tally.results(0)[0].clone()
    }
}
