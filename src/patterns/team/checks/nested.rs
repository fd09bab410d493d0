//! Nested teams (issue 34, 002's "Team of Teams"): a coordinator's member
//! may be a team of the scenario's `teams`, itself a swarm or a
//! coordinator. Every `{"team": NAME}` names a declared team, and only in a
//! coordinator's agents; no team contains itself at any depth; teams nest
//! at most [`MAX_TEAM_DEPTH`] levels below the scenario's own (a graph's
//! team nodes are its members); each team's part is whole as a scenario's
//! would be; and every team is used.

use super::super::scenario::{AgentSpec, MAX_TEAM_DEPTH, TeamSpec};
use crate::scenario::error::Problem;
use crate::scenario::names::is_valid_name;
use crate::scenario::path::JsonPath;
use crate::scenario::pattern_kind::PatternKind;
use crate::scenario::types::Scenario;
use indexmap::IndexMap;
use serde_json::Value;

pub(crate) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    if scenario.pattern.is_team() {
        members(scenario, None, &root, problems);
    }
    for (name, team) in &scenario.teams {
        let at = root.key("teams").key(name);
        team_part(name, team, &at, problems);
        members(scenario, Some((name, team)), &at, problems);
    }
    let graph = Graph::new(scenario);
    graph.cycles(problems);
    graph.depth(scenario, problems);
    graph.unused(scenario.graph.is_some(), problems);
}

/// The `{"team": …}` members of the scenario's own part (`team` `None`) or
/// of one of its teams, written at `at`.
fn members(
    scenario: &Scenario,
    team: Option<(&String, &TeamSpec)>,
    at: &JsonPath,
    problems: &mut Vec<Problem>,
) {
    let (pattern, entry, agents) = match team {
        None => (
            scenario.pattern,
            scenario.entry.as_deref(),
            &scenario.agents,
        ),
        Some((_, t)) => (t.pattern, Some(t.entry.as_str()), &t.agents),
    };
    for (name, agent) in agents {
        let Some(member) = &agent.team else { continue };
        let path = at.key("agents").key(name).key("team");
        if !pattern.has_coordinator() {
            problems.push(Problem::at_key(
                path,
                super::super::scenario::team_as_swarm_agent(member, name),
            ));
        } else if entry == Some(name.as_str()) {
            problems.push(Problem::at_key(
                path,
                format!(
                    "{} is the coordinator, which must be an agent: expected a member other than the entry to be a team",
                    Value::from(name.as_str())
                ),
            ));
        } else if !scenario.teams.contains_key(member) {
            problems.push(Problem::at(path, unknown_team(scenario, member)));
        }
    }
}

fn unknown_team(scenario: &Scenario, found: &str) -> String {
    let known: Vec<&str> = scenario.teams.keys().map(String::as_str).collect();
    let known = if known.is_empty() {
        "none is declared".to_string()
    } else {
        known.join(", ")
    };
    format!(
        "expected a team declared in teams ({known}), found {}",
        Value::from(found)
    )
}

/// A team's own part, checked as a swarm or coordinator scenario's is.
fn team_part(name: &str, team: &TeamSpec, at: &JsonPath, problems: &mut Vec<Problem>) {
    let pattern = team.pattern;
    if !pattern.is_team() {
        problems.push(Problem::at(
            at.key("pattern"),
            format!(
                "expected \"swarm\" or \"coordinator\": a team is a swarm or a coordinator, found {}",
                Value::from(pattern.as_str())
            ),
        ));
        return;
    }
    if !is_valid_name(name) {
        problems.push(Problem::at_key(
            at.clone(),
            format!(
                "expected a team name of letters, digits, '_' and '-' only (^[a-zA-Z0-9_-]+$), found {}",
                Value::from(name)
            ),
        ));
    }
    let declared: Vec<&str> = team.agents.keys().map(String::as_str).collect();
    if declared.is_empty() {
        problems.push(Problem::at(at.key("agents"), "expected at least one agent"));
    } else if !team.agents.contains_key(&team.entry) {
        problems.push(Problem::at(
            at.key("entry"),
            format!(
                "expected an agent declared in the team's agents ({}), found {}",
                declared.join(", "),
                Value::from(team.entry.as_str())
            ),
        ));
    } else if pattern.has_coordinator() && !declared.iter().any(|a| *a != team.entry) {
        problems.push(Problem::at(
            at.key("agents"),
            format!(
                "expected at least one member besides the coordinator {}",
                Value::from(team.entry.as_str())
            ),
        ));
    }
    agents_and_tools(team, at, problems);
}

