//! Conclave's own runs as the check of both sides of OTLP: a shipped
//! scenario of each pattern runs on the simulated model with its export
//! pointed at a `conclave watch` receiver on a loopback port, and what the
//! watch makes of the trace (its headless summary) is held against the
//! run itself, read from its own events and result: the agents in order
//! of first activity, the handoffs in order, the tool calls (agent, tool,
//! status), the model calls, the tokens and the cost.
//!
//! In process: the run on the paused clock, the exporter on its own
//! threads as `run --otlp` starts it, and the watch (receiver and loop,
//! as `conclave watch` starts them) on a runtime of its own in real time.
//! Nothing waits on the wall clock: the exporter's finish returns once
//! every span was answered, the receiver is then shut down, and the
//! watch settles what it holds when its batches end. The settle time is
//! an hour, so it never decides anything here.

use crate::common;
use conclave::bus::Event;
use conclave::engine::{LaunchOptions, ProviderChoice};
use conclave::telemetry::{Exporter, OtlpConfig};
use conclave::watch::consume::{WatchFeed, WatchOptions};
use conclave::watch::receive::ReceiveConfig;
use conclave::watch::runs::Limits;
use conclave::watch::start::{WatchSettings, start};
use conclave::watch::summary::{CostFrom, WatchSummary};
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

/// The simulated model's tokens priced, so that every run has a cost.
const PRICES: &str = r#"{"sim": {"input": 1.5, "output": 6.0}}"#;

/// What a run did, in the summary's terms.
#[derive(Debug, PartialEq)]
struct Did {
    agents: Vec<String>,
    handoffs: Vec<(String, String)>,
    /// (agent, tool, status).
    tool_calls: Vec<(Option<String>, String, String)>,
    model_calls: u64,
    input_tokens: u64,
    output_tokens: u64,
}

/// `file` run with its export sent to a watch: the watch's summary, and
/// the run's events and result.
fn watched(file: &str) -> (WatchSummary, Vec<Value>, Value) {
    let watch_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let settings = WatchSettings {
        gateway: None,
        receive: ReceiveConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            grpc: None,
            ..ReceiveConfig::default()
        },
        options: WatchOptions {
            limits: Limits {
                settle: Duration::from_secs(3600),
                ..Limits::default()
            },
            runs: Some(1),
            close_finished: true,
            ..WatchOptions::default()
        },
    };
    let mut started = watch_runtime
        .block_on(start(settings))
        .expect("the watch listens");
    let url = format!("http://{}", started.receiving.http_addr());
    let exporter = Exporter::start(
        &OtlpConfig::to(&url).unwrap(),
        conclave::patterns::trace_shapes(),
    )
    .unwrap();
    let options = LaunchOptions {
        observers: vec![exporter.observer()],
        provider: ProviderChoice {
            pricing: Some(conclave::scenario::parse_prices(PRICES, "prices").unwrap()),
            ..ProviderChoice::default()
        },
        ..LaunchOptions::default()
    };
    let run_runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let (outcome, events) = run_runtime.block_on(common::run(common::shipped(file), options));
    assert_eq!(exporter.finish(), None, "every span was sent");
    let receiving = started.receiving;
    watch_runtime.block_on(receiving.shutdown());
    let summary = watch_runtime.block_on(async {
        loop {
            match started.feed.recv().await {
                Some(WatchFeed::Finished(summary)) => break *summary,
                Some(WatchFeed::Problem(problem)) => panic!("{problem}"),
                Some(_) => {}
                None => panic!("the watch ended without finishing the run"),
            }
        }
    });
    let events = events.iter().map(json).collect();
    (
        summary,
        events,
        serde_json::to_value(&*outcome.result).unwrap(),
    )
}

fn json(event: &Event) -> Value {
    serde_json::to_value(event).unwrap()
}

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_string()
}

