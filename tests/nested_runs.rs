//! Nested teams at run time (issue 34), on the paused clock: a member
//! team runs to its own stop within its own limits and its caller's
//! deadline; its stop is the member call's error, not the run's; its
//! model calls count against the run's budgets; its agents are named by
//! their path in events, the trace and the usage; flags gate a team's
//! agent as `TEAM/AGENT`; and runs are the same for the same seed.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::cli::{conclave, result};
use common::files::edit;
use common::loopback::{Loopback, Reply as Answer};
use common::real::{Sandbox, stderr, toolbox};
use common::streaming::{self, Reply, Streamed};
use common::{run, run_default, scenario, shipped};
use conclave::bus::{BudgetKind, CallOutcome, Event, EventKind};
use conclave::engine::{LaunchOptions, ProviderChoice};
use conclave::patterns::events::TeamEvent;
use conclave::scenario::ProviderKind;
use serde_json::{Value, json};
use std::time::Duration;

const SHIPPED: &str = "nested_launch_team.json";

/// The shipped scenario as a document, to change one thing in.
fn shipped_doc() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/nested_launch_team.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn changed(pointer: &str, value: Value) -> Value {
    serde_json::from_str(&edit(shipped_doc(), pointer, Some(value))).unwrap()
}

/// The member call of `member` in the top coordinator's result.
fn member<'a>(result: &'a Value, member: &str) -> &'a Value {
    result["member_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["member"] == member)
        .unwrap_or_else(|| panic!("no member call of {member} in {result:#}"))
}

fn turn_agents(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted { agent, .. })) => {
                Some(agent.clone())
            }
            _ => None,
        })
        .collect()
}

/// The model calls the top coordinator's own turns and plain members made:
/// the trace's entries of agents without a path.
fn own_calls(result: &Value) -> u64 {
    result["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| !t["agent"].as_str().unwrap().contains('/'))
        .count() as u64
}

#[tokio::test(start_paused = true)]
async fn the_shipped_team_of_teams_runs_each_member_team_to_its_own_stop() {
    let (outcome, events) = run(shipped(SHIPPED), LaunchOptions::default()).await;
    let r = Value::clone(&*outcome.result);
    assert_eq!(r["stop_reason"], "success", "{r:#}");
    assert!(
        r["answer"]
            .as_str()
            .unwrap()
            .starts_with("Launch on Tuesday")
    );

    let research = member(&r, "research_team");
    assert_eq!(research["status"], "done");
    assert_eq!(research["team"]["pattern"], "coordinator");
    assert_eq!(research["team"]["path"], "launch/research_team");
    assert_eq!(research["team"]["stop_reason"], "success");
    let inner: Vec<&str> = research["team"]["member_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["member"].as_str().unwrap())
        .collect();
    assert_eq!(inner, ["analyst", "risk_analyst"]);
    assert_eq!(
        research["reply"],
        research["team"]["history"][6]["output"]["reply"]
    );

    let support = member(&r, "support_swarm");
    assert_eq!(support["team"]["pattern"], "swarm");
    assert_eq!(support["team"]["chain"], json!(["triage", "billing"]));
    assert_eq!(support["team"]["final_agent"], "billing");
    assert!(member(&r, "legal_reviewer").get("team").is_none());

    // Every call counts once in the run's, whatever level made it.
    let teams = research["team"]["llm_calls"].as_u64().unwrap()
        + support["team"]["llm_calls"].as_u64().unwrap();
    assert_eq!(r["llm_calls"].as_u64().unwrap(), own_calls(&r) + teams);
    assert_eq!(r["llm_calls"], 10);

    let agents = turn_agents(&events);
    for path in [
        "launch",
        "legal_reviewer",
        "launch/research_team/research_lead",
        "launch/research_team/analyst",
        "launch/research_team/risk_analyst",
        "launch/support_swarm/triage",
        "launch/support_swarm/billing",
    ] {
        assert!(agents.iter().any(|a| a == path), "{path} in {agents:?}");
        assert!(
            r["usage"]["by_agent"].get(path).is_some(),
            "usage of {path}: {:#}",
            r["usage"]
        );
    }
    let announced: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallStarted {
                member,
                team: Some(team),
                ..
            })) => Some((member.clone(), team.path.clone(), team.pattern.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        announced,
        [
            (
                "research_team".to_string(),
                "launch/research_team".to_string(),
                "coordinator".to_string()
            ),
            (
                "support_swarm".to_string(),
                "launch/support_swarm".to_string(),
                "swarm".to_string()
            ),
        ]
    );
    assert!(events.iter().any(|e| matches!(&e.kind,
        EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted { from, to, .. }))
            if from == "launch/support_swarm/triage" && to == "launch/support_swarm/billing")));
    // The team's own tool, known to the gateway by the team's name.
    assert!(events.iter().any(|e| matches!(&e.kind,
        EventKind::Pattern(PatternEvent::Team(TeamEvent::ToolUsed { agent, tool, ok: true, .. }))
            if agent == "launch/research_team/risk_analyst"
                && tool == "research_team/incident_feed")));
}

