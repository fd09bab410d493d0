//! The cross-reference checks a schema cannot express: every name a scenario
//! uses must be declared, each section must belong to the scenario's
//! pattern, and the sim must have a script for everyone who speaks. Each
//! pattern's own section is checked in its folder (`patterns::<p>::checks`,
//! the teams' nesting in `team::checks::nested`); the checks here are the
//! ones every pattern shares.

mod durations;
mod names;
mod provider;
mod real;
mod resilience;
mod spend;

pub(crate) use names::is_valid_name;

use super::error::Problem;
use super::json_text::JsonText;
use super::path::JsonPath;
use super::pattern_kind::PatternKind;
use super::script::{ScriptedOutput, script_entries, script_entry_texts};
use super::types::{Budget, Scenario};
use serde_json::Value;

pub(crate) fn check(scenario: &Scenario) -> Vec<Problem> {
    let mut problems = Vec::new();
    match scenario.pattern {
        PatternKind::Collaboration => {
            crate::patterns::collaboration::checks::check(scenario, &mut problems)
        }
        PatternKind::Orchestrator => {
            crate::patterns::orchestrator::checks::check(scenario, &mut problems)
        }
        PatternKind::Swarm | PatternKind::Coordinator => {
            crate::patterns::team::checks::check(scenario, &mut problems)
        }
        PatternKind::Research => crate::patterns::research::checks::check(scenario, &mut problems),
        PatternKind::Graph => crate::patterns::graph::checks::check(scenario, &mut problems),
    }
    names::check(scenario, &mut problems);
    crate::patterns::team::checks::nested::check(scenario, &mut problems);
    provider::check(scenario, &mut problems);
    check_sections(scenario, &mut problems);
    resilience::check(scenario, &mut problems);
    real::check(scenario, &mut problems);
    durations::check(scenario, &mut problems);
    spend::check(scenario, &mut problems);
    problems
}

/// Sections and budget keys that belong to another pattern than the
/// scenario's.
fn check_sections(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let pattern = scenario.pattern;
    let mut foreign = |section: &str, owner: PatternKind, present: bool| {
        if present && pattern != owner {
            problems.push(Problem::at_key(
                root.key(section),
                format!(
                    "{section:?} belongs to {owner} scenarios; this scenario's pattern is {pattern}"
                ),
            ));
        }
    };
    foreign("team", PatternKind::Collaboration, scenario.team.is_some());
    foreign(
        "workers",
        PatternKind::Orchestrator,
        !scenario.workers.is_empty(),
    );
    foreign(
        "health_rules",
        PatternKind::Orchestrator,
        scenario.health_rules.is_some(),
    );
    foreign("sources", PatternKind::Research, scenario.sources.is_some());
    foreign("graph", PatternKind::Graph, scenario.graph.is_some());
    // A graph's team nodes run teams of `teams`, as a coordinator's
    // members do.
    foreign(
        "teams",
        PatternKind::Coordinator,
        !scenario.teams.is_empty() && pattern != PatternKind::Graph,
    );
    let team = pattern.is_team();
    // A graph's agent and tool nodes name the scenario's agents and tools.
    let graph = pattern == PatternKind::Graph;
    for (section, present, in_graph) in [
        ("entry", scenario.entry.is_some(), false),
        ("agents", !scenario.agents.is_empty(), true),
        ("limits", scenario.limits.is_some(), false),
        ("tools", !scenario.tools.is_empty(), true),
    ] {
        if present && !team && !(graph && in_graph) {
            problems.push(Problem::at_key(
                root.key(section),
                format!(
                    "{section:?} belongs to swarm and coordinator scenarios; this scenario's pattern is {pattern}"
                ),
            ));
        }
    }
    if let Some(budget) = &scenario.budget {
        for key in budget.keys_set() {
            let owners = crate::patterns::declared::budget_readers(key, Budget::SHARED_KEYS);
            if !owners.contains(&pattern) {
                let owners: Vec<&str> = owners.iter().map(|p| p.as_str()).collect();
                problems.push(Problem::at_key(
                    root.key("budget").key(key),
                    format!(
                        "{key:?} is a budget of {} scenarios; this scenario's pattern is {pattern}",
                        owners.join(" and ")
                    ),
                ));
            }
        }
    }
}

pub(crate) fn check_script(script: &Value, path: &JsonPath, problems: &mut Vec<Problem>) {
    let entries = script_entries(script);
    check_entries(
        entries,
        script.is_array(),
        ScriptedOutput::check,
        path,
        problems,
    );
}

/// [`check_script`] of a script kept as text, without building it.
fn check_script_text(script: &JsonText, path: &JsonPath, problems: &mut Vec<Problem>) {
    let entries = script_entry_texts(script.text());
    let check = |entry: &&str| ScriptedOutput::check_text(entry);
    check_entries(&entries, script.is_array(), check, path, problems);
}

/// Each of a script's outputs read as an output; `listed` when the script
/// is a list of them rather than the only one.
fn check_entries<E>(
    entries: &[E],
    listed: bool,
    check: impl Fn(&E) -> Result<(), String>,
    path: &JsonPath,
    problems: &mut Vec<Problem>,
) {
    if entries.is_empty() {
        problems.push(Problem::at(path.clone(), "expected at least one output"));
    }
    for (i, entry) in entries.iter().enumerate() {
        if let Err(message) = check(entry) {
            let at = if listed { path.index(i) } else { path.clone() };
            problems.push(Problem::at(at.key(super::script::FAULT_KEY), message));
        }
    }
}
