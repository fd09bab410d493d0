//! The sweep's counts: every run's result, once, under its combination,
//! and the document `sweep --headless` prints. Whatever executor ran the
//! jobs and in whatever order results came, the same results give the
//! same document.

use super::job::JobResult;
use super::plan::SweepPlan;
use super::stats::{counts_by_key, counts_by_value, spread};
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::ops::RangeInclusive;

#[derive(Clone, Debug)]
pub struct Tally {
    /// The combinations' flag values are made from it as they are shown.
    plan: SweepPlan,
    /// Per combination, in the order results arrived; grown as results
    /// come, so that a sweep holds nothing per combination before it runs.
    results: Vec<Vec<JobResult>>,
    /// Job ids counted, so that a redelivered job is counted once.
    counted: HashSet<String>,
    total: usize,
}

impl Tally {
    pub fn new(plan: &SweepPlan) -> Self {
        Tally {
            plan: plan.clone(),
            results: Vec::new(),
            counted: HashSet::new(),
            total: plan.total(),
        }
    }

    /// Count a result once: false (and nothing counted) when its job id was
    /// counted already (a redelivered job), or when its combination is not
    /// one of this sweep's.
    pub fn add(&mut self, result: JobResult) -> bool {
        let combination = result.combination;
        if combination >= self.plan.combination_count() {
            return false;
        }
        if !self.counted.insert(result.job.clone()) {
            return false;
        }
        if self.results.len() <= combination {
            self.results.resize_with(combination + 1, Vec::new);
        }
        self.results[combination].push(result);
        true
    }

    /// Whether the job with this id has its result counted.
    pub fn has(&self, job: &str) -> bool {
        self.counted.contains(job)
    }

    pub fn done(&self) -> usize {
        self.counted.len()
    }

    pub fn total(&self) -> usize {
        self.total
    }

    /// The seeds each combination runs.
    pub fn seeds(&self) -> &RangeInclusive<u64> {
        &self.plan.seeds
    }

    /// How many combinations of flag values the sweep runs.
    pub(crate) fn combination_count(&self) -> usize {
        self.plan.combination_count()
    }

    /// The flag values of a combination, in the plan's order.
    pub fn combination(&self, combination: usize) -> Option<Vec<(String, bool)>> {
        self.plan.combination(combination)
    }

    /// The results counted for a combination, in the order they came.
    pub fn results(&self, combination: usize) -> &[JobResult] {
        self.results.get(combination).map_or(&[], Vec::as_slice)
    }

    /// The headless document: {"combinations": [{"flags": {..}, "runs": N,
    /// "outcomes": {"<status>/<stop_reason>/<decision>": count}, ...}]}
    /// (`docs/sweeps_and_nats.md` gives every field).
    pub fn document(&self) -> Value {
        let combinations: Vec<Value> = (0..self.combination_count())
            .map_while(|c| Some(combination_document(&self.combination(c)?, self.results(c))))
            .collect();
        let seeds = self.seeds();
        json!({
            "seeds": {"from": seeds.start(), "to": seeds.end()},
            "runs": self.done(),
            "combinations": combinations,
        })
    }
}

fn combination_document(flags: &[(String, bool)], runs: &[JobResult]) -> Value {
    let flags: Map<String, Value> = flags
        .iter()
        .map(|(name, on)| (name.clone(), Value::Bool(*on)))
        .collect();
    let stop_reasons: Vec<String> = runs.iter().map(|r| r.stop_reason.to_string()).collect();
    let measure = |of: fn(&JobResult) -> u64| spread(&runs.iter().map(of).collect::<Vec<_>>());
    json!({
        "flags": flags,
        "runs": runs.len(),
        "outcomes": counts_by_key(runs.iter().map(|r| r.outcome.as_str())),
        "stop_reasons": counts_by_key(stop_reasons.iter().map(String::as_str)),
        "verdicts": counts_by_key(runs.iter().map(|r| r.verdict.as_deref().unwrap_or("-"))),
        "used": used_document(runs),
        "model_calls": measure(|r| r.model_calls),
        "tool_calls": measure(|r| r.tool_calls),
        "tool_calls_by_tool": by_tool_document(runs),
        "tokens": tokens_document(runs),
        "partial": runs.iter().filter(|r| r.partial).count(),
        "failed_tasks": failed_tasks_document(runs),
        "cost_usd": cost_document(runs),
    })
}