#[tokio::test(start_paused = true)]
async fn a_member_teams_node_timeout_stops_it_and_not_the_run() {
    let mut doc = changed("/teams/support_swarm/limits/node_timeout_ms", json!(200));
    doc["provider"]["turns"]["support_swarm/billing"] =
        json!([{"reply": "late", "latency_ms": 900}]);
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = Value::clone(&*outcome.result);
    assert_eq!(r["stop_reason"], "success", "the run goes on: {r:#}");
    assert!(r["answer"].is_string());
    let support = member(&r, "support_swarm");
    assert_eq!(support["status"], "failed");
    assert_eq!(
        support["stop_reason"],
        "node_timeout:launch/support_swarm/billing"
    );
    assert_eq!(support["team"]["stop_reason"], support["stop_reason"]);
    assert_eq!(member(&r, "research_team")["status"], "done");
    // The coordinator was told the member's error and answered after it.
    let told = r["history"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|h| h.get("members"))
        .unwrap();
    assert_eq!(
        told[1]["error"],
        "node_timeout:launch/support_swarm/billing"
    );
    let finished = events.iter().find_map(|e| match &e.kind {
        EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
            member,
            outcome,
            ..
        })) if member == "support_swarm" => Some(*outcome),
        _ => None,
    });
    assert_eq!(finished, Some(CallOutcome::Error));
}

#[tokio::test(start_paused = true)]
async fn the_callers_member_timeout_cuts_a_member_team_where_it_is() {
    // The research team needs far more than the 1.5 s its caller gives it.
    let mut doc = changed("/limits/member_timeout_ms", json!(1500));
    doc["provider"]["turns"]["research_team/analyst"] =
        json!([{"reply": "slow", "latency_ms": 5000}]);
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = Value::clone(&*outcome.result);
    assert_eq!(r["stop_reason"], "success", "{r:#}");
    let research = member(&r, "research_team");
    assert_eq!(research["stop_reason"], "member_timeout:research_team");
    assert_eq!(research["latency_ms"], 1500);
    assert_eq!(
        research["team"]["stop_reason"],
        "member_timeout:research_team"
    );
    // No turn of the team starts after its caller's deadline.
    let cut_at = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                member,
                ..
            })) if member == "research_team" => Some(e.t_ms),
            _ => None,
        })
        .unwrap();
    let late: Vec<_> = events
        .iter()
        .filter(|e| e.t_ms >= cut_at)
        .filter(|e| {
            matches!(&e.kind,
            EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted { agent, .. }))
                if agent.starts_with("launch/research_team/"))
        })
        .collect();
    assert!(late.is_empty(), "{late:?}");
}

