//! Nested teams in a scenario file (issue 34, part 1): a coordinator's
//! member may be a team of the top-level `teams`. Every rule gives its
//! documented error at its file:line:col; random nestings either load or
//! give one of those errors, never a panic. How nested teams run is in
//! `nested_runs.rs`.

use crate::common;

use common::cli::conclave;
use common::files::{edit, errors_of};
use conclave::scenario;
use proptest::prelude::*;
use serde_json::{Value, json};

const SHIPPED: &str = "scenarios/nested_launch_team.json";

fn nested() -> Value {
    json!({
        "name": "n",
        "pattern": "coordinator",
        "goal": "Decide.",
        "context": {},
        "entry": "lead",
        "agents": {
            "lead": {},
            "legal": {},
            "research": {"team": "research_team", "description": "a lead over an analyst"},
            "support": {"team": "support_swarm"}
        },
        "teams": {
            "research_team": {
                "pattern": "coordinator",
                "entry": "rlead",
                "agents": {"rlead": {}, "analyst": {}},
                "limits": {"member_timeout_ms": 100}
            },
            "support_swarm": {
                "pattern": "swarm",
                "entry": "triage",
                "agents": {"triage": {}, "billing": {}},
                "limits": {"max_handoffs": 3}
            }
        },
        "provider": {"kind": "sim", "turns": {
            "lead": [{"call_members": [{"member": "research"}, {"member": "legal"}]}, {"reply": "go"}],
            "legal": {"reply": "fine"},
            "research_team/rlead": [{"call_members": [{"member": "analyst"}]}, {"reply": "big"}],
            "research_team/analyst": {"reply": "big"},
            "support_swarm/triage": {"transfer_to": "billing"},
            "support_swarm/billing": {"reply": "ok"}
        }}
    })
}

fn with(pointer: &str, value: Option<Value>) -> String {
    edit(nested(), pointer, value)
}

/// The line and column, from 1, of the first `needle` on or after the
/// first line holding `anchor`.
fn place(text: &str, anchor: &str, needle: &str) -> (usize, usize) {
    let start = text
        .lines()
        .position(|l| l.contains(anchor))
        .unwrap_or_else(|| panic!("{anchor:?} is not in\n{text}"));
    text.lines()
        .enumerate()
        .skip(start)
        .find_map(|(i, line)| line.find(needle).map(|at| (i + 1, at + 1)))
        .unwrap_or_else(|| panic!("{needle:?} is not after {anchor:?} in\n{text}"))
}

/// A chain of `levels` member teams under the scenario's coordinator:
/// `t1` is its member, `t2` is `t1`'s, and so on.
fn chain(levels: usize) -> String {
    let mut doc = nested();
    let mut teams = serde_json::Map::new();
    let mut turns = doc["provider"]["turns"].as_object().unwrap().clone();
    turns.retain(|k, _| !k.contains('/'));
    for level in 1..=levels {
        let mut agents = json!({"boss": {}, "worker": {}});
        if level < levels {
            agents["sub"] = json!({"team": format!("t{}", level + 1)});
        }
        teams.insert(
            format!("t{level}"),
            json!({"pattern": "coordinator", "entry": "boss", "agents": agents}),
        );
        turns.insert(format!("t{level}/boss"), json!({"reply": "x"}));
    }
    doc["teams"] = Value::Object(teams);
    doc["provider"]["turns"] = Value::Object(turns);
    doc["agents"] = json!({"lead": {}, "legal": {}, "research": {"team": "t1"}});
    serde_json::to_string_pretty(&doc).unwrap()
}

