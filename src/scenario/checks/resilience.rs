//! The resilience section's checks a schema cannot express: it may only
//! name tools the run calls, its numbers must describe a working
//! mechanism, and a flag may only switch a mechanism the section
//! configures.

use super::super::error::Problem;
use super::super::path::JsonPath;
use super::super::research_tools::ResearchTool;
use super::super::resilience::{
    BackoffSpec, BreakerSpec, DEFAULT_TIMEOUT_KEY, MODEL_TOOL, RetriesSpec,
};
use super::super::types::Scenario;
use serde_json::Value;

pub(super) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let Some(spec) = &scenario.resilience else {
        for (name, flag) in &scenario.flags {
            if let Some(mechanism) = flag.gateway {
                problems.push(Problem::at(
                    root.key("flags").key(name).key("gateway"),
                    format!(
                        "\"{}\" switches a mechanism of the resilience section, and this scenario has none",
                        mechanism.as_str()
                    ),
                ));
            }
        }
        return;
    };
    let path = root.key("resilience");
    let tools = callable_tools(scenario);
    let expected_tool = |found: &str, with_default: bool| {
        let mut names: Vec<String> = Vec::new();
        if with_default {
            names.push(format!("\"{DEFAULT_TIMEOUT_KEY}\""));
        }
        names.extend(tools.iter().map(|t| format!("\"{t}\"")));
        format!(
            "expected {} (the tools this run calls), found {}",
            one_of(&names),
            Value::from(found)
        )
    };
    for name in spec.timeouts_ms.keys() {
        if name != DEFAULT_TIMEOUT_KEY && !tools.contains(name) {
            problems.push(Problem::at_key(
                path.key("timeouts_ms").key(name),
                expected_tool(name, true),
            ));
        }
    }
    if let Some(retries) = &spec.retries {
        check_retries(retries, &path.key("retries"), problems);
    }
    if let Some(breaker) = &spec.circuit_breaker {
        check_breaker(breaker, &path.key("circuit_breaker"), problems);
    }
    for (name, own) in &spec.tools {
        let tool_path = path.key("tools").key(name);
        if !tools.contains(name) {
            problems.push(Problem::at_key(
                tool_path.clone(),
                expected_tool(name, false),
            ));
        }
        if let Some(retries) = &own.retries {
            check_retries(retries, &tool_path.key("retries"), problems);
        }
        if let Some(breaker) = &own.circuit_breaker {
            check_breaker(breaker, &tool_path.key("circuit_breaker"), problems);
        }
    }
    for (name, flag) in &scenario.flags {
        if let Some(mechanism) = flag.gateway
            && !spec.configures(mechanism)
        {
            problems.push(Problem::at(
                root.key("flags").key(name).key("gateway"),
                format!(
                    "\"{0}\" is not configured in the resilience section; add \"{0}\" there or to one of its tools",
                    mechanism.as_str()
                ),
            ));
        }
    }
}

/// The tools a run of this scenario calls through the gateway: the model,
/// the workers or tools, member teams' tools as `TEAM/TOOL`, and
/// research's tools.
pub(crate) fn callable_tools(scenario: &Scenario) -> Vec<String> {
    let research: &[&str] = if scenario.pattern.researches() {
        &RESEARCH_TOOLS
    } else {
        &[]
    };
    std::iter::once(MODEL_TOOL)
        .chain(scenario.workers.keys().map(String::as_str))
        .chain(scenario.tools.keys().map(String::as_str))
        .chain(research.iter().copied())
        .map(str::to_string)
        .chain(scenario.team_tools().map(|(_, name, _)| name))
        .collect()
}

/// The names of the research tools, as calls to them carry.
const RESEARCH_TOOLS: [&str; 4] = [
    ResearchTool::SearchSources.as_str(),
    ResearchTool::ReadSource.as_str(),
    ResearchTool::ExtractNotes.as_str(),
    ResearchTool::VerifyNotes.as_str(),
];

fn check_retries(retries: &RetriesSpec, path: &JsonPath, problems: &mut Vec<Problem>) {
    match &retries.backoff_ms {
        Some(BackoffSpec::List(delays)) if delays.is_empty() => problems.push(Problem::at(
            path.key("backoff_ms"),
            "expected at least one delay",
        )),
        Some(BackoffSpec::Exponential(e)) if e.base_ms > e.max_ms => problems.push(Problem::at(
            path.key("backoff_ms"),
            format!(
                "expected base_ms ≤ max_ms, found base_ms {} and max_ms {}",
                e.base_ms, e.max_ms
            ),
        )),
        _ => {}
    }
}

fn check_breaker(breaker: &BreakerSpec, path: &JsonPath, problems: &mut Vec<Problem>) {
    let Some(rate) = &breaker.failure_rate else {
        return;
    };
    let path = path.key("failure_rate");
    if rate.threshold <= 0.0 {
        problems.push(Problem::at(
            path.key("threshold"),
            format!(
                "expected a share above 0 (0 would open the breaker on a success), found {}",
                rate.threshold
            ),
        ));
    }
    if let Some(min_calls) = rate.min_calls
        && min_calls > rate.window
    {
        problems.push(Problem::at(
            path.key("min_calls"),
            format!(
                "expected at most the window ({}), found {min_calls}: the window never holds more calls",
                rate.window
            ),
        ));
    }
}

fn one_of(names: &[String]) -> String {
    match names {
        [] => "nothing".to_string(),
        [only] => only.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}
