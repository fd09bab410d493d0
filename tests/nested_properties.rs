//! Random teams of teams run on the paused clock: whatever the shape (a
//! coordinator over plain members and teams, swarms and coordinators down
//! to three levels), latencies, member and node timeouts and call budget,
//! a run is the same twice, never spends more model calls than its
//! budget, counts every call once in each team above it, and each member
//! team's own stop is its member call's.

use crate::common;

use common::{run_default, scenario};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A team of the random tree.
#[derive(Clone, Debug)]
enum Shape {
    /// A swarm of `agents` agents, each handing over to the next, the last
    /// replying.
    Swarm { agents: usize },
    /// A coordinator calling its plain members and its member teams at
    /// once, then replying.
    Coordinator { plain: usize, teams: Vec<Shape> },
}

fn shape(depth: u32) -> BoxedStrategy<Shape> {
    let swarm = (2..4usize).prop_map(|agents| Shape::Swarm { agents });
    if depth == 0 {
        return swarm.boxed();
    }
    let coordinator = (1..3usize, prop::collection::vec(shape(depth - 1), 0..3))
        .prop_map(|(plain, teams)| Shape::Coordinator { plain, teams });
    prop_oneof![swarm, coordinator].boxed()
}

/// Latencies, timeouts and the budget the tree runs under.
#[derive(Clone, Debug)]
struct Knobs {
    latencies: Vec<u64>,
    member_timeout_ms: Option<u64>,
    node_timeout_ms: Option<u64>,
    max_llm_calls: u32,
}

fn knobs() -> impl Strategy<Value = Knobs> {
    (
        prop::collection::vec(50..1500u64, 64),
        prop::option::of(300..4000u64),
        prop::option::of(200..1500u64),
        2..40u32,
    )
        .prop_map(
            |(latencies, member_timeout_ms, node_timeout_ms, max_llm_calls)| Knobs {
                latencies,
                member_timeout_ms,
                node_timeout_ms,
                max_llm_calls,
            },
        )
}

/// Builds the scenario: teams `t0`, `t1`, … each used once.
struct Builder<'k> {
    knobs: &'k Knobs,
    teams: Map<String, Value>,
    turns: Map<String, Value>,
    drawn: usize,
}

impl Builder<'_> {
    fn latency(&mut self) -> u64 {
        self.drawn += 1;
        self.knobs.latencies[self.drawn % self.knobs.latencies.len()]
    }

    fn reply(&mut self, words: &str) -> Value {
        json!({"reply": words, "latency_ms": self.latency()})
    }

    /// Declares team `shape`; its name.
    fn team(&mut self, shape: &Shape) -> String {
        let name = format!("t{}", self.teams.len());
        self.teams.insert(name.clone(), Value::Null);
        let team = match shape {
            Shape::Swarm { agents } => {
                let names: Vec<String> = (0..*agents).map(|i| format!("s{i}")).collect();
                for (i, agent) in names.iter().enumerate() {
                    let turn = match names.get(i + 1) {
                        Some(next) => json!({"transfer_to": next, "latency_ms": self.latency()}),
                        None => self.reply(&format!("{name} answers")),
                    };
                    self.turns.insert(format!("{name}/{agent}"), json!([turn]));
                }
                let mut limits = json!({});
                if let Some(ms) = self.knobs.node_timeout_ms {
                    limits["node_timeout_ms"] = json!(ms);
                }
                json!({"pattern": "swarm", "entry": "s0",
                       "agents": names.iter().map(|n| (n.clone(), json!({}))).collect::<Map<_, _>>(),
                       "limits": limits})
            }
            Shape::Coordinator { plain, teams } => {
                let (agents, lead) = self.desk(&name, *plain, teams);
                let mut limits = json!({});
                if let Some(ms) = self.knobs.member_timeout_ms {
                    limits["member_timeout_ms"] = json!(ms);
                }
                json!({"pattern": "coordinator", "entry": "lead", "agents": agents,
                       "limits": limits, "_lead": lead})
            }
        };
        let mut team = team;
        if let Some(lead) = team.as_object_mut().and_then(|t| t.remove("_lead")) {
            self.turns.insert(format!("{name}/lead"), lead);
        }
        self.teams.insert(name.clone(), team);
        name
    }

    /// A coordinator `lead` over `plain` agents and `teams`: its agents
    /// and its script; members' scripts keyed under `prefix`.
    fn desk(&mut self, prefix: &str, plain: usize, teams: &[Shape]) -> (Map<String, Value>, Value) {
        let mut agents = Map::new();
        agents.insert("lead".into(), json!({}));
        let mut calls = Vec::new();
        for i in 0..plain {
            let member = format!("p{i}");
            let reply = self.reply(&format!("{member} answers"));
            let key = if prefix.is_empty() {
                member.clone()
            } else {
                format!("{prefix}/{member}")
            };
            self.turns.insert(key, json!([reply]));
            agents.insert(member.clone(), json!({}));
            calls.push(json!({"member": member, "task": "look"}));
        }
        for shape in teams {
            let team = self.team(shape);
            let member = format!("m{team}");
            agents.insert(member.clone(), json!({"team": team}));
            calls.push(json!({"member": member, "task": "look deeper"}));
        }
        let call = json!({"call_members": calls, "latency_ms": self.latency()});
        let close = self.reply("all heard");
        (agents, json!([call, close]))
    }
}