#[tokio::test(start_paused = true)]
async fn a_model_that_fails_inside_a_team_is_the_members_error() {
    for (fault, reason) in [("empty", "llm_empty"), ("timeout", "llm_timeout")] {
        let mut doc = shipped_doc();
        doc["provider"]["turns"]["support_swarm/triage"] = json!([{"$fault": fault}]);
        let r = run_default(scenario(&doc)).await.result.value().clone();
        assert_eq!(r["stop_reason"], "success", "{fault}");
        assert_eq!(member(&r, "support_swarm")["stop_reason"], reason);
    }
}

#[tokio::test(start_paused = true)]
async fn budgets_count_every_level_and_stop_the_whole_run() {
    let doc = changed("/budget/max_llm_calls", json!(6));
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = Value::clone(&*outcome.result);
    assert_eq!(r["stop_reason"], "max_llm_calls", "{r:#}");
    assert_eq!(r["llm_calls"], 6);
    let teams: u64 = ["research_team", "support_swarm"]
        .iter()
        .map(|m| member(&r, m)["team"]["llm_calls"].as_u64().unwrap())
        .sum();
    assert_eq!(own_calls(&r) + teams, 6);
    let used: Vec<u64> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::BudgetConsumed {
                budget: BudgetKind::LlmCalls,
                used,
                limit: 6,
            } => Some(*used),
            _ => None,
        })
        .collect();
    assert_eq!(used, [1, 2, 3, 4, 5, 6], "one count over every level");

    // The run's time too: a member team's slow turns spend it.
    let mut slow = changed("/budget/max_seconds", json!(2));
    slow["provider"]["turns"]["support_swarm/billing"] =
        json!([{"reply": "late", "latency_ms": 3000}]);
    slow["provider"]["turns"]["support_swarm/triage"] = json!([
        {"transfer_to": "billing", "latency_ms": 2500}
    ]);
    let r = run_default(scenario(&slow)).await.result.value().clone();
    assert_eq!(r["stop_reason"], "max_seconds", "{r:#}");
}

/// The shipped scenario with a team inside the research team: member
/// `deep` is team `deep_team`, a swarm.
fn two_levels() -> Value {
    let mut doc = shipped_doc();
    doc["teams"]["research_team"]["agents"]["deep"] =
        json!({"team": "deep_team", "description": "a second look"});
    doc["teams"]["deep_team"] = json!({
        "pattern": "swarm", "entry": "a",
        "agents": {"a": {}, "b": {}}
    });
    let turns = &mut doc["provider"]["turns"];
    turns["research_team/research_lead"][0]["call_members"]
        .as_array_mut()
        .unwrap()
        .push(json!({"member": "deep", "task": "Look again"}));
    turns["deep_team/a"] = json!([{"transfer_to": "b"}]);
    turns["deep_team/b"] = json!([{"reply": "Looked again: nothing new."}]);
    doc
}

