//! The swarm's and the coordinator's cross-reference checks: the entry and
//! the flags name declared agents, the limits belong to the pattern, tools
//! are well-formed, and (in `turns`) the sim scripts a turn of the right
//! kind for every agent that can get one. A scripted transfer or call may
//! name an agent or tool nobody declared: that is the model's mistake, and
//! the run refuses it (`unknown_agent`, `worker_missing`) as it would a
//! real model's.

pub(crate) mod nested;
mod turn;
mod turns;

use super::scenario::AgentSpec;
use crate::scenario::error::Problem;
use crate::scenario::path::JsonPath;
use crate::scenario::types::{ProviderKind, Scenario};
use crate::scenario::workers::WorkerSpec;
use indexmap::IndexMap;
use serde_json::Value;

/// A flag's `agents`: each one of the scenario's, or `TEAM/AGENT` for a
/// member team's agent.
fn flag_agents(
    scenario: &Scenario,
    agents: &[String],
    flag_path: &JsonPath,
    expected_agent: &dyn Fn(&str) -> String,
    problems: &mut Vec<Problem>,
) {
    for (i, agent) in agents.iter().enumerate() {
        let of_a_team = agent.split_once('/').is_some_and(|(team, own)| {
            scenario
                .teams
                .get(team)
                .is_some_and(|t| t.agents.contains_key(own))
        });
        if !scenario.agents.contains_key(agent) && !of_a_team {
            let mut message = expected_agent(agent);
            if !scenario.teams.is_empty() {
                message.push_str(", or TEAM/AGENT for an agent of a team in teams");
            }
            problems.push(Problem::at(flag_path.key("agents").index(i), message));
        }
    }
}

pub(crate) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let pattern = scenario.pattern;
    let declared: Vec<&str> = scenario.agents.keys().map(String::as_str).collect();
    if declared.is_empty() {
        problems.push(Problem::at(
            root.clone(),
            format!("missing field \"agents\": a {pattern} scenario declares its agents"),
        ));
    }
    let expected_agent = |found: &str| {
        format!(
            "expected an agent declared in agents ({}), found {}",
            declared.join(", "),
            Value::from(found)
        )
    };
    match &scenario.entry {
        None => problems.push(Problem::at(
            root.clone(),
            if pattern.has_coordinator() {
                "missing field \"entry\": the agent that coordinates the team"
            } else {
                "missing field \"entry\": the agent that takes the first turn"
            },
        )),
        Some(entry) if !scenario.agents.contains_key(entry) && !declared.is_empty() => {
            problems.push(Problem::at(root.key("entry"), expected_agent(entry)))
        }
        Some(entry) => {
            if pattern.has_coordinator() && !declared.iter().any(|a| a != entry) {
                problems.push(Problem::at(
                    root.key("agents"),
                    format!(
                        "expected at least one member besides the coordinator {}",
                        Value::from(entry.as_str())
                    ),
                ));
            }
        }
    }

    for (name, flag) in &scenario.flags {
        let flag_path = root.key("flags").key(name);
        flag_agents(
            scenario,
            &flag.agents,
            &flag_path,
            &expected_agent,
            problems,
        );
        flag.check_gates(&flag_path, (&pattern, "agents"), problems);
    }

    for (name, agent) in &scenario.agents {
        let coordinator = scenario.entry.as_deref() == Some(name.as_str());
        if agent.history.is_some() && (!pattern.has_coordinator() || coordinator) {
            problems.push(Problem::at_key(
                root.key("agents").key(name).key("history"),
                "\"history\" is what a coordinator's member sees when called; expected it only on a coordinator scenario's members".to_string(),
            ));
        }
    }
    if let Some(limits) = &scenario.limits {
        for (key, owner) in limits.keys_set() {
            if owner != pattern {
                problems.push(Problem::at_key(
                    root.key("limits").key(key),
                    format!("{key:?} is a limit of {owner} scenarios; this scenario's pattern is {pattern}"),
                ));
            }
        }
    }
    check_tools(scenario, problems);
    if scenario.provider.kind == ProviderKind::Sim {
        turns::check_turns(scenario, problems);
    }
}

fn check_tools(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let tools_path = JsonPath::root().key("tools");
    check_tool_specs(&scenario.tools, &scenario.agents, &tools_path, problems);
}

/// A team's `tools` at `tools_path`: named apart from its `agents`, with
/// latencies and outages that make sense. The scenario's own team's and
/// each of its `teams`' alike.
pub(super) fn check_tool_specs(
    tools: &IndexMap<String, WorkerSpec>,
    agents: &IndexMap<String, AgentSpec>,
    tools_path: &JsonPath,
    problems: &mut Vec<Problem>,
) {
    for (name, spec) in tools {
        let path = tools_path.key(name);
        if agents.contains_key(name) {
            problems.push(Problem::at_key(
                path.clone(),
                format!(
                    "{} is also an agent's name; a tool needs a name of its own",
                    Value::from(name.as_str())
                ),
            ));
        }
        spec.check_times(&path, problems);
    }
}
