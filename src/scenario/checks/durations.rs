//! Every number a scenario gives as a duration, in seconds or milliseconds,
//! must be one that `crate::duration` accepts: finite, not negative, at most
//! a week. The schema checks that each is a number; this says which are
//! too long, where, before anything runs (a timeout of 1e308 seconds would
//! otherwise only fail when a run starts).

use super::super::error::Problem;
use super::super::latency::Latency;
use super::super::latency::WorkerLatency;
use super::super::path::JsonPath;
use super::super::research_tools::ResearchTool;
use super::super::resilience::{BackoffSpec, BreakerSpec, BulkheadSpec, RetriesSpec};
use super::super::script::script_entries;
use super::super::sections::{MemberTeam, TimedLimits, ToolSection};
use super::super::types::Scenario;
use super::super::workers::WorkerSpec;
use crate::duration::{self, DurationError};
use indexmap::IndexMap;

/// The key of a scripted turn's simulated latency.
const TURN_LATENCY_KEY: &str = "latency_ms";

pub(super) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let mut check = Durations { problems };
    let root = JsonPath::root();
    if let Some(budget) = &scenario.budget {
        let path = root.key("budget");
        check.seconds(budget.max_seconds, path.key("max_seconds"));
        check.seconds(
            budget.task_timeout_seconds,
            path.key("task_timeout_seconds"),
        );
    }
    let provider = root.key("provider");
    check.seconds(
        scenario.provider.timeout_seconds,
        provider.key("timeout_seconds"),
    );
    match scenario.provider.latency_ms {
        Some(Latency::Fixed(ms)) => check.millis(ms, provider.key("latency_ms")),
        Some(Latency::Range(range)) => {
            check.millis(range.min, provider.key("latency_ms").key("min"));
            check.millis(range.max, provider.key("latency_ms").key("max"));
        }
        None => {}
    }
    if let Some(turns) = &scenario.provider.turns {
        for (agent, script) in turns {
            let path = provider.key("turns").key(agent);
            let listed = script.is_array();
            for (i, entry) in script_entries(script).iter().enumerate() {
                if let Some(ms) = entry.get(TURN_LATENCY_KEY).and_then(|l| l.as_u64()) {
                    let at = if listed { path.index(i) } else { path.clone() };
                    check.millis(ms, at.key(TURN_LATENCY_KEY));
                }
            }
        }
    }
    check.workers(&scenario.workers, root.key("workers"));
    check.workers(&scenario.tools, root.key("tools"));
    if let Some(sources) = &scenario.sources {
        for tool in ResearchTool::ALL {
            if let Some(behaviour) = sources.tools().get(tool) {
                let path = root
                    .key("sources")
                    .key("tools")
                    .key(tool.as_str())
                    .key("latency_ms");
                check.latency(behaviour.latency_ms.as_ref(), path);
            }
        }
    }
    let teams = scenario.teams.iter().map(|(name, team)| {
        let at = root.key("teams").key(name);
        (at, team.limits(), Some(team.tools()))
    });
    for (at, limits, tools) in
        std::iter::once((root.clone(), scenario.limits.as_ref(), None)).chain(teams)
    {
        if let Some(tools) = tools {
            check.workers(tools, at.key("tools"));
        }
        if let Some(limits) = limits {
            let path = at.key("limits");
            for (key, ms) in limits.timeouts_ms() {
                check.some_millis(ms, path.key(key));
            }
        }
    }
    if let Some(resilience) = &scenario.resilience {
        let path = root.key("resilience");
        for (tool, ms) in &resilience.timeouts_ms {
            check.millis(*ms, path.key("timeouts_ms").key(tool));
        }
        check.mechanisms(
            resilience.retries.as_ref(),
            resilience.circuit_breaker.as_ref(),
            resilience.bulkhead.as_ref(),
            &path,
        );
        for (tool, own) in &resilience.tools {
            check.mechanisms(
                own.retries.as_ref(),
                own.circuit_breaker.as_ref(),
                own.bulkhead.as_ref(),
                &path.key("tools").key(tool),
            );
        }
    }
}