#[tokio::test(start_paused = true)]
async fn a_team_in_a_team_names_its_agents_by_their_whole_path() {
    let (outcome, events) = run(scenario(&two_levels()), LaunchOptions::default()).await;
    let r = Value::clone(&*outcome.result);
    assert_eq!(r["stop_reason"], "success", "{r:#}");
    let research = &member(&r, "research_team")["team"];
    let deep = research["member_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["member"] == "deep")
        .unwrap();
    assert_eq!(deep["reply"], "Looked again: nothing new.");
    assert_eq!(deep["team"]["name"], "deep_team");
    assert_eq!(deep["team"]["path"], "launch/research_team/deep");
    // Nested calls count in each team above them.
    assert_eq!(deep["team"]["llm_calls"], 2);
    assert_eq!(research["llm_calls"], 7);
    let agents = turn_agents(&events);
    assert!(agents.contains(&"launch/research_team/deep/b".to_string()));
    assert!(r["usage"]["by_agent"]["launch/research_team/deep/a"].is_object());
}

#[tokio::test(start_paused = true)]
async fn a_flag_gates_a_teams_agent_as_team_slash_agent() {
    let mut doc = two_levels();
    doc["flags"] = json!({
        "risk_review": {"default": false, "agents": ["research_team/risk_analyst"]},
        "second_look": {"default": true, "agents": ["deep_team/b"]}
    });
    let r = run(
        scenario(&doc),
        LaunchOptions {
            flags: vec![("second_look".into(), false)],
            ..LaunchOptions::default()
        },
    )
    .await
    .0
    .result
    .value()
    .clone();
    assert_eq!(r["stop_reason"], "success", "{r:#}");
    let research = &member(&r, "research_team")["team"];
    let calls = research["member_calls"].as_array().unwrap();
    assert_eq!(
        calls[1]["stop_reason"],
        "agent_denied:launch/research_team/risk_analyst"
    );
    // b is outside the allowlist: a's transfer to it is refused, and a
    // goes on until its script ends the team.
    let deep = &calls[2]["team"];
    assert_eq!(deep["handoffs"][0]["reason"], "agent_denied:b", "{deep:#}");
}

#[test]
fn a_flag_naming_no_agent_of_any_team_is_refused_at_its_place() {
    let mut doc = shipped_doc();
    doc["flags"] = json!({"f": {"default": true, "agents": ["research_team/nobody"]}});
    let errors = common::files::errors_of(&doc.to_string());
    let shown = errors.to_string();
    assert!(
        shown.contains("flags.f.agents[0]: expected an agent declared in agents")
            && shown.contains("or TEAM/AGENT for an agent of a team in teams"),
        "{shown}"
    );
}

#[test]
fn nested_runs_are_the_same_for_the_same_seed() {
    let path = "scenarios/nested_launch_team.json";
    let once = |seed: &str| {
        let output = conclave(&["run", path, "--headless", "--seed", seed]);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        output.stdout
    };
    let (a, b) = (once("5"), once("5"));
    assert_eq!(a, b, "the same seed, the same bytes");
    let other: Value = serde_json::from_slice(&once("6")).unwrap();
    let first: Value = serde_json::from_slice(&a).unwrap();
    assert_eq!(other["answer"], first["answer"]);
    assert_ne!(
        other["member_calls"], first["member_calls"],
        "another seed draws other latencies"
    );
}

#[test]
fn a_nested_run_replays_serves_forks_compares_and_sweeps() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).display().to_string();
    let (recording, forked) = (at("run.jsonl"), at("fork.jsonl"));
    let path = "scenarios/nested_launch_team.json";
    let ran = conclave(&["run", path, "--headless", "--record", &recording]);
    assert_eq!(ran.status.code(), Some(0), "{ran:?}");
    let recorded = result(&ran);

    let replayed = conclave(&["replay", &recording, "--headless"]);
    assert_eq!(result(&replayed), recorded, "the replay's result");
    let served = conclave(&["run", path, "--headless", "--cassette", &recording]);
    assert_eq!(served.stdout, ran.stdout, "served byte for byte");
    assert!(String::from_utf8_lossy(&served.stderr).contains("served 11 calls"));

    // A fork at the research lead's first turn, with the risk analyst
    // gated off: the turn before it is served, the rest made live.
    let fork = conclave(&[
        "fork",
        &recording,
        "--at",
        "turn 2",
        "--flag",
        "risk_review=off",
        "--headless",
        "--record",
        &forked,
    ]);
    assert_eq!(fork.status.code(), Some(0), "{fork:?}");
    let fork = result(&fork);
    let fresh = result(&conclave(&[
        "run",
        path,
        "--headless",
        "--flag",
        "risk_review=off",
    ]));
    assert_eq!(fork["member_calls"], fresh["member_calls"]);
    assert_eq!(fork["usage"]["served"]["calls"], 1);
    let research = &member(&fork, "research_team")["team"];
    assert_eq!(
        research["member_calls"][1]["stop_reason"],
        "agent_denied:launch/research_team/risk_analyst"
    );

    let compared = result(&conclave(&["compare", &recording, &forked, "--headless"]));
    let b = compared["first_divergence"]["b"]["description"]
        .as_str()
        .unwrap();
    assert!(
        b.starts_with("launch/research_team/risk_analyst: agent_denied"),
        "{compared:#}"
    );

    let sweep = result(&conclave(&[
        "sweep",
        path,
        "--seeds",
        "1..3",
        "--flag",
        "risk_review=on,off",
        "--headless",
    ]));
    for combination in sweep["combinations"].as_array().unwrap() {
        assert_eq!(
            combination["stop_reasons"],
            json!({"success": 3}),
            "{sweep:#}"
        );
    }
    let calls: Vec<&Value> = sweep["combinations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["model_calls"]["total"])
        .collect();
    assert_eq!(calls, [&json!(30), &json!(24)], "nested calls counted");
}

