//! The cross-reference checks a schema cannot express: every name a scenario
//! uses must be declared, each section must belong to the scenario's
//! pattern, and the sim must have a script for everyone who speaks. Each
//! pattern's own section is checked in its folder (`patterns::<p>::checks`,
//! the teams' nesting in `team::checks::nested`); the checks here are the
//! ones every pattern shares.

mod durations;
mod provider;
mod real;
mod resilience;
mod spend;

use super::error::Problem;
use super::names;
use super::path::JsonPath;
use super::pattern_kind::PatternKind;
use super::types::{Budget, Scenario};

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