#[test]
fn the_nested_base_and_the_shipped_scenario_validate() {
    scenario::parse(&nested().to_string(), "ok.json").unwrap();
    scenario::parse(&chain(4), "ok.json").unwrap();
    let output = conclave(&["validate", SHIPPED]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

#[test]
fn each_nesting_rule_gives_its_error_at_its_place() {
    let cases: Vec<(&str, String, (&str, &str), &str)> = vec![
        (
            "an unknown team",
            with("/agents/support/team", Some(json!("suport_swarm"))),
            ("\"suport_swarm\"", "\"suport_swarm\""),
            "agents.support.team: expected a team declared in teams (research_team, support_swarm), found \"suport_swarm\"",
        ),
        (
            "a team as a swarm's agent",
            with(
                "/teams/support_swarm/agents/billing",
                Some(json!({"team": "research_team"})),
            ),
            ("\"billing\": {", "\"team\""),
            "teams.support_swarm.agents.billing.team: a swarm's agents are agents only, found the team \"research_team\" as agent \"billing\": a swarm hands control to its agents, and a team cannot take the sub-agents a handoff needs; put a coordinator over the swarm and make the team a member of that coordinator",
        ),
        (
            "a team that is its own member",
            with(
                "/teams/research_team/agents/again",
                Some(json!({"team": "research_team"})),
            ),
            ("\"again\": {", "\"team\""),
            "teams.research_team.agents.again.team: team \"research_team\" contains itself: research_team → research_team; a team may not be its own member at any depth",
        ),
        (
            "a team that contains itself two levels down",
            edit(
                serde_json::from_str(&with(
                    "/teams/research_team/agents/swarm",
                    Some(json!({"team": "deeper"})),
                ))
                .unwrap(),
                "/teams/deeper",
                Some(json!({"pattern": "coordinator", "entry": "d", "agents": {
                    "d": {}, "back": {"team": "research_team"}}})),
            ),
            ("\"back\": {", "\"team\""),
            "teams.deeper.agents.back.team: team \"research_team\" contains itself: research_team → deeper → research_team; a team may not be its own member at any depth",
        ),
        (
            "teams five levels deep",
            chain(5),
            ("\"t4\": {", "\"team\""),
            "teams.t4.agents.sub.team: team \"t5\" is nested 5 levels deep here (lead/t1/t2/t3/t4/t5); teams nest at most 4 levels below the scenario's own",
        ),
        (
            "a team whose entry is not its agent",
            with("/teams/research_team/entry", Some(json!("boss"))),
            ("\"entry\": \"boss\"", "\"boss\""),
            "teams.research_team.entry: expected an agent declared in the team's agents (rlead, analyst), found \"boss\"",
        ),
        (
            "a coordinator team with no member",
            with("/teams/research_team/agents", Some(json!({"rlead": {}}))),
            ("\"research_team\": {", "\"agents\": {"),
            "teams.research_team.agents: expected at least one member besides the coordinator \"rlead\"",
        ),
        (
            "a team of another pattern",
            with("/teams/research_team/pattern", Some(json!("research"))),
            ("\"pattern\": \"research\"", "\"research\""),
            "teams.research_team.pattern: expected \"swarm\" or \"coordinator\": a team is a swarm or a coordinator, found \"research\"",
        ),
        (
            "a coordinator limit on a swarm team",
            with(
                "/teams/support_swarm/limits/member_timeout_ms",
                Some(json!(5)),
            ),
            ("\"member_timeout_ms\": 5", "\"member_timeout_ms\""),
            "teams.support_swarm.limits.member_timeout_ms: \"member_timeout_ms\" is a limit of coordinator teams; this team's pattern is swarm",
        ),
        (
            "a team tool with min over max latency",
            with(
                "/teams/research_team/tools",
                Some(json!({"feed": {"latency_ms": {"min": 5, "max": 1}}})),
            ),
            ("\"feed\": {", "\"latency_ms\": {"),
            "teams.research_team.tools.feed.latency_ms: expected min ≤ max, found min 5 and max 1",
        ),
        (
            "a team tool named as the team's agent",
            with("/teams/support_swarm/tools", Some(json!({"billing": {}}))),
            ("\"tools\": {", "\"billing\""),
            "teams.support_swarm.tools.billing: \"billing\" is also an agent's name; a tool needs a name of its own",
        ),
        (
            "a team used nowhere",
            with(
                "/teams/spare",
                Some(json!({"pattern": "swarm", "entry": "a", "agents": {"a": {}}})),
            ),
            ("\"spare\": {", "\"spare\""),
            "teams.spare: team \"spare\" is not a member of any coordinator of this scenario: name it in a coordinator's agents as {\"team\": \"spare\"}, or remove it",
        ),
        (
            "a coordinator that is a team",
            with("/agents/lead", Some(json!({"team": "research_team"}))),
            ("\"lead\": {", "\"team\""),
            "agents.lead.team: \"lead\" is the coordinator, which must be an agent: expected a member other than the entry to be a team",
        ),
        (
            "the turns of an agent no team has",
            with(
                "/provider/turns/research_team~1boss",
                Some(json!({"reply": "x"})),
            ),
            ("\"research_team/boss\"", "\"research_team/boss\""),
            "provider.turns[\"research_team/boss\"]: \"research_team/boss\" is not an agent of a team in teams: expected TEAM/AGENT with TEAM one of (research_team, support_swarm) and AGENT one of its agents (team \"research_team\")",
        ),
        (
            "turns for a member that is a team",
            with("/provider/turns/research", Some(json!({"reply": "x"}))),
            ("\"support_swarm/billing\"", "\"research\""),
            "provider.turns.research: \"research\" is the team \"research_team\", whose own agents take the turns: expected them under \"research_team/AGENT\"",
        ),
        (
            "a team's entry without turns",
            with("/provider/turns/research_team~1rlead", None),
            ("\"turns\": {", "\"turns\": {"),
            "provider.turns: missing the turns of agent \"research_team/rlead\" (it gets a turn through teams.research_team.entry)",
        ),
    ];
    for (what, text, (anchor, needle), message) in cases {
        let errors = errors_of(&text);
        let (line, mut column) = place(&text, anchor, needle);
        if needle.ends_with('{') {
            // The error stands at the value, the object's brace.
            column += needle.len() - 1;
        }
        let shown = errors.to_string();
        let (path, _) = message.split_once(": ").unwrap();
        let error = errors
            .0
            .iter()
            .find(|e| e.path.to_string() == path)
            .unwrap_or_else(|| panic!("{what}: no error at {path} in\n{shown}"));
        assert_eq!(
            error.to_string(),
            format!("bad.json:{line}:{column}: {message}"),
            "{what}: all errors:\n{shown}"
        );
    }
}

/// The words that start or hold each documented nesting error.
const DOCUMENTED: &[&str] = &[
    "expected a team declared in teams (",
    "a swarm's agents are agents only, found the team ",
    " contains itself: ",
    " levels deep here (",
    " is not a member of any coordinator of this scenario",
    " is the coordinator, which must be an agent",
    "\"teams\" belongs to coordinator scenarios",
];

/// Whether a random nesting should load, worked out apart from the
/// loader: team `i` is `(swarm, members)`, a member naming team `t{index}`.
fn valid(top_swarm: bool, teams: &[(bool, Vec<usize>)], top: &[usize]) -> bool {
    let n = teams.len();
    if top_swarm && (n > 0 || !top.is_empty()) {
        return false;
    }
    let known = teams.iter().flat_map(|(_, m)| m).chain(top).all(|i| *i < n);
    let swarms_plain = teams.iter().all(|(swarm, m)| !*swarm || m.is_empty());
    if !known || !swarms_plain {
        return false;
    }
    // The longest line of teams below team `i`, itself included; `None`
    // when the team is on a cycle it reaches.
    fn height(i: usize, teams: &[(bool, Vec<usize>)], line: &mut Vec<usize>) -> Option<usize> {
        if line.contains(&i) {
            return None;
        }
        line.push(i);
        let mut most = 0;
        for j in &teams[i].1 {
            most = most.max(height(*j, teams, line)?);
        }
        line.pop();
        Some(most + 1)
    }
    let mut reached = vec![false; n];
    let mut todo: Vec<usize> = top.to_vec();
    while let Some(i) = todo.pop() {
        if !reached[i] {
            reached[i] = true;
            todo.extend(&teams[i].1);
        }
    }
    let acyclic = (0..n).all(|i| height(i, teams, &mut Vec::new()).is_some());
    acyclic
        && reached.iter().all(|r| *r)
        && top
            .iter()
            .all(|i| height(*i, teams, &mut Vec::new()).unwrap_or(0) <= 4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_nestings_load_or_give_a_documented_error(
        top_swarm in any::<bool>(),
        teams in proptest::collection::vec(
            (any::<bool>(), proptest::collection::vec(0usize..9, 0..3)),
            0..8,
        ),
        top in proptest::collection::vec(0usize..9, 0..3),
    ) {
        // Member `i` names team `t{i}`; names past the last team are unknown.
        let member = |i: usize| json!({"team": format!("t{i}")});
        let mut agents = json!({"boss": {}, "worker": {}});
        for (k, i) in top.iter().enumerate() {
            agents[format!("m{k}")] = member(*i);
        }
        let mut turns = json!({"boss": {"reply": "x"}, "worker": {"reply": "x"}});
        let mut declared = serde_json::Map::new();
        for (n, (swarm, members)) in teams.iter().enumerate() {
            let mut team_agents = json!({"boss": {}, "worker": {}});
            for (k, i) in members.iter().enumerate() {
                team_agents[format!("m{k}")] = member(*i);
            }
            let pattern = if *swarm { "swarm" } else { "coordinator" };
            declared.insert(
                format!("t{n}"),
                json!({"pattern": pattern, "entry": "boss", "agents": team_agents}),
            );
            turns[format!("t{n}/boss")] = json!({"reply": "x"});
        }
        let doc = json!({
            "name": "r",
            "pattern": if top_swarm { "swarm" } else { "coordinator" },
            "goal": "g",
            "context": {},
            "entry": "boss",
            "agents": agents,
            "teams": declared,
            "provider": {"kind": "sim", "turns": turns},
        });
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let loaded = scenario::parse(&text, "r.json");
        prop_assert_eq!(
            loaded.is_ok(),
            valid(top_swarm, &teams, &top),
            "{:?}\n{}", loaded.as_ref().err().map(ToString::to_string), text
        );
        if let Err(errors) = loaded {
            for error in &errors.0 {
                prop_assert!(error.position.is_some(), "{error}");
                prop_assert!(
                    DOCUMENTED.iter().any(|d| error.message.contains(d)),
                    "undocumented: {error}\n{text}"
                );
            }
        }
    }
}

#[test]
fn a_long_chain_of_teams_is_refused_at_its_fifth_level_without_deep_recursion() {
    let text = chain(3000);
    let errors = errors_of(&text);
    let deep: Vec<String> = errors
        .0
        .iter()
        .filter(|e| e.message.contains(" levels deep here ("))
        .map(ToString::to_string)
        .collect();
    assert_eq!(deep.len(), 1, "{errors}");
    assert!(deep[0].contains("(lead/t1/t2/t3/t4/t5)"), "{}", deep[0]);
}