/// The shipped scenario with the research team's incident feed failing
/// its first two calls, its breaker opening after two failures, and the
/// risk analyst asking it three times.
fn failing_feed(allow_partial: bool) -> Value {
    let mut doc = shipped_doc();
    doc["teams"]["research_team"]["tools"]["incident_feed"]["fail"] = json!([1, 2]);
    doc["resilience"] = json!({
        "retries": {"max_attempts": 1},
        "tools": {"research_team/incident_feed": {
            "circuit_breaker": {"fail_threshold": 2, "open_for_ms": 60000}
        }},
        "safe_mode": {"enabled": true, "allow_partial": allow_partial}
    });
    let ask = json!({"call": "incident_feed", "args": {"region": "US"}});
    doc["provider"]["turns"]["research_team/risk_analyst"] =
        json!([ask, ask, ask, {"reply": "No feed today."}]);
    doc
}

#[tokio::test(start_paused = true)]
async fn safe_mode_inside_a_team_acts_as_at_the_top() {
    // Without partial results, the open breaker stops the whole run.
    let r = run_default(scenario(&failing_feed(false))).await.result;
    assert_eq!(r["status"], "stopped", "{:#}", *r);
    assert_eq!(r["stop_reason"], "circuit_open:research_team/incident_feed");
    assert!(r.get("partial").is_none());

    // With them, the team goes on without the feed and the run is partial.
    let r = run_default(scenario(&failing_feed(true))).await.result;
    assert_eq!(r["stop_reason"], "success", "{:#}", *r);
    assert_eq!(r["partial"], true);
    assert_eq!(r["degraded"], json!(["research_team/incident_feed"]));
    assert_eq!(member(&r, "research_team")["status"], "done");
}

/// What a loopback model answers each agent of the shipped team of teams,
/// read from the request as a real endpoint gets it: the agent's own name,
/// its task as the goal, and what it has heard back.
fn answer_as_a_model(body: &Value) -> Value {
    let system = body["messages"][0]["content"].as_str().unwrap();
    let payload: Value =
        serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
    let agent = payload["agent"].as_str().unwrap();
    assert!(
        system.contains(&format!("You are {agent}")),
        "each agent is told its own name: {system}"
    );
    let heard = payload["context"]["recent"]
        .as_array()
        .is_some_and(|recent| recent.iter().any(|h| h.get("members").is_some()));
    match (agent, heard) {
        ("launch", false) => json!({"call_members": [
            {"member": "research_team", "task": "Payment risk"},
            {"member": "support_swarm", "task": "Support load"}]}),
        ("launch", true) => json!({"reply": "Launch with a ramp."}),
        ("research_lead", false) => {
            assert_eq!(payload["goal"], "Payment risk", "a team's goal is its task");
            json!({"call_members": [{"member": "analyst", "task": "Conversion"}]})
        }
        ("research_lead", true) => json!({"reply": "Low risk."}),
        ("triage", _) => json!({"transfer_to": "billing"}),
        (_, _) => json!({"reply": format!("{agent} says fine")}),
    }
}