/// A count each run has.
type Measure = fn(&JobResult) -> u64;

/// The spread of the runs' input and output tokens, and of the parts of
/// them the endpoint said were cached (of the input) and reasoning (of
/// the output), each of those only when some run had some: a sweep on the
/// sim reads as it did before they were counted.
fn tokens_document(runs: &[JobResult]) -> Value {
    let measure = |of: Measure| spread(&runs.iter().map(of).collect::<Vec<_>>());
    let mut doc = json!({
        "input": measure(|r| r.input_tokens),
        "output": measure(|r| r.output_tokens),
    });
    let parts: [(&str, Measure); 2] = [
        ("cached", |r| r.cached_tokens),
        ("reasoning", |r| r.reasoning_tokens),
    ];
    for (name, of) in parts {
        if runs.iter().any(|r| of(r) > 0)
            && let Value::Object(fields) = &mut doc
        {
            fields.insert(name.into(), measure(of));
        }
    }
    doc
}

/// Per tool, in name order, the spread of its calls over the runs and of
/// those that failed (a run that never called it counts 0).
fn by_tool_document(runs: &[JobResult]) -> Value {
    let mut tools: Vec<&str> = runs
        .iter()
        .flat_map(|r| r.tool_calls_by_tool.keys().map(String::as_str))
        .collect();
    tools.sort_unstable();
    tools.dedup();
    let by_tool: Map<String, Value> = tools
        .into_iter()
        .map(|tool| {
            let of = |r: &JobResult| r.tool_calls_by_tool.get(tool).copied().unwrap_or_default();
            let calls: Vec<u64> = runs.iter().map(|r| of(r).calls).collect();
            let failed: Vec<u64> = runs.iter().map(|r| of(r).failed).collect();
            (
                tool.to_string(),
                json!({"calls": spread(&calls), "failed": spread(&failed)}),
            )
        })
        .collect();
    Value::Object(by_tool)
}

/// The spread of failed tasks over the runs that count tasks; `null` for a
/// pattern without tasks.
fn failed_tasks_document(runs: &[JobResult]) -> Value {
    let failed: Vec<u64> = runs.iter().filter_map(|r| r.failed_tasks).collect();
    if failed.is_empty() {
        return Value::Null;
    }
    let mut doc = spread(&failed);
    if let Value::Object(doc) = &mut doc {
        doc.insert(
            "runs_with_failures".into(),
            json!(failed.iter().filter(|n| **n > 0).count()),
        );
    }
    doc
}

/// `{"total", "min", "max", "mean"}` in US dollars of the priced runs;
/// `null` when no run's model had a price.
fn cost_document(runs: &[JobResult]) -> Value {
    let mut costs: Vec<f64> = runs.iter().filter_map(|r| r.cost_usd).collect();
    if costs.is_empty() {
        return Value::Null;
    }
    costs.sort_by(f64::total_cmp);
    let total = crate::pricing::round_dollars(costs.iter().sum());
    let runs = costs.len() as f64;
    let mean = if crate::pricing::is_held(total) {
        // The sum went past the largest number: the mean of the parts,
        // which each hold, lies between the least and the most as a mean
        // does.
        let parts: f64 = costs.iter().map(|cost| cost / runs).sum();
        crate::pricing::round_dollars(parts.max(costs[0]).min(costs[costs.len() - 1]))
    } else {
        crate::pricing::round_dollars(total / runs)
    };
    let mut doc = json!({
        "total": total,
        "min": costs.first(),
        "max": costs.last(),
        "mean": mean,
        "priced_runs": costs.len(),
    });
    if crate::pricing::is_held(total)
        && let Value::Object(fields) = &mut doc
    {
        fields.insert("saturated".into(), Value::Bool(true));
    }
    doc
}