struct Durations<'p> {
    problems: &'p mut Vec<Problem>,
}

impl Durations<'_> {
    fn seconds(&mut self, seconds: Option<f64>, path: JsonPath) {
        if let Some(seconds) = seconds
            && let Err(error) = duration::from_seconds(seconds)
        {
            self.problems.push(Problem::at(
                path,
                expected(error, "seconds", shown(seconds)),
            ));
        }
    }

    fn millis(&mut self, ms: u64, path: JsonPath) {
        if let Err(error) = duration::from_millis(ms) {
            self.problems.push(Problem::at(
                path,
                expected(error, "milliseconds", ms.to_string()),
            ));
        }
    }

    fn some_millis(&mut self, ms: Option<u64>, path: JsonPath) {
        if let Some(ms) = ms {
            self.millis(ms, path);
        }
    }

    fn latency(&mut self, latency: Option<&WorkerLatency>, path: JsonPath) {
        match latency {
            Some(WorkerLatency::Fixed(ms)) => self.millis(*ms, path),
            Some(WorkerLatency::PerCall(calls)) => {
                for (i, ms) in calls.iter().enumerate() {
                    self.millis(*ms, path.index(i));
                }
            }
            Some(WorkerLatency::Range(range)) => {
                self.millis(range.min, path.key("min"));
                self.millis(range.max, path.key("max"));
            }
            None => {}
        }
    }

    fn workers(&mut self, workers: &IndexMap<String, WorkerSpec>, path: JsonPath) {
        for (name, spec) in workers {
            let path = path.key(name);
            self.latency(spec.latency_ms.as_ref(), path.key("latency_ms"));
            for (i, window) in spec.outage_ms.iter().enumerate() {
                for (end, ms) in window.iter().enumerate() {
                    self.millis(*ms, path.key("outage_ms").index(i).index(end));
                }
            }
        }
    }

    fn mechanisms(
        &mut self,
        retries: Option<&RetriesSpec>,
        breaker: Option<&BreakerSpec>,
        bulkhead: Option<&BulkheadSpec>,
        path: &JsonPath,
    ) {
        let backoff = path.key("retries").key("backoff_ms");
        match retries.and_then(|r| r.backoff_ms.as_ref()) {
            Some(BackoffSpec::List(delays)) => {
                for (i, ms) in delays.iter().enumerate() {
                    self.millis(*ms, backoff.index(i));
                }
            }
            Some(BackoffSpec::Exponential(exponential)) => {
                self.millis(exponential.base_ms, backoff.key("base_ms"));
                self.millis(exponential.max_ms, backoff.key("max_ms"));
            }
            None => {}
        }
        self.some_millis(
            breaker.and_then(|b| b.open_for_ms),
            path.key("circuit_breaker").key("open_for_ms"),
        );
        self.some_millis(
            bulkhead.and_then(|b| b.max_wait_ms),
            path.key("bulkhead").key("max_wait_ms"),
        );
    }
}

/// What a duration must be, and what the file gave, in its unit.
fn expected(error: DurationError, unit: &str, found: String) -> String {
    let cap = match unit {
        "seconds" => duration::MAX.as_secs(),
        _ => duration::MAX.as_secs() * 1000,
    };
    match error {
        DurationError::NotFinite(_) => format!("expected a finite number of {unit}, found {found}"),
        DurationError::Negative(_) => format!("expected 0 {unit} or more, found {found}"),
        DurationError::TooLong { .. } => {
            format!("expected at most {cap} {unit} (one week), found {found}")
        }
    }
}

/// A number as JSON writes it (`1e+308`, not three hundred digits).
fn shown(number: f64) -> String {
    if number.fract() == 0.0 && number.abs() < 1e19 {
        return format!("{number:.0}");
    }
    serde_json::Number::from_f64(number).map_or_else(|| number.to_string(), |n| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_written() {
        assert_eq!(shown(1e308), "1e+308");
        assert_eq!(shown(604800.0), "604800");
        assert_eq!(shown(2.5), "2.5");
        assert_eq!(shown(-1.0), "-1");
    }
}