#[tokio::test(start_paused = true)]
async fn a_team_of_teams_streams_from_an_endpoint_as_a_run_at_the_top_does() {
    let (base_url, seen) = streaming::serve(|body, _| {
        let text = answer_as_a_model(body).to_string();
        Reply::Stream(Streamed::new(&text, 4, Duration::from_millis(50)))
    })
    .await;
    let options = LaunchOptions {
        provider: ProviderChoice {
            kind: Some(ProviderKind::Openai),
            base_url: Some(base_url),
            ..ProviderChoice::default()
        },
        ..LaunchOptions::default()
    };
    let (outcome, events) = run(shipped(SHIPPED), options).await;
    let r = Value::clone(&outcome.result);
    assert_eq!(r["stop_reason"], "success", "{r:#} {:?}", outcome.error);
    assert_eq!(r["answer"], "Launch with a ramp.");
    assert_eq!(member(&r, "support_swarm")["reply"], "billing says fine");
    assert_eq!(seen.lock().unwrap().len(), 7, "two levels, seven turns");
    // Each nested agent's answer came as a stream, labelled by its path.
    let agent_of = |call: u64| {
        events.iter().find_map(|e| match &e.kind {
            EventKind::CallStarted { call: c, agent, .. } if *c == call => agent.clone(),
            _ => None,
        })
    };
    let streamed: std::collections::BTreeSet<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallDelta { call, .. } => agent_of(*call),
            _ => None,
        })
        .collect();
    for agent in [
        "launch/research_team/analyst",
        "launch/support_swarm/billing",
    ] {
        assert!(streamed.contains(agent), "{agent} streamed: {streamed:?}");
    }
}

