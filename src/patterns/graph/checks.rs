//! A graph scenario's checks at load: the section read as a graph
//! (`shape`), every lint finding, the agents, tools and teams its nodes
//! name, and the sim's scripts named by node (or, for a team's agents, by
//! `TEAM/AGENT`). Each problem names its place in the file
//! (`graph.nodes[3]`, `graph.edges[2]`). A team's own part, its depth
//! and its use are the nested teams' checks (`team::checks::nested`).

use super::lint::lint;
use super::shape::{Kind, compile};
use crate::scenario::error::Problem;
use crate::scenario::path::JsonPath;
use crate::scenario::types::{ProviderKind, Scenario};

pub(crate) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let Some(graph) = &scenario.graph else {
        problems.push(Problem::at(
            root,
            "missing field \"graph\": a graph scenario declares its nodes and edges",
        ));
        return;
    };
    let at = root.key("graph");
    let shape = match compile(graph, &at) {
        Ok(shape) => shape,
        Err(found) => {
            problems.extend(found);
            return;
        }
    };
    problems.extend(lint(&shape, &at));
    for (i, node) in shape.nodes.iter().enumerate() {
        // A node's place is built only for what is said of it.
        let place = || at.key("nodes").index(i);
        let named = |key: &str, name: &str, declared: bool, section: &str| {
            (!declared).then(|| {
                Problem::at(
                    place().key(key),
                    format!(
                        "node {:?}: expected a name declared in {section}, found {name:?}",
                        node.id
                    ),
                )
            })
        };
        let problem = match &node.kind {
            Kind::Agent { agent } | Kind::Map { agent, .. } => named(
                "agent",
                agent,
                scenario.agents.contains_key(agent),
                "agents",
            ),
            Kind::Tool { tool } => named("tool", tool, scenario.tools.contains_key(tool), "tools"),
            Kind::Team { team } => (!scenario.teams.contains_key(team))
                .then(|| Problem::at(place().key("team"), unknown_team(scenario, &node.id, team))),
            Kind::Join { .. } | Kind::Human { .. } | Kind::End => None,
        };
        problems.extend(problem);
    }
    if scenario.provider.kind == ProviderKind::Sim
        && let Some(turns) = &scenario.provider.turns
    {
        for name in turns.keys() {
            if team_agent(scenario, name) {
                continue;
            }
            let found = match shape.node(name).map(|n| &shape.nodes[n].kind) {
                Some(Kind::Agent { .. } | Kind::Map { .. }) => continue,
                Some(kind) => format!("{name:?}, a {} node", kind.word()),
                None => format!("{name:?}"),
            };
            problems.push(Problem::at_key(
                root.key("provider").key("turns").key(name),
                format!(
                    "expected the id of an agent or map node of the graph, or TEAM/AGENT for an agent of a team in teams, found {found}"
                ),
            ));
        }
    }
}

/// A team node naming no team of `teams`, in words that list the known.
fn unknown_team(scenario: &Scenario, node: &str, found: &str) -> String {
    let known: Vec<&str> = scenario.teams.keys().map(String::as_str).collect();
    let known = if known.is_empty() {
        "none is declared".to_string()
    } else {
        known.join(", ")
    };
    format!("node {node:?}: expected a team declared in teams ({known}), found {found:?}")
}

/// Whether `key` of `provider.turns` is `TEAM/AGENT`, an agent of a team
/// of `teams`: a team node's agents are scripted as a coordinator's
/// member teams' are.
fn team_agent(scenario: &Scenario, key: &str) -> bool {
    key.split_once('/').is_some_and(|(team, agent)| {
        scenario
            .teams
            .get(team)
            .is_some_and(|spec| spec.agents.contains_key(agent))
    })
}
