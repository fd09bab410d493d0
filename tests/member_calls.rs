//! A coordinator's member calls, nested teams' among them, give the same
//! result however the run is watched: stepped gate by gate or let run,
//! served from its own recording, or answered by an endpoint that is
//! faster for some members in one run and for others in the next.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::cli::{conclave, result};
use conclave::bus::{Event, EventKind};
use conclave::compare::{self, Side};
use conclave::engine::LaunchOptions;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The shipped scenarios whose coordinators call members side by side.
const COORDINATORS: [&str; 2] = ["launch_coordinator.json", "nested_launch_team.json"];

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn numbered(events: Vec<Event>, run: u32) -> Vec<Arc<Event>> {
    events
        .into_iter()
        .map(|mut e| {
            e.run = run;
            Arc::new(e)
        })
        .collect()
}

/// `file` run to its end, as run `run`: its result and events.
async fn let_run(file: &str, run: u32) -> (Value, Vec<Arc<Event>>) {
    let (outcome, events) = common::run(common::shipped(file), LaunchOptions::default()).await;
    (outcome.result.value().clone(), numbered(events, run))
}

/// `file` paused from the start and stepped one gate at a time, a minute
/// of waiting between steps (as a person takes it), until it ends.
async fn stepped(file: &str, run: u32) -> (Value, Vec<Arc<Event>>) {
    let (handle, mut sub) = common::launch(
        common::shipped(file),
        LaunchOptions {
            start_paused: true,
            ..LaunchOptions::default()
        },
    );
    let controller = handle.controller.clone();
    let mut steps = 0;
    while !handle.is_finished() {
        assert!(steps < 200, "{file}: still running after {steps} steps");
        let _ = controller.step();
        steps += 1;
        tokio::time::sleep(Duration::from_secs(60)).await;
    }
    let outcome = handle.finish().await.unwrap();
    let events = common::drain(&mut sub);
    let stepped = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Stepped { .. }))
        .count();
    assert!(stepped > 2, "{file}: the run was stepped ({stepped} steps)");
    (outcome.result.value().clone(), numbered(events, run))
}

#[tokio::test(start_paused = true)]
async fn a_stepped_coordinator_run_equals_the_same_run_unstepped() {
    for file in COORDINATORS {
        let (stepped_result, stepped) = stepped(file, 1).await;
        let (plain_result, plain) = let_run(file, 2).await;
        let comparison = compare::compare(
            Side::new("a", &stepped).unwrap(),
            Side::new("b", &plain).unwrap(),
            conclave::patterns::compare_rules,
        );
        let doc = serde_json::to_value(&comparison).unwrap();
        assert_eq!(doc["identical"], true, "{file}: {doc:#}");
        assert_eq!(doc["differences"], serde_json::json!([]), "{file}: {doc:#}");
        assert_eq!(
            stepped_result, plain_result,
            "{file}: stepping changed what the run computed"
        );
    }
}

/// A coordinator that asks `members` plain members and two member teams
/// (a coordinator over two analysts and a swarm) at once, each call taking
/// a few milliseconds.
fn many_members(members: usize) -> Value {
    let mut agents = serde_json::Map::new();
    let mut turns = serde_json::Map::new();
    let mut calls = Vec::new();
    agents.insert("lead".into(), json!({"description": "Asks everyone"}));
    for i in 0..members {
        agents.insert(format!("m{i}"), json!({}));
        turns.insert(format!("m{i}"), json!([{"reply": format!("m{i} agrees")}]));
        calls.push(json!({"member": format!("m{i}"), "task": format!("part {i}")}));
    }
    agents.insert("crew".into(), json!({"team": "crew"}));
    agents.insert("desk".into(), json!({"team": "desk"}));
    calls.push(json!({"member": "crew", "task": "research"}));
    calls.push(json!({"member": "desk", "task": "support"}));
    turns.insert(
        "lead".into(),
        json!([{"call_members": calls}, {"reply": "All agree."}]),
    );
    turns.insert(
        "crew/head".into(),
        json!([{"call_members": [{"member": "a", "task": "demand"}, {"member": "b", "task": "risk"}]},
               {"reply": "Demand up, risk low."}]),
    );
    turns.insert("crew/a".into(), json!([{"reply": "Demand up."}]));
    turns.insert("crew/b".into(), json!([{"reply": "Risk low."}]));
    turns.insert(
        "desk/triage".into(),
        json!([{"transfer_to": "billing", "message": "refunds"}]),
    );
    turns.insert(
        "desk/billing".into(),
        json!([{"reply": "A few more refunds."}]),
    );
    json!({
        "name": "many_members", "pattern": "coordinator", "goal": "Agree.", "seed": 5,
        "context": {}, "entry": "lead", "agents": agents,
        "teams": {
            "crew": {"pattern": "coordinator", "entry": "head",
                     "agents": {"head": {}, "a": {}, "b": {}}},
            "desk": {"pattern": "swarm", "entry": "triage",
                     "agents": {"triage": {}, "billing": {}}}
        },
        "budget": {"max_llm_calls": members + 20, "max_seconds": 600},
        "provider": {"kind": "sim", "latency_ms": {"min": 1, "max": 4}, "turns": turns}
    })
}