/// What the run's own events say it did. An agent acts when a round asks
/// for its contribution, when it takes a turn, or when the graph runs its
/// node; the orchestrator's planner and the research steps are steps of
/// the workflow, and the workers and tools are tool calls. A handoff is
/// an accepted transfer, or a member call: from the agent whose turn
/// called, to the member when its first turn starts (a member that is a
/// team: the first of that team's agents to take a turn). A tool call is a worker's or tool's call (its first
/// attempt; retries are attempts of the same call), asked for by the
/// turn or node its task names, with the outcome of its last attempt; or
/// a member call, with its outcome. A model call is a model call's first
/// attempt.
fn did(events: &[Value], result: &Value) -> Did {
    let mut did = Did {
        agents: Vec::new(),
        handoffs: Vec::new(),
        tool_calls: Vec::new(),
        model_calls: 0,
        input_tokens: result["usage"]["input_tokens"].as_u64().unwrap(),
        output_tokens: result["usage"]["output_tokens"].as_u64().unwrap(),
    };
    let mut turns: HashMap<u64, String> = HashMap::new();
    // Member calls whose member has not taken a turn yet: (caller, member).
    let mut calling: Vec<(String, String)> = Vec::new();
    // The agent a model call's label is the turn of; the graph's nodes.
    let mut asked_by: HashMap<String, String> = HashMap::new();
    // The latest call of each (task, worker), and of each member.
    let mut open: HashMap<(String, String), usize> = HashMap::new();
    let status = |ok: bool| if ok { "ok" } else { "error" }.to_string();
    for event in events {
        let acting = match event["type"].as_str().unwrap() {
            "contribution_requested" => Some(text(event, "agent")),
            "turn_started" => {
                let agent = text(event, "agent");
                turns.insert(event["turn"].as_u64().unwrap(), agent.clone());
                if let Some(at) = calling
                    .iter()
                    .position(|(_, m)| *m == agent || agent.contains(&format!("/{m}/")))
                {
                    let (caller, _) = calling.remove(at);
                    did.handoffs.push((caller, agent.clone()));
                }
                Some(agent)
            }
            "node_started" => {
                asked_by.insert(text(event, "node"), text(event, "node"));
                Some(text(event, "node"))
            }
            "call_started" if event["tool"] == "model" => {
                if let Some(agent) = event["agent"].as_str() {
                    asked_by.insert(text(event, "label"), agent.to_string());
                }
                if event["attempt"] == 1 {
                    did.model_calls += 1;
                }
                None
            }
            "handoff_accepted" => {
                did.handoffs.push((text(event, "from"), text(event, "to")));
                None
            }
            "member_call_started" => {
                let caller = turns[&event["turn"].as_u64().unwrap()].clone();
                let member = text(event, "member");
                calling.push((caller.clone(), member.clone()));
                open.insert((String::new(), member.clone()), did.tool_calls.len());
                did.tool_calls.push((Some(caller), member, String::new()));
                None
            }
            "member_call_finished" => {
                let call = open[&(String::new(), text(event, "member"))];
                did.tool_calls[call].2 = status(event["outcome"] == "ok");
                None
            }
            "attempt_started" if event["attempt"] == 1 => {
                let (task, worker) = (text(event, "task"), text(event, "worker"));
                let agent = asked_by.get(&task).cloned();
                open.insert((task, worker.clone()), did.tool_calls.len());
                did.tool_calls.push((agent, worker, String::new()));
                None
            }
            "attempt_finished" => {
                let call = open[&(text(event, "task"), text(event, "worker"))];
                did.tool_calls[call].2 = status(event["outcome"] == "ok");
                None
            }
            _ => None,
        };
        if let Some(agent) = acting
            && !did.agents.contains(&agent)
        {
            did.agents.push(agent);
        }
    }
    did
}

/// What the watch says the run did.
fn seen(summary: &WatchSummary) -> Did {
    Did {
        agents: summary.agents.clone(),
        handoffs: summary
            .handoffs
            .iter()
            .map(|h| (h.from.clone(), h.to.clone()))
            .collect(),
        tool_calls: summary
            .tool_calls
            .iter()
            .map(|c| (c.agent.clone(), c.tool.clone(), c.status.to_string()))
            .collect(),
        model_calls: summary.model_calls,
        input_tokens: summary.input_tokens,
        output_tokens: summary.output_tokens,
    }
}

/// The watch shows `file`'s run as the run itself tells it; what the run
/// did, for a test to say more of.
fn holds(file: &str) -> Did {
    let (summary, events, result) = watched(file);
    let did = did(&events, &result);
    assert_eq!(seen(&summary), did, "{file}: the watch against the run");
    assert_eq!(summary.framework.as_deref(), Some("conclave"));
    assert_eq!(summary.service.as_deref(), Some("conclave"));
    assert_eq!(summary.dropped_spans, 0);
    // The cost is the run's own, carried on the model calls' spans: the
    // watch's price table has no price for the simulated model.
    let cost = result["usage"]["cost_usd"]
        .as_f64()
        .expect("the run is priced");
    let watched = summary.cost_usd.expect("the watch shows a cost");
    assert!(
        (watched - cost).abs() < 1e-9,
        "{file}: {watched} against {cost}"
    );
    assert_eq!(summary.cost_from, Some(CostFrom::Span));
    assert_eq!(summary.unpriced_calls, 0);
    did
}

#[test]
fn a_round_tables_members_model_calls_tokens_and_cost() {
    let did = holds("checkout_v2_launch.json");
    assert_eq!(
        did.agents,
        ["demand_analyst", "finance_analyst", "risk_analyst"]
    );
    assert!(did.handoffs.is_empty() && did.tool_calls.is_empty());
}

#[test]
fn an_orchestrators_parallel_workers_with_a_retried_one() {
    let did = holds("morning_ops_report.json");
    assert!(
        did.agents.is_empty(),
        "the planner is a step, the workers tools"
    );
    let workers: Vec<&str> = did.tool_calls.iter().map(|c| c.1.as_str()).collect();
    assert_eq!(
        workers,
        ["sales_worker", "payments_worker", "inventory_worker"]
    );
}

