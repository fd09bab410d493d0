//! The sim's scripted turns of a swarm or coordinator scenario: every
//! agent that can get a turn (the entry, the targets of scripted
//! transfers, the members the coordinator calls) has turns scripted, and
//! each is checked as its role's turn (`turn.rs`).

use super::super::scenario::{AgentSpec, TeamSpec};
use super::turn::{Speaker, check_turn};
use crate::scenario::error::Problem;
use crate::scenario::path::JsonPath;
use crate::scenario::pattern_kind::PatternKind;
use crate::scenario::script::script_entries;
use crate::scenario::types::Scenario;
use indexmap::IndexMap;
use serde_json::Value;
use std::borrow::Cow;

/// Every agent that can get a turn has scripted turns of the kinds it may
/// take: the entry, the declared targets of scripted transfers and the
/// declared members the coordinator calls.
pub(super) fn check_turns(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let provider_path = JsonPath::root().key("provider");
    let turns_path = provider_path.key("turns");
    let Some(turns) = &scenario.provider.turns else {
        problems.push(Problem::at(
            provider_path,
            "missing field \"turns\": the sim needs the turns of each agent that takes one",
        ));
        return;
    };
    // Each agent that gets a turn, with the first place that gives it
    // one, written only for an agent whose turns are missing: a turn of
    // 100,000 member calls names as many agents.
    let mut needed: IndexMap<Cow<'_, str>, GivenAt<'_>> = IndexMap::new();
    let top = Part::top(scenario);
    if let Some(entry) = top.entry.filter(|e| top.is_agent(e)) {
        needed.insert(entry.into(), GivenAt::Path(JsonPath::root().key("entry")));
    }
    for (name, team) in &scenario.teams {
        let part = Part::team(name, team);
        if let Some(entry) = part.entry.filter(|e| part.is_agent(e)) {
            let at = JsonPath::root().key("teams").key(name).key("entry");
            needed
                .entry(part.key_of(entry))
                .or_insert(GivenAt::Path(at));
        }
    }
    for (agent, script) in turns {
        // Places are written only for the problems found: a file of
        // 40,000 scripted turns has none to say.
        let path = || turns_path.key(agent);
        let (part, own) = Part::of_key(scenario, agent).unwrap_or_else(|| {
            problems.push(Problem::at_key(path(), not_an_agent(scenario, agent)));
            (Part::top(scenario), agent.as_str())
        });
        let speaker = if !part.pattern.has_coordinator() {
            Speaker::SwarmAgent
        } else if part.entry == Some(own) {
            Speaker::Coordinator
        } else {
            Speaker::Member
        };
        let entries = script_entries(script);
        if entries.is_empty() {
            problems.push(Problem::at(path(), "expected at least one turn"));
        }
        for (i, entry) in entries.iter().enumerate() {
            let at = || {
                if script.is_array() {
                    path().index(i)
                } else {
                    path()
                }
            };
            check_turn(entry, speaker, &at, problems);
            for (target, named) in targets(entry) {
                if part.is_agent(target) {
                    let turn = script.is_array().then_some(i);
                    let at = GivenAt::Turn(agent, turn, named);
                    needed.entry(part.key_of(target)).or_insert(at);
                }
            }
        }
    }
    for (agent, given_at) in &needed {
        if !turns.contains_key(agent.as_ref()) {
            let used_at = given_at.path(&turns_path);
            problems.push(Problem::at(
                turns_path.clone(),
                format!(
                    "missing the turns of agent {} (it gets a turn through {used_at})",
                    Value::from(agent.as_ref())
                ),
            ));
        }
    }
}