#[test]
fn a_cassette_of_a_coordinator_run_on_the_real_clock_gives_its_result_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("many_members.json");
    std::fs::write(&scenario, many_members(150).to_string()).unwrap();
    let recording = dir.path().join("run.jsonl");
    let (scenario, recording) = (scenario.to_str().unwrap(), recording.to_str().unwrap());
    let live = conclave(&[
        "run",
        scenario,
        "--headless",
        "--clock",
        "real",
        "--record",
        recording,
    ]);
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    let served = conclave(&["run", scenario, "--headless", "--cassette", recording]);
    assert_eq!(served.status.code(), Some(0), "{}", stderr(&served));
    let (live, served) = (result(&live), result(&served));
    assert_eq!(live["member_calls"].as_array().unwrap().len(), 152);
    let apart: Vec<String> = live["member_calls"]
        .as_array()
        .unwrap()
        .iter()
        .zip(served["member_calls"].as_array().unwrap())
        .filter(|(l, s)| l != s)
        .map(|(l, s)| format!("{} {} ≠ {}", l["member"], l["latency_ms"], s["latency_ms"]))
        .collect();
    assert!(apart.is_empty(), "served ≠ recorded: {apart:?}");
    assert_eq!(served, live, "the served result is the recorded one");
}

/// A coordinator whose first turn asks for `calls` calls of four members,
/// under a budget of `max_llm_calls`.
fn fan_out(calls: usize, max_llm_calls: usize) -> Arc<conclave::scenario::Scenario> {
    let members = ["a0", "a1", "a2", "a3"];
    let asked: Vec<Value> = (0..calls)
        .map(|i| json!({"member": members[i % 4], "task": format!("part {i}")}))
        .collect();
    let mut turns = json!({"lead": [{"call_members": asked}, {"reply": "Done."}]});
    let mut agents = json!({"lead": {}});
    for member in members {
        turns[member] = json!([{"reply": format!("{member} is done.")}]);
        agents[member] = json!({});
    }
    Arc::new(
        serde_json::from_value(json!({
            "name": "fan_out", "pattern": "coordinator", "goal": "Report.", "seed": 3,
            "context": {}, "entry": "lead", "agents": agents,
            "budget": {"max_llm_calls": max_llm_calls, "max_seconds": 600},
            "provider": {"kind": "sim", "latency_ms": {"min": 1, "max": 50}, "turns": turns}
        }))
        .unwrap(),
    )
}

#[tokio::test(start_paused = true)]
async fn a_turn_asking_for_more_member_calls_than_the_budget_stops_without_starting_them_all() {
    let (outcome, events) = common::run(fan_out(20_000, 6), LaunchOptions::default()).await;
    assert_eq!(outcome.result.value()["stop_reason"], "max_llm_calls");
    let started = events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Pattern(PatternEvent::Team(
                    conclave::patterns::events::TeamEvent::MemberCallStarted { .. }
                ))
            )
        })
        .count();
    let recorded = outcome.result.value()["member_calls"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(recorded, started, "every call started is in the result");
    assert!(
        started <= 256,
        "calls past the budget are not started: {started} of 20,000 were"
    );
}

