//! The `provider` section's checks: no field of the other kind of provider,
//! a well-formed latency, no script for another pattern's speakers, and a
//! reasoning effort that says something, and a bounded number of repairs.

use super::super::error::Problem;
use super::super::latency::Latency;
use super::super::path::JsonPath;
use super::super::script::{check_script, check_script_text};
use super::super::types::{ProviderKind, ProviderSpec, Scenario};

/// The most times an answer that breaks its contract is asked for again.
pub(crate) const MAX_OUTPUT_RETRIES: u32 = 10;

pub(super) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let provider = &scenario.provider;
    let path = JsonPath::root().key("provider");
    check_kind_fields(provider, &path, problems);
    if let Some(Latency::Range(range)) = provider.latency_ms
        && range.min > range.max
    {
        problems.push(Problem::at(
            path.key("latency_ms"),
            format!(
                "expected min ≤ max, found min {} and max {}",
                range.min, range.max
            ),
        ));
    }
    if let Some(final_answer) = &provider.final_answer {
        check_script(final_answer, &path.key("final_answer"), problems);
    }
    check_pattern_scripts(scenario, &path, problems);
    // Each repair sends every failed answer before it again: a bound keeps
    // a model that never keeps its contract from growing the prompt and
    // the run without end (no round table counts its model calls).
    if let Some(retries) = provider.output_retries
        && retries > MAX_OUTPUT_RETRIES
    {
        problems.push(Problem::at(
            path.key("output_retries"),
            format!("expected at most {MAX_OUTPUT_RETRIES} repairs of an answer, found {retries}"),
        ));
    }
    if let Some(effort) = &provider.reasoning_effort
        && effort.trim().is_empty()
    {
        problems.push(Problem::at(
            path.key("reasoning_effort"),
            format!(
                "expected a reasoning effort such as \"low\", \"medium\" or \"high\", found {}",
                super::super::value_words::describe_value(&effort.as_str().into())
            ),
        ));
    }
}

/// Fields that only the other kind of provider reads.
fn check_kind_fields(provider: &ProviderSpec, path: &JsonPath, problems: &mut Vec<Problem>) {
    let (own, foreign): (&str, Vec<(&str, bool)>) = match provider.kind {
        ProviderKind::Sim => (
            "sim",
            vec![
                ("model", provider.model.is_some()),
                ("base_url", provider.base_url.is_some()),
            ],
        ),
        ProviderKind::Openai => (
            "openai",
            vec![
                ("latency_ms", provider.latency_ms.is_some()),
                ("responses", provider.responses.is_some()),
                ("turns", provider.turns.is_some()),
                ("final_answer", provider.final_answer.is_some()),
                ("plan", provider.plan.is_some()),
                ("synthesis", provider.synthesis.is_some()),
            ],
        ),
    };
    for (field, present) in foreign {
        if present {
            let other = if own == "sim" { "openai" } else { "sim" };
            problems.push(Problem::at_key(
                path.key(field),
                format!(
                    "{field:?} is only for kind \"{other}\"; this provider's kind is \"{own}\""
                ),
            ));
        }
    }
}

/// Scripts of the speakers another pattern has: collaboration's roles, the
/// team's turns, the orchestrator's final brief and planner, research's
/// synthesis.
fn check_pattern_scripts(scenario: &Scenario, path: &JsonPath, problems: &mut Vec<Problem>) {
    let provider = &scenario.provider;
    if provider.kind == ProviderKind::Sim
        && !scenario.pattern.is_round_table()
        && let Some(responses) = &provider.responses
    {
        problems.push(Problem::at_key(
            path.key("responses"),
            format!(
                "\"responses\" scripts collaboration roles ({} given); this scenario's pattern is {}",
                responses.len(),
                scenario.pattern
            ),
        ));
    }
    // A graph's agent and map nodes are scripted by node id (the graph's
    // own checks read those scripts), a team's agents by name.
    if provider.kind == ProviderKind::Sim
        && provider.turns.is_some()
        && !scenario.pattern.runs_agents()
    {
        problems.push(Problem::at_key(
            path.key("turns"),
            format!(
                "\"turns\" scripts the agents of swarm and coordinator scenarios; this scenario's pattern is {}",
                scenario.pattern
            ),
        ));
    }
    if scenario.pattern.is_team() && provider.final_answer.is_some() {
        problems.push(Problem::at_key(
            path.key("final_answer"),
            format!(
                "a {} run answers with an agent's reply; script it as a \"reply\" turn instead of \"final_answer\"",
                scenario.pattern
            ),
        ));
    }
    if let Some(plan) = &provider.plan {
        if scenario.pattern.dispatches_workers() {
            check_script_text(plan, &path.key("plan"), problems);
        } else if !scenario.pattern.researches() {
            // The research planner's script is checked with its pattern.
            problems.push(Problem::at_key(
                path.key("plan"),
                format!(
                    "\"plan\" scripts the orchestrator's or the research planner; this scenario's pattern is {}",
                    scenario.pattern
                ),
            ));
        }
    }
    if provider.synthesis.is_some() && !scenario.pattern.researches() {
        problems.push(Problem::at_key(
            path.key("synthesis"),
            format!(
                "\"synthesis\" scripts the research answer; this scenario's pattern is {}",
                scenario.pattern
            ),
        ));
    }
}