#[test]
fn a_teams_program_runs_only_when_allowed() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("ran");
    let mut doc = shipped_doc();
    doc["teams"]["research_team"]["tools"]["incident_feed"] = json!({
        "description": "Open payment incidents, from a program",
        "command": {"argv": toolbox(&["echo", "--touch", marker.to_str().unwrap()])}
    });
    let path = sandbox.write("nested.json", &doc);
    let path = path.to_str().unwrap();

    let refused = sandbox.run(&["run", path, "--headless"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let err = stderr(&refused);
    assert!(
        err.contains("nested.json:")
            && err.contains("teams.research_team.tools.incident_feed.command"),
        "placed in the file: {err}"
    );
    assert!(!marker.exists(), "the team's program never started");

    let allowed = sandbox.run(&["run", path, "--headless", "--allow-exec"]);
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
    assert!(marker.exists(), "the team's program ran");
    let r = result(&allowed);
    let feed = &member(&r, "research_team")["team"]["history"][3];
    assert_eq!(feed["tool"], "incident_feed", "{feed:#}");
    assert!(feed["observation"].get("error").is_none(), "{feed:#}");
}

#[tokio::test(start_paused = true)]
async fn one_team_called_twice_in_a_turn_runs_twice_under_paths_of_its_own() {
    let mut doc = shipped_doc();
    doc["provider"]["turns"]["launch"][0] = json!({"call_members": [
        {"member": "support_swarm", "task": "Refund load"},
        {"member": "support_swarm", "task": "Chargeback load"}
    ]});
    let (outcome, events) = run(scenario(&doc), LaunchOptions::default()).await;
    let r = Value::clone(&outcome.result);
    assert_eq!(r["stop_reason"], "success", "{r:#}");
    let paths: Vec<&Value> = r["member_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["team"]["path"])
        .collect();
    assert_eq!(
        paths,
        [
            &json!("launch/support_swarm"),
            &json!("launch/support_swarm#2")
        ]
    );
    // Each call's agents are told apart in the events.
    let agents = turn_agents(&events);
    for path in [
        "launch/support_swarm/billing",
        "launch/support_swarm#2/billing",
    ] {
        assert_eq!(
            agents.iter().filter(|a| *a == path).count(),
            1,
            "{agents:?}"
        );
    }
}

/// A team's HTTP tool with a secret header, its server echoing the
/// header back in every answer: the server gets the secret, and nothing
/// Conclave writes (the result, the recording, stderr) holds it.
#[test]
fn a_teams_secret_header_reaches_its_server_and_nothing_else() {
    let server = Loopback::serve(|request, _| {
        let echoed = request.header("authorization").unwrap_or_default();
        Answer::json(200, &json!({"open_incidents": 0, "seen": echoed}))
    });
    let sandbox = Sandbox::new();
    let mut doc = shipped_doc();
    doc["teams"]["research_team"]["tools"]["incident_feed"] = json!({
        "description": "Open payment incidents",
        "http": {"url": format!("{}/incidents", server.base_url), "method": "POST",
                 "secret_headers": {"Authorization": "env:FEED_TOKEN"}}
    });
    let path = sandbox.write("nested.json", &doc);
    let out = sandbox.run_with(
        &[
            "run",
            path.to_str().unwrap(),
            "--headless",
            "--record",
            "run.jsonl",
        ],
        &[("FEED_TOKEN", "Bearer n3sted-feed-token")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        server.requests()[0].header("authorization").as_deref(),
        Some("Bearer n3sted-feed-token")
    );
    let r = result(&out);
    let feed = &member(&r, "research_team")["team"]["history"][3];
    assert_eq!(feed["tool"], "incident_feed", "{feed:#}");
    assert_eq!(
        feed["observation"]["result"]["seen"], "[redacted]",
        "the echo came back, masked: {feed:#}"
    );
    let written = std::fs::read_to_string(sandbox.path("run.jsonl")).unwrap();
    for (what, text) in [
        ("stdout", String::from_utf8_lossy(&out.stdout).into_owned()),
        ("stderr", stderr(&out)),
        ("the recording", written),
    ] {
        assert!(!text.contains("n3sted-feed-token"), "the secret in {what}");
    }
}

/// The shipped team of teams against a loopback model that answers every
/// agent the same in both runs, but some agents slowly and others fast
/// (in the second run the other way round). The research team and the
/// support swarm each take their second turn while the other is still
/// answering its first.
async fn paced_run(slow: &'static [&'static str]) -> Value {
    let (base_url, _) = streaming::serve(move |body, _| {
        let text = answer_as_a_model(body).to_string();
        let payload: Value =
            serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
        let agent = payload["agent"].as_str().unwrap();
        let every = if slow.contains(&agent) { 700 } else { 20 };
        Reply::Stream(Streamed::new(&text, 4, Duration::from_millis(every)))
    })
    .await;
    let options = LaunchOptions {
        provider: ProviderChoice {
            kind: Some(ProviderKind::Openai),
            base_url: Some(base_url),
            ..ProviderChoice::default()
        },
        ..LaunchOptions::default()
    };
    let (outcome, _) = run(shipped(SHIPPED), options).await;
    let r = Value::clone(&outcome.result);
    assert_eq!(r["stop_reason"], "success", "{r:#} {:?}", outcome.error);
    r
}

#[tokio::test(start_paused = true)]
async fn an_endpoint_slow_for_other_agents_gives_the_same_turn_numbers_and_result() {
    let research_slow = paced_run(&["research_lead", "analyst"]).await;
    let support_slow = paced_run(&["triage", "billing"]).await;
    let times = crate::member_calls::times;
    assert_ne!(
        times(&research_slow),
        times(&support_slow),
        "the two runs were timed apart"
    );
    let turns = crate::member_calls::numbered_turns;
    assert_eq!(turns(&research_slow), turns(&support_slow));
    let mut numbers: Vec<u64> = turns(&research_slow).iter().map(|t| t.0).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=7).collect::<Vec<_>>(), "{research_slow:#}");
    let without_times = crate::member_calls::without_times;
    assert_eq!(without_times(&research_slow), without_times(&support_slow));
}