#[tokio::test(start_paused = true)]
async fn a_turn_asking_for_more_calls_than_run_at_once_answers_them_all_in_the_order_asked() {
    let (outcome, _) = common::run(fan_out(600, 700), LaunchOptions::default()).await;
    let result = outcome.result.value();
    assert_eq!(result["stop_reason"], "success", "{result}");
    let calls = result["member_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 600);
    for (i, call) in calls.iter().enumerate() {
        assert_eq!(call["task"], format!("part {i}"));
        assert_eq!(call["status"], "done", "{call}");
    }
}

/// `value` without what the clock decides: latencies, durations, run
/// times and deadlines.
pub(crate) fn without_times(value: &Value) -> Value {
    match value {
        Value::Object(map) => map
            .iter()
            .filter(|(key, _)| {
                !(key.ends_with("_ms") || key.ends_with("seconds") || key.as_str() == "duration")
            })
            .map(|(key, v)| (key.clone(), without_times(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        Value::Array(items) => items.iter().map(without_times).collect(),
        other => other.clone(),
    }
}

/// Every time in `value` (its `…_ms` fields), in document order: what
/// tells two runs of the same answers apart.
pub(crate) fn times(value: &Value) -> Vec<u64> {
    match value {
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, v)| match v.as_u64() {
                Some(ms) if key.ends_with("_ms") => vec![ms],
                _ => times(v),
            })
            .collect(),
        Value::Array(items) => items.iter().flat_map(times).collect(),
        _ => Vec::new(),
    }
}

/// The turns of a result's trace as `(number, agent)`, in trace order.
pub(crate) fn numbered_turns(result: &Value) -> Vec<(u64, String)> {
    result["trace"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["turn"].as_u64().unwrap(),
                t["agent"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The sim draws each call's latency from the seed (between 100 and 900
/// ms here): every seed is a run whose members answer the same in another
/// order. The run numbers its turns itself, so results, gates and compare
/// agree across seeds.
#[tokio::test(start_paused = true)]
async fn turn_numbers_do_not_depend_on_which_member_answers_first() {
    for file in COORDINATORS {
        let mut first: Option<(u64, Value)> = None;
        let mut durations = std::collections::BTreeSet::new();
        for seed in 1..=12u64 {
            let options = LaunchOptions {
                seed: Some(seed),
                ..LaunchOptions::default()
            };
            let text = std::fs::read_to_string(format!("scenarios/{file}")).unwrap();
            let mut doc: Value = serde_json::from_str(&text).unwrap();
            doc["provider"]["latency_ms"] = json!({"min": 100, "max": 900});
            for turns in doc["provider"]["turns"]
                .as_object_mut()
                .unwrap()
                .values_mut()
            {
                for turn in turns.as_array_mut().unwrap() {
                    turn.as_object_mut().unwrap().remove("latency_ms");
                }
            }
            let (outcome, _) = common::run(common::scenario(&doc), options).await;
            let r = outcome.result.value().clone();
            assert_eq!(r["stop_reason"], "success", "{file} seed {seed}: {r:#}");
            durations.insert(times(&r));
            let turns = numbered_turns(&r);
            let numbers: Vec<u64> = turns.iter().map(|(n, _)| *n).collect();
            let mut sorted = numbers.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), numbers.len(), "{file}: one number a turn");
            match &first {
                None => first = Some((seed, r)),
                Some((seed_1, r_1)) => {
                    assert_eq!(
                        turns,
                        numbered_turns(r_1),
                        "{file}: seeds {seed_1} and {seed} number their turns alike"
                    );
                    assert_eq!(
                        without_times(&r),
                        without_times(r_1),
                        "{file}: seeds {seed_1} and {seed}"
                    );
                }
            }
        }
        assert!(
            durations.len() > 3,
            "{file}: the seeds time the run apart: {durations:?}"
        );
    }
}