fn scenario_of(plain: usize, teams: &[Shape], knobs: &Knobs) -> Value {
    let mut builder = Builder {
        knobs,
        teams: Map::new(),
        turns: Map::new(),
        drawn: 0,
    };
    let (agents, lead) = builder.desk("", plain, teams);
    builder.turns.insert("lead".into(), lead);
    let mut doc = json!({
        "name": "random_tree", "pattern": "coordinator", "goal": "Decide.", "context": {},
        "entry": "lead", "agents": agents,
        "budget": {"max_llm_calls": knobs.max_llm_calls, "max_seconds": 600},
        "provider": {"kind": "sim", "latency_ms": 100, "turns": builder.turns}
    });
    if !builder.teams.is_empty() {
        doc["teams"] = Value::Object(builder.teams);
    }
    if let Some(ms) = knobs.member_timeout_ms {
        doc["limits"] = json!({"member_timeout_ms": ms});
    }
    doc
}

/// Every member team's record in `calls`, at any depth, with its call.
fn team_calls<'a>(calls: &'a Value, out: &mut Vec<&'a Value>) {
    for call in calls.as_array().into_iter().flatten() {
        if let Some(team) = call.get("team") {
            out.push(call);
            team_calls(&team["member_calls"], out);
        }
    }
}

fn run_once(doc: &Value) -> Value {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async { run_default(scenario(doc)).await.result.value().clone() })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_teams_of_teams_count_every_call_once_at_every_level(
        plain in 0..3usize,
        teams in prop::collection::vec(shape(2), 1..3),
        knobs in knobs(),
    ) {
        let doc = scenario_of(plain, &teams, &knobs);
        let r = run_once(&doc);
        prop_assert_eq!(&run_once(&doc), &r, "the same run twice");

        let trace = r["trace"].as_array().unwrap();
        let llm_calls = r["llm_calls"].as_u64().unwrap();
        prop_assert!(llm_calls <= u64::from(knobs.max_llm_calls), "{r:#}");
        prop_assert_eq!(llm_calls, trace.len() as u64, "one trace entry a call");

        let mut calls = Vec::new();
        team_calls(&r["member_calls"], &mut calls);
        for call in calls {
            let team = &call["team"];
            let path = team["path"].as_str().unwrap();
            let under = trace
                .iter()
                .filter(|t| t["agent"].as_str().unwrap().starts_with(&format!("{path}/")))
                .count() as u64;
            prop_assert_eq!(team["llm_calls"].as_u64().unwrap(), under, "{}", path);
            match call["status"].as_str().unwrap() {
                "done" => prop_assert_eq!(&team["stop_reason"], "success"),
                _ => prop_assert_eq!(&team["stop_reason"], &call["stop_reason"]),
            }
        }
        let stop = r["stop_reason"].as_str().unwrap();
        prop_assert!(
            ["success", "max_llm_calls"].contains(&stop),
            "a team's own stop never stops the run: {stop}"
        );
    }
}