/// The team's agents' and tools' names, `history` on its members only, and
/// the limits of its own pattern.
fn agents_and_tools(team: &TeamSpec, at: &JsonPath, problems: &mut Vec<Problem>) {
    let pattern = team.pattern;
    for (name, agent) in &team.agents {
        let path = at.key("agents").key(name);
        if !is_valid_name(name) {
            problems.push(Problem::at_key(
                path.clone(),
                format!(
                    "expected an agent name of letters, digits, '_' and '-' only (^[a-zA-Z0-9_-]+$), found {}",
                    Value::from(name.as_str())
                ),
            ));
        }
        if agent.history.is_some() && (!pattern.has_coordinator() || *name == team.entry) {
            problems.push(Problem::at_key(
                path.key("history"),
                "\"history\" is what a coordinator's member sees when called; expected it only on a coordinator team's members",
            ));
        }
    }
    for (key, owner) in team.limits.iter().flat_map(|l| l.keys_set()) {
        if owner != pattern {
            problems.push(Problem::at_key(
                at.key("limits").key(key),
                format!("{key:?} is a limit of {owner} teams; this team's pattern is {pattern}"),
            ));
        }
    }
    for name in team.tools.keys().filter(|n| !is_valid_name(n)) {
        problems.push(Problem::at_key(
            at.key("tools").key(name),
            format!(
                "expected a tool name of letters, digits, '_' and '-' only (^[a-zA-Z0-9_-]+$), found {}",
                Value::from(name.as_str())
            ),
        ));
    }
    let tools_path = at.key("tools");
    super::check_tool_specs(&team.tools, &team.agents, &tools_path, problems);
}

/// Which team names which as a member: the edges of the nesting, each with
/// the place of its `"team"` key. Node 0 is the scenario's own team; node
/// `i + 1` is `teams[i]`.
struct Graph<'a> {
    names: Vec<&'a str>,
    edges: Vec<Vec<(usize, JsonPath)>>,
}

impl<'a> Graph<'a> {
    fn new(scenario: &'a Scenario) -> Self {
        let top = scenario.entry.as_deref().unwrap_or(&scenario.name);
        let mut names = vec![top];
        names.extend(scenario.teams.keys().map(String::as_str));
        let edges_of =
            |pattern: PatternKind, agents: &IndexMap<String, AgentSpec>, at: JsonPath| {
                if !pattern.has_coordinator() {
                    return Vec::new();
                }
                agents
                    .iter()
                    .filter_map(|(name, agent)| {
                        let index = scenario.teams.get_index_of(agent.team.as_deref()?)?;
                        Some((index + 1, at.key("agents").key(name).key("team")))
                    })
                    .collect()
            };
        let mut edges = vec![edges_of(
            scenario.pattern,
            &scenario.agents,
            JsonPath::root(),
        )];
        // A graph's team nodes are its members: its teams sit one level
        // below it, as a coordinator's member teams do.
        if let Some(graph) = scenario.graph.as_ref() {
            let at = JsonPath::root().key("graph").key("nodes");
            edges[0].extend(graph.nodes.iter().enumerate().filter_map(|(i, node)| {
                let index = scenario.teams.get_index_of(node.team.as_deref()?)?;
                Some((index + 1, at.index(i).key("team")))
            }));
        }
        for (name, team) in &scenario.teams {
            let at = JsonPath::root().key("teams").key(name);
            edges.push(edges_of(team.pattern, &team.agents, at));
        }
        Graph { names, edges }
    }

