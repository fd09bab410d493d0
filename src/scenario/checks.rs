//! The cross-reference checks a schema cannot express: every name a scenario
//! uses must be declared, each section must belong to the scenario's
//! pattern, and the sim must have a script for everyone who speaks.

mod durations;
mod names;
mod nested;
mod orchestrator;
mod provider;
mod real;
mod research;
mod resilience;
mod spend;
mod swarm;
mod turns;

use super::error::Problem;
use super::json_text::JsonText;
use super::path::JsonPath;
use super::pattern_kind::PatternKind;
use super::script::{ScriptedOutput, script_entries, script_entry_texts};
use super::types::{Budget, ProviderKind, Scenario};
use serde_json::Value;

pub(crate) fn check(scenario: &Scenario) -> Vec<Problem> {
    let mut problems = Vec::new();
    match scenario.pattern {
        PatternKind::Collaboration => check_collaboration(scenario, &mut problems),
        PatternKind::Orchestrator => orchestrator::check(scenario, &mut problems),
        PatternKind::Swarm | PatternKind::Coordinator => swarm::check(scenario, &mut problems),
        PatternKind::Research => research::check(scenario, &mut problems),
        PatternKind::Graph => crate::patterns::graph::checks::check(scenario, &mut problems),
    }
    names::check(scenario, &mut problems);
    nested::check(scenario, &mut problems);
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

fn check_collaboration(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let Some(team) = &scenario.team else {
        problems.push(Problem::at(
            root,
            "missing field \"team\": a collaboration scenario declares its roles and their speaking order",
        ));
        return;
    };
    let roles_path = root.key("team").key("roles");
    let declared: Vec<&str> = team.roles.keys().map(String::as_str).collect();
    if declared.is_empty() {
        problems.push(Problem::at(
            roles_path.clone(),
            "expected at least one role",
        ));
    }
    let expected_role = |found: &str| {
        format!(
            "expected a role declared in team.roles ({}), found {}",
            declared.join(", "),
            Value::from(found)
        )
    };
    for (i, role) in team.sequence.iter().enumerate() {
        if !team.roles.contains_key(role) {
            problems.push(Problem::at(
                root.key("team").key("sequence").index(i),
                expected_role(role),
            ));
        }
    }
    for (name, flag) in &scenario.flags {
        let flag_path = root.key("flags").key(name);
        for (i, role) in flag.roles.iter().enumerate() {
            if !team.roles.contains_key(role) {
                problems.push(Problem::at(
                    flag_path.key("roles").index(i),
                    expected_role(role),
                ));
            }
        }
        for (field, names) in [
            ("workers", &flag.workers),
            ("agents", &flag.agents),
            ("domains", &flag.domains),
        ] {
            if !names.is_empty() {
                problems.push(Problem::at_key(
                    flag_path.key(field),
                    format!(
                        "collaboration flags gate roles; expected \"roles\" instead of \"{field}\""
                    ),
                ));
            }
        }
    }
    if scenario.provider.kind == ProviderKind::Sim {
        check_role_scripts(scenario, &declared, problems);
    }
}

/// Every role that can speak needs scripted outputs: the sequence, and the
/// roles of flags that join the table.
fn check_role_scripts(scenario: &Scenario, declared: &[&str], problems: &mut Vec<Problem>) {
    let Some(team) = &scenario.team else { return };
    let provider_path = JsonPath::root().key("provider");
    let responses_path = provider_path.key("responses");
    let mut speakers: Vec<(String, JsonPath)> = team
        .sequence
        .iter()
        .enumerate()
        .map(|(i, role)| {
            (
                role.clone(),
                JsonPath::root().key("team").key("sequence").index(i),
            )
        })
        .collect();
    for (name, flag) in scenario.flags.iter().filter(|(_, f)| f.joins) {
        for (i, role) in flag.roles.iter().enumerate() {
            speakers.push((
                role.clone(),
                JsonPath::root()
                    .key("flags")
                    .key(name)
                    .key("roles")
                    .index(i),
            ));
        }
    }
    let Some(responses) = &scenario.provider.responses else {
        problems.push(Problem::at(
            provider_path,
            "missing field \"responses\": the sim needs each speaking role's outputs",
        ));
        return;
    };
    let mut reported = Vec::new();
    for (role, used_at) in &speakers {
        if team.roles.contains_key(role)
            && !responses.contains_key(role)
            && !reported.contains(role)
        {
            reported.push(role.clone());
            problems.push(Problem::at(
                responses_path.clone(),
                format!(
                    "missing the outputs of role {} (it speaks at {used_at})",
                    Value::from(role.as_str())
                ),
            ));
        }
    }
    for (role, script) in responses {
        let path = responses_path.key(role);
        if !team.roles.contains_key(role) {
            problems.push(Problem::at_key(
                path.clone(),
                format!(
                    "{} is not a role declared in team.roles ({})",
                    Value::from(role.as_str()),
                    declared.join(", ")
                ),
            ));
        }
        check_script(script, &path, problems);
    }
}

fn check_script(script: &Value, path: &JsonPath, problems: &mut Vec<Problem>) {
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