/// Per budget measure the runs have, its counts by value and its spread,
/// the measures in their pattern's order whatever run came first.
fn used_document(runs: &[JobResult]) -> Value {
    let names = super::merged_names(runs.iter().map(|r| &r.used));
    let used: Map<String, Value> = names
        .into_iter()
        .map(|name| {
            let values: Vec<u64> = runs.iter().filter_map(|r| r.used.get(name)).collect();
            let mut doc = spread(&values);
            if let Value::Object(doc) = &mut doc {
                doc.insert("counts".into(), counts_by_value(&values));
            }
            (name.to_string(), doc)
        })
        .collect();
    Value::Object(used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::RunStatus;
    use crate::stop::StopReason;
    use crate::sweep::{Job, Used};

    fn plan() -> SweepPlan {
        SweepPlan::new(1..=3, vec![("legal_analyst".into(), vec![true, false])]).unwrap()
    }

    fn result(job: &Job, verdict: &str, rounds: u64, calls: u64) -> JobResult {
        JobResult {
            job: job.id.clone(),
            combination: job.combination,
            seed: job.seed,
            outcome: format!("ok/success/{verdict}"),
            status: RunStatus::Ok,
            stop_reason: StopReason::Success,
            verdict: Some(verdict.into()),
            used: Used::new([("rounds", rounds)]),
            model_calls: calls,
            tool_calls: 0,
            input_tokens: 10 * calls,
            output_tokens: calls,
            cached_tokens: 0,
            reasoning_tokens: 0,
            partial: false,
            failed_tasks: None,
            tool_calls_by_tool: Default::default(),
            cost_usd: None,
        }
    }

    #[test]
    fn a_redelivered_job_is_counted_once() {
        let plan = plan();
        let jobs: Vec<Job> = plan.jobs().collect();
        let mut tally = Tally::new(&plan);
        assert_eq!((tally.done(), tally.total()), (0, 6));
        assert!(tally.add(result(&jobs[0], "go", 1, 4)));
        assert!(!tally.add(result(&jobs[0], "no_go", 2, 8)), "counted twice");
        assert_eq!(tally.done(), 1);
        assert_eq!(tally.results(0).len(), 1);
        assert_eq!(tally.results(0)[0].verdict.as_deref(), Some("go"));
    }

    #[test]
    fn a_cost_sum_past_the_largest_number_keeps_its_mean_within_the_runs() {
        let costs = |held: &[f64]| {
            let runs: Vec<JobResult> = plan()
                .jobs()
                .zip(held)
                .map(|(job, cost)| JobResult {
                    cost_usd: Some(*cost),
                    ..result(&job, "go", 1, 1)
                })
                .collect();
            cost_document(&runs)
        };
        let past = costs(&[f64::MAX, f64::MAX]);
        assert_eq!(past["mean"], f64::MAX, "{past}");
        assert_eq!(past["min"], f64::MAX, "{past}");
        assert_eq!(past["saturated"], true, "{past}");
        let mixed = costs(&[f64::MAX, 1e308, 1.0]);
        let mean = mixed["mean"].as_f64().unwrap();
        assert!(
            (mean / (f64::MAX / 3.0 + 1e308 / 3.0) - 1.0).abs() < 1e-12,
            "{mixed}"
        );
        assert_eq!(costs(&[0.25, 0.5])["mean"], 0.375, "as it always was");
    }

    #[test]
    fn a_tally_holds_nothing_per_combination_before_its_results() {
        let flags = (0..40)
            .map(|i| (format!("f{i}"), vec![true, false]))
            .collect();
        let plan = SweepPlan::new(1..=1, flags).unwrap();
        let mut tally = Tally::new(&plan);
        assert_eq!(tally.combination_count(), 1 << 40);
        let job = plan.job(5).unwrap();
        assert!(tally.add(result(&job, "go", 1, 1)));
        assert_eq!(tally.results(5).len(), 1);
        assert!(tally.results(4).is_empty());
        assert_eq!(tally.combination(5), Some(job.flags));
    }

    #[test]
    fn a_result_of_another_sweeps_combination_is_not_counted() {
        let plan = plan();
        let mut tally = Tally::new(&plan);
        let stray = Job::new(9, 1, Vec::new());
        assert!(!tally.add(result(&stray, "go", 1, 1)));
        assert_eq!(tally.done(), 0);
    }

    #[test]
    fn the_document_counts_per_combination_whatever_the_order() {
        let plan = plan();
        let jobs: Vec<Job> = plan.jobs().collect();
        let verdicts = ["go", "go", "no_go", "go_with_caution", "go", "go"];
        let results: Vec<JobResult> = jobs
            .iter()
            .zip(verdicts)
            .enumerate()
            .map(|(i, (job, verdict))| result(job, verdict, 1 + i as u64 % 2, 3 + i as u64))
            .collect();
        let mut forward = Tally::new(&plan);
        let mut backward = Tally::new(&plan);
        for r in &results {
            forward.add(r.clone());
        }
        for r in results.iter().rev() {
            backward.add(r.clone());
        }
        let doc = forward.document();
        assert_eq!(doc, backward.document());
        assert_eq!(doc["runs"], 6);
        assert_eq!(doc["seeds"], json!({"from": 1, "to": 3}));
        let on = &doc["combinations"][0];
        assert_eq!(on["flags"], json!({"legal_analyst": true}));
        assert_eq!(on["runs"], 3);
        assert_eq!(
            on["outcomes"],
            json!({"ok/success/go": 2, "ok/success/no_go": 1})
        );
        assert_eq!(on["stop_reasons"], json!({"success": 3}));
        assert_eq!(on["verdicts"], json!({"go": 2, "no_go": 1}));
        assert_eq!(on["used"]["rounds"]["counts"], json!({"1": 2, "2": 1}));
        assert_eq!(on["model_calls"]["total"], 3 + 4 + 5);
        assert_eq!(on["tokens"]["input"]["max"], 50);
        let off = &doc["combinations"][1];
        assert_eq!(off["flags"], json!({"legal_analyst": false}));
        assert_eq!(
            off["outcomes"],
            json!({"ok/success/go": 2, "ok/success/go_with_caution": 1})
        );
    }

    #[test]
    fn partial_runs_failed_tasks_tool_calls_and_cost_are_counted_per_combination() {
        let plan = plan();
        let jobs: Vec<Job> = plan.jobs().collect();
        let tools = |calls: u64, failed: u64| {
            std::collections::BTreeMap::from([(
                "vendor".to_string(),
                crate::sweep::ToolCalls { calls, failed },
            )])
        };
        let mut tally = Tally::new(&plan);
        for (i, job) in jobs.iter().take(3).enumerate() {
            let i = i as u64;
            let mut r = result(job, "green", 1, 1);
            r.partial = i > 0;
            r.failed_tasks = Some(i * 5);
            r.tool_calls_by_tool = tools(10 + i, i);
            r.cost_usd = Some(0.001 * (i + 1) as f64);
            tally.add(r);
        }
        // The second combination: unpriced, no tool, no task counts.
        tally.add(result(&jobs[3], "go", 1, 1));
        let doc = tally.document();
        let on = &doc["combinations"][0];
        assert_eq!(on["partial"], 2);
        assert_eq!(on["failed_tasks"]["total"], 15);
        assert_eq!(on["failed_tasks"]["max"], 10);
        assert_eq!(on["failed_tasks"]["runs_with_failures"], 2);
        assert_eq!(on["tool_calls_by_tool"]["vendor"]["calls"]["total"], 33);
        assert_eq!(on["tool_calls_by_tool"]["vendor"]["failed"]["total"], 3);
        assert_eq!(
            on["cost_usd"],
            json!({"total": 0.006, "min": 0.001, "max": 0.003, "mean": 0.002, "priced_runs": 3})
        );
        let off = &doc["combinations"][1];
        assert_eq!(off["partial"], 0);
        assert_eq!(off["failed_tasks"], Value::Null);
        assert_eq!(off["tool_calls_by_tool"], json!({}));
        assert_eq!(off["cost_usd"], Value::Null);
    }
}