    /// One error per cycle, at the member that closes it.
    fn cycles(&self, problems: &mut Vec<Problem>) {
        // 0: not seen, 1: on the path, 2: done.
        let mut state = vec![0u8; self.names.len()];
        for start in 1..self.names.len() {
            if state[start] != 0 {
                continue;
            }
            // Depth first without recursion: (node, next edge).
            let mut stack = vec![(start, 0usize)];
            state[start] = 1;
            while let Some((node, next)) = stack.last_mut() {
                let node = *node;
                let Some((to, at)) = self.edges[node].get(*next) else {
                    state[node] = 2;
                    stack.pop();
                    continue;
                };
                *next += 1;
                match state[*to] {
                    0 => {
                        state[*to] = 1;
                        stack.push((*to, 0));
                    }
                    1 => {
                        let from = stack.iter().position(|(n, _)| n == to).unwrap_or(0);
                        let mut cycle: Vec<&str> =
                            stack[from..].iter().map(|(n, _)| self.names[*n]).collect();
                        cycle.push(self.names[*to]);
                        problems.push(Problem::at_key(
                            at.clone(),
                            format!(
                                "team {} contains itself: {}; a team may not be its own member at any depth",
                                Value::from(self.names[*to]),
                                cycle.join(" → ")
                            ),
                        ));
                    }
                    _ => {}
                }
            }
        }
    }

    /// One error when a line of member teams from the scenario's own goes
    /// deeper than [`MAX_TEAM_DEPTH`], at the first member one level too
    /// deep. Lines are followed at most one level past the cap, so a
    /// scenario of many teams costs a few passes over its members.
    fn depth(&self, scenario: &Scenario, problems: &mut Vec<Problem>) {
        if !scenario.pattern.runs_agents() {
            return;
        }
        let longest = MAX_TEAM_DEPTH + 2;
        // The longest line found to each team, the scenario's own first,
        // and where its last member names it.
        let mut lines: Vec<Option<(Vec<usize>, &JsonPath)>> = vec![None; self.names.len()];
        let root = JsonPath::root();
        lines[0] = Some((vec![0], &root));
        for _ in 0..longest {
            for from in 0..self.names.len() {
                let Some((line, _)) = &lines[from] else {
                    continue;
                };
                if line.len() >= longest {
                    continue;
                }
                let line = line.clone();
                for (to, at) in &self.edges[from] {
                    let longer = lines[*to]
                        .as_ref()
                        .is_none_or(|(l, _)| l.len() < line.len() + 1);
                    if longer && !line.contains(to) {
                        let mut through = line.clone();
                        through.push(*to);
                        lines[*to] = Some((through, at));
                    }
                }
            }
        }
        let too_deep = lines
            .iter()
            .flatten()
            .find(|(line, _)| line.len() == longest);
        if let Some((line, at)) = too_deep {
            let path: Vec<&str> = line.iter().map(|n| self.names[*n]).collect();
            problems.push(Problem::at_key(
                (*at).clone(),
                format!(
                    "team {} is nested {} levels deep here ({}); teams nest at most {MAX_TEAM_DEPTH} levels below the scenario's own",
                    Value::from(path[path.len() - 1]),
                    line.len() - 1,
                    path.join("/")
                ),
            ));
        }
    }

    /// An error for each team no coordinator of the scenario reaches (nor,
    /// in a graph scenario, `in_graph`, any of its team nodes).
    fn unused(&self, in_graph: bool, problems: &mut Vec<Problem>) {
        let mut reached = vec![false; self.names.len()];
        let mut todo = vec![0usize];
        reached[0] = true;
        while let Some(node) = todo.pop() {
            for (to, _) in &self.edges[node] {
                if !reached[*to] {
                    reached[*to] = true;
                    todo.push(*to);
                }
            }
        }
        for (i, name) in self.names.iter().enumerate().skip(1) {
            if !reached[i] {
                let name = Value::from(*name);
                let words = if in_graph {
                    format!(
                        "team {name} is run by no node of this graph (nor by a coordinator of a team it runs): name it in a node of graph.nodes as {{\"id\": …, \"team\": {name}}}, or remove it"
                    )
                } else {
                    format!(
                        "team {name} is not a member of any coordinator of this scenario: name it in a coordinator's agents as {{\"team\": {name}}}, or remove it"
                    )
                };
                problems.push(Problem::at_key(
                    JsonPath::root().key("teams").key(self.names[i]),
                    words,
                ));
            }
        }
    }
}