#[test]
fn a_swarms_chain_of_handoffs_and_its_agents_tools() {
    let did = holds("support_swarm.json");
    assert_eq!(did.agents, ["triage", "billing", "refunds"]);
    assert_eq!(did.handoffs.len(), 2);
    assert_eq!(did.tool_calls.len(), 2);
}

#[test]
fn a_coordinators_parallel_member_calls_and_a_members_tool() {
    let did = holds("launch_coordinator.json");
    assert_eq!(did.handoffs.len(), 3, "one per member call");
    assert!(
        did.tool_calls
            .iter()
            .any(|c| c.0.as_deref() == Some("risk_analyst") && c.1 == "incident_feed")
    );
}

#[test]
fn a_team_of_teams_hands_to_each_teams_lead_and_its_swarm_hands_on() {
    let did = holds("nested_launch_team.json");
    for handoff in [
        ("launch", "launch/research_team/research_lead"),
        ("launch", "launch/support_swarm/triage"),
        (
            "launch/support_swarm/triage",
            "launch/support_swarm/billing",
        ),
    ] {
        let handoff = (handoff.0.to_string(), handoff.1.to_string());
        assert!(did.handoffs.contains(&handoff), "{handoff:?}");
    }
}

#[test]
fn a_research_pipelines_steps_tools_and_model_calls() {
    let did = holds("payments_incident_research.json");
    assert!(did.agents.is_empty());
    assert!(did.tool_calls.len() >= 4);
}

#[test]
fn a_graphs_nodes_in_order_with_parallel_ones_and_a_tool_node() {
    let did = holds("graph_review_loop.json");
    assert_eq!(did.agents[..3], ["plan", "research", "risks"]);
    assert_eq!(
        did.tool_calls,
        [(
            Some("publish".to_string()),
            "publish_api".to_string(),
            "ok".to_string()
        )]
    );
}

/// The commands as a user types them: `conclave watch --headless` on a
/// port of its own, and `conclave run … --otlp` to it. The watch's line
/// names the chain, the handoffs, the tool calls, the tokens and the cost
/// the run's own result does.
#[test]
fn the_commands_as_typed_show_a_swarm_as_its_result_does() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let prices = dir.path().join("prices.json");
    std::fs::write(&prices, PRICES).unwrap();
    let conclave = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
        command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
        for (name, _) in std::env::vars().filter(|(n, _)| n.starts_with("OTEL_")) {
            command.env_remove(name);
        }
        command
    };
    let mut watch = conclave(&[
        "watch",
        "--headless",
        "--runs",
        "1",
        "--listen",
        "127.0.0.1:0",
        "--no-grpc",
        "--settle-ms",
        "200",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut said = String::new();
    let mut stderr = std::io::BufReader::new(watch.stderr.take().unwrap());
    stderr.read_line(&mut said).unwrap();
    // The watch says its counts on stderr until it ends: read them all.
    let rest = std::thread::spawn(move || {
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        rest
    });
    let address = said
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split("/v1/traces").next())
        .unwrap_or_else(|| panic!("the watch says where it listens: {said}"));
    let url = format!("http://{address}");
    let run = conclave(&[
        "run",
        "scenarios/support_swarm.json",
        "--headless",
        "--pricing",
        prices.to_str().unwrap(),
        "--otlp",
        &url,
    ])
    .output()
    .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let result: Value = serde_json::from_slice(&run.stdout).unwrap();
    let watched = watch.wait_with_output().unwrap();
    let counts = rest.join().unwrap();
    assert!(watched.status.success(), "{counts}");
    // At the end, the receiver's counts in all and the late spans.
    let total = counts.lines().last().unwrap_or_default();
    assert!(
        total.starts_with("conclave watch: in all: ") && total.contains(" late spans"),
        "{counts}"
    );
    let line: Value = serde_json::from_slice(&watched.stdout).unwrap();
    assert_eq!(line["agents"], result["chain"]);
    let pairs = |list: &Value| -> Vec<(Value, Value)> {
        let list = list.as_array().unwrap();
        list.iter()
            .map(|h| (h["from"].clone(), h["to"].clone()))
            .collect()
    };
    assert_eq!(pairs(&line["handoffs"]), pairs(&result["handoffs"]));
    let used: Vec<(Value, Value, &str)> = result["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|turn| turn["outcome"] == "tool_call")
        .map(|turn| {
            let status = if turn["ok"] == true { "ok" } else { "error" };
            (turn["agent"].clone(), turn["target"].clone(), status)
        })
        .collect();
    let called: Vec<(Value, Value, &str)> = line["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["agent"].clone(),
                c["tool"].clone(),
                c["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(called, used);
    assert_eq!(line["model_calls"], result["llm_calls"]);
    for tokens in ["input_tokens", "output_tokens"] {
        assert_eq!(line[tokens], result["usage"][tokens]);
    }
    let cost = result["usage"]["cost_usd"].as_f64().unwrap();
    assert!((line["cost_usd"].as_f64().unwrap() - cost).abs() < 1e-9);
    assert_eq!(line["cost_from"], "span");
}