/// Why `key` of `provider.turns` names no agent that takes turns.
fn not_an_agent(scenario: &Scenario, key: &str) -> String {
    let found = Value::from(key);
    if let Some((team, _)) = key.split_once('/').filter(|_| !scenario.teams.is_empty()) {
        let teams: Vec<&str> = scenario.teams.keys().map(String::as_str).collect();
        return format!(
            "{found} is not an agent of a team in teams: expected TEAM/AGENT with TEAM one of ({}) and AGENT one of its agents (team {})",
            teams.join(", "),
            Value::from(team)
        );
    }
    if let Some(team) = scenario.agents.get(key).and_then(|a| a.team.as_deref()) {
        return format!(
            "{found} is the team {}, whose own agents take the turns: expected them under \"{team}/AGENT\"",
            Value::from(team)
        );
    }
    format!(
        "{found} is not an agent declared in agents ({})",
        scenario
            .agents
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The scenario's own team or one of its `teams`: who takes turns in it,
/// and under which keys of `provider.turns`.
struct Part<'a> {
    /// The team's name, `None` for the scenario's own team.
    team: Option<&'a str>,
    pattern: PatternKind,
    entry: Option<&'a str>,
    agents: &'a IndexMap<String, AgentSpec>,
}

impl<'a> Part<'a> {
    fn top(scenario: &'a Scenario) -> Self {
        Part {
            team: None,
            pattern: scenario.pattern,
            entry: scenario.entry.as_deref(),
            agents: &scenario.agents,
        }
    }

    fn team(name: &'a str, team: &'a TeamSpec) -> Self {
        Part {
            team: Some(name),
            pattern: team.pattern,
            entry: Some(team.entry.as_str()),
            agents: &team.agents,
        }
    }

    /// The part whose agent `key` of `provider.turns` names (`AGENT`, or
    /// `TEAM/AGENT` for a team's), with the agent's own name.
    fn of_key(scenario: &'a Scenario, key: &'a str) -> Option<(Self, &'a str)> {
        let (part, own) = match key.split_once('/') {
            None => (Part::top(scenario), key),
            Some((team, own)) => {
                let (name, spec) = scenario.teams.get_key_value(team)?;
                (Part::team(name, spec), own)
            }
        };
        part.is_agent(own).then_some((part, own))
    }

    /// Whether `name` is an agent of this part that takes turns (not a
    /// team).
    fn is_agent(&self, name: &str) -> bool {
        self.agents.get(name).is_some_and(|a| a.team.is_none())
    }

    /// The key of `provider.turns` for this part's agent `name`.
    fn key_of<'n>(&self, name: &'n str) -> Cow<'n, str> {
        match self.team {
            None => Cow::Borrowed(name),
            Some(team) => Cow::Owned(format!("{team}/{name}")),
        }
    }
}

/// Where in a turn it names an agent: the path is written only for an
/// agent met the first time.
#[derive(Clone, Copy)]
enum Named {
    TransferTo,
    /// The member of the turn's call `i`.
    Member(usize),
}

impl Named {
    fn under(self, turn: &JsonPath) -> JsonPath {
        match self {
            Named::TransferTo => turn.key("transfer_to"),
            Named::Member(i) => turn.key("call_members").index(i).key("member"),
        }
    }
}

/// Where an agent is first given a turn: a place, or the turn of
/// `provider.turns` (the agent's script, the turn's index in a list) that
/// names it.
enum GivenAt<'s> {
    Path(JsonPath),
    Turn(&'s str, Option<usize>, Named),
}

impl GivenAt<'_> {
    fn path(&self, turns: &JsonPath) -> JsonPath {
        match self {
            GivenAt::Path(path) => path.clone(),
            GivenAt::Turn(agent, turn, named) => {
                let script = turns.key(agent);
                named.under(&turn.map_or_else(|| script.clone(), |i| script.index(i)))
            }
        }
    }
}

/// The agents a turn hands control to or calls, with where it names them.
fn targets(entry: &Value) -> impl Iterator<Item = (&str, Named)> {
    let to = entry.get("transfer_to").and_then(Value::as_str);
    let calls = entry.get("call_members").and_then(Value::as_array);
    let members = calls.into_iter().flatten().enumerate();
    to.map(|to| (to, Named::TransferTo))
        .into_iter()
        .chain(members.filter_map(|(i, call)| {
            let member = call.get("member").and_then(Value::as_str)?;
            Some((member, Named::Member(i)))
        }))
}
