//! The swarm and coordinator scenarios as a user runs them: results on
//! stdout, the documented exit statuses, flags from the command line, a
//! recording that holds the team's events, and the schema's new sections.

use crate::common;

use common::cli::{conclave, result};
use serde_json::Value;

#[test]
fn the_team_scenarios_end_as_their_descriptions_say() {
    for (args, code, reason, final_agent) in [
        (
            vec!["scenarios/support_swarm.json"],
            0,
            "success",
            "refunds",
        ),
        (
            vec!["scenarios/support_swarm.json", "--flag", "refunds_desk=off"],
            0,
            "success",
            "billing",
        ),
        (
            vec!["scenarios/pingpong_swarm.json"],
            0,
            "success",
            "critic",
        ),
        (
            vec!["scenarios/launch_coordinator.json"],
            0,
            "success",
            "launch_lead",
        ),
    ] {
        let mut full = vec!["run"];
        full.extend(&args);
        full.push("--headless");
        let output = conclave(&full);
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        let r = result(&output);
        assert_eq!(r["stop_reason"], reason, "{args:?}");
        assert_eq!(r["final_agent"], final_agent, "{args:?}");
        assert!(output.stderr.is_empty(), "{args:?}: nothing but the result");
    }
    let r = result(&conclave(&[
        "run",
        "scenarios/pingpong_swarm.json",
        "--headless",
    ]));
    let refused: Vec<&str> = r["handoffs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["reason"].as_str())
        .collect();
    assert_eq!(refused, ["repetitive_handoff", "repetitive_handoff"]);
}

#[test]
fn a_stopped_swarm_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("slow.json");
    std::fs::write(
        &file,
        r#"{"name": "slow", "pattern": "swarm", "goal": "g", "context": {}, "entry": "a",
            "agents": {"a": {}, "b": {}}, "limits": {"node_timeout_ms": 100},
            "provider": {"kind": "sim", "turns": {
                "a": {"transfer_to": "b", "latency_ms": 10},
                "b": {"reply": "too late", "latency_ms": 500}}}}"#,
    )
    .unwrap();
    let output = conclave(&["run", file.to_str().unwrap(), "--headless"]);
    assert_eq!(output.status.code(), Some(3));
    let r = result(&output);
    assert_eq!(r["stop_reason"], "node_timeout:b");
    assert_eq!(r["llm_calls"], 2);
}

#[test]
fn a_team_recording_holds_the_handoffs_and_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("swarm.jsonl");
    let output = conclave(&[
        "run",
        "scenarios/pingpong_swarm.json",
        "--headless",
        "--record",
        path.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let events: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let count = |kind: &str| events.iter().filter(|e| e["type"] == kind).count();
    assert_eq!(count("turn_started"), 6);
    assert_eq!(count("handoff_accepted"), 3);
    assert_eq!(count("handoff_rejected"), 2);
    let rejected = events
        .iter()
        .find(|e| e["type"] == "handoff_rejected")
        .unwrap();
    assert_eq!(rejected["reason"], "repetitive_handoff");
    assert_eq!(rejected["handoffs"], 4);
    assert_eq!(
        rejected["window"],
        serde_json::json!(["critic", "planner", "critic", "planner"])
    );
    assert_eq!(events.last().unwrap()["result"], result(&output));
}

#[test]
fn the_schema_describes_the_team_sections() {
    let schema = result(&conclave(&["schema"]));
    for section in ["entry", "agents", "limits", "tools"] {
        assert!(schema["properties"][section].is_object(), "{section}");
    }
    let text = schema.to_string();
    assert!(text.contains("repetitive_handoff_min_unique"));
    assert!(text.contains("max_llm_calls"));
    assert!(text.contains("member_timeout_ms"));
}
