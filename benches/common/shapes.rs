//! The team shapes of the side-by-side bench (`benches/peers.rs`) as
//! scenarios, the same work `benches/team_floor.py` does in plain asyncio:
//! a handoff chain round a ring of four agents, a round table of many
//! rounds and a coordinator calling many distinct members.

// Each bench or test that includes this file uses a part of it.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufWriter, Write};
use std::path::Path;

/// The ring's agents, in the order control goes round.
const RING: [&str; 4] = ["a", "b", "c", "d"];

fn write(file: &Path, document: &Value) {
    let mut out = BufWriter::new(std::fs::File::create(file).expect("a temporary file"));
    serde_json::to_writer(&mut out, document).expect("written");
    out.flush().expect("written");
}

/// A swarm of four agents handing control round a ring `handoffs` times,
/// one model call of 1–5 ms a turn on the virtual clock, its loop checks
/// off; the turn after the last handoff replies.
pub fn write_chain(file: &Path, handoffs: usize) {
    let mut turns: Vec<Vec<Value>> = vec![Vec::new(); RING.len()];
    for turn in 0..handoffs {
        let next = RING[(turn + 1) % RING.len()];
        turns[turn % RING.len()].push(json!({"transfer_to": next, "message": "on"}));
    }
    turns[handoffs % RING.len()].push(json!({"reply": "Agreed."}));
    let agents: serde_json::Map<String, Value> = RING
        .iter()
        .map(|a| (a.to_string(), json!({"description": "Takes its turn"})))
        .collect();
    let turns: serde_json::Map<String, Value> = RING
        .iter()
        .zip(turns)
        .map(|(a, t)| (a.to_string(), Value::Array(t)))
        .collect();
    write(
        file,
        &json!({
            "name": "handoff_chain", "pattern": "swarm", "goal": "Agree a plan.", "seed": 3,
            "context": {}, "entry": RING[0], "agents": agents,
            "limits": {"max_handoffs": 0, "node_timeout_ms": 0,
                       "repetitive_handoff_window": 0, "repetitive_handoff_min_unique": 0},
            "budget": {"max_llm_calls": handoffs + 10, "max_seconds": 600_000},
            "provider": {"kind": "sim", "latency_ms": {"min": 1, "max": 5}, "turns": turns}
        }),
    );
}

/// A round table of three roles over `rounds` rounds, one model call of
/// 1–5 ms a contribution: the risk role blocks every round but the last.
pub fn write_round_table(file: &Path, rounds: usize) {
    let roles = ["demand_analyst", "finance_analyst", "risk_analyst"];
    let responses: serde_json::Map<String, Value> = roles
        .iter()
        .map(|role| {
            let said: Vec<Value> = (1..=rounds)
                .map(|r| {
                    let blocks = *role == "risk_analyst" && r < rounds;
                    json!({"agent": role, "stance": if blocks { "block" } else { "go" },
                           "confidence": 0.8, "summary": format!("round {r}"),
                           "actions": ["watch"]})
                })
                .collect();
            (role.to_string(), Value::Array(said))
        })
        .collect();
    let team: serde_json::Map<String, Value> = roles
        .iter()
        .map(|role| {
            (
                role.to_string(),
                json!({"focus": "Its part of the launch."}),
            )
        })
        .collect();
    write(
        file,
        &json!({
            "name": "round_table", "pattern": "collaboration", "goal": "Decide the launch.",
            "seed": 7, "context": {},
            "budget": {"max_rounds": rounds, "max_messages": rounds * roles.len() + 10,
                       "max_seconds": 600_000, "min_go_votes": 2},
            "team": {"roles": team, "sequence": roles},
            "provider": {"kind": "sim", "latency_ms": {"min": 1, "max": 5},
                         "responses": responses, "final_answer": "GO."}
        }),
    );
}

/// A coordinator whose first turn calls `members` distinct members, each
/// answering in one call of 1–50 ms; then the coordinator replies. Written
/// as it goes, so that this process stays small.
pub fn write_members(file: &Path, members: usize) {
    let mut out = BufWriter::new(std::fs::File::create(file).expect("a temporary file"));
    let mut put = |text: &str| out.write_all(text.as_bytes()).expect("written");
    put(
        "{\"name\": \"members\", \"pattern\": \"coordinator\", \"goal\": \"Report.\", \"seed\": 3, \"context\": {}, \"entry\": \"lead\",\n\"agents\": {\"lead\": {\"description\": \"Splits the report\"}",
    );
    for i in 0..members {
        put(&format!(
            ",\n\"m{i}\": {{\"description\": \"Reports one part\"}}"
        ));
    }
    put(&format!(
        "}},\n\"budget\": {{\"max_llm_calls\": {}, \"max_seconds\": 600}},\n\"provider\": {{\"kind\": \"sim\", \"latency_ms\": {{\"min\": 1, \"max\": 50}}, \"turns\": {{\n\"lead\": [{{\"call_members\": [\n",
        members + 10
    ));
    for i in 0..members {
        let comma = if i > 0 { ",\n" } else { "" };
        put(&format!(
            "{comma}{{\"member\": \"m{i}\", \"task\": \"part {i}\"}}"
        ));
    }
    put("]}, {\"reply\": \"Done.\"}]");
    for i in 0..members {
        put(&format!(",\n\"m{i}\": [{{\"reply\": \"m{i} is done.\"}}]"));
    }
    put("}}}\n");
    out.flush().expect("written");
}

/// The orchestrator's workers, each a sim worker of 1–50 ms.
const WORKERS: [&str; 4] = [
    "sales_worker",
    "payments_worker",
    "inventory_worker",
    "fraud_worker",
];

/// An orchestrator scenario whose plan has `tasks` tasks, four sim workers
/// of 1–50 ms, one task in ten critical, 256 at once: the fan-out. Written
/// as it goes so that this process stays small.
pub fn write_fan_out(file: &Path, tasks: usize) {
    let mut out = BufWriter::new(std::fs::File::create(file).expect("a temporary file"));
    let workers: Vec<String> = WORKERS
        .iter()
        .map(|w| {
            format!(
                "    \"{w}\": {{\"data\": {{\"2026-02-26:US\": {{\"value\": 1}}}}, \"latency_ms\": {{\"min\": 1, \"max\": 50}}}}"
            )
        })
        .collect();
    let mut put = |text: &str| out.write_all(text.as_bytes()).expect("written");
    put(
        "{\n  \"name\": \"many_tasks\",\n  \"pattern\": \"orchestrator\",\n  \"goal\": \"Report.\",\n  \"context\": {\"report_date\": \"2026-02-26\", \"region\": \"US\"},\n",
    );
    put("  \"workers\": {\n");
    put(&workers.join(",\n"));
    put(
        "\n  },\n  \"provider\": {\n    \"kind\": \"sim\",\n    \"final_answer\": \"Done.\",\n    \"plan\": {\"kind\": \"plan\", \"tasks\": [\n",
    );
    for i in 0..tasks {
        put(&format!(
            "{}      {{\n        \"id\": \"t{i}\",\n        \"worker\": \"{}\",\n        \"args\": {{\"report_date\": \"2026-02-26\", \"region\": \"US\"}},\n        \"critical\": {}\n      }}",
            if i > 0 { ",\n" } else { "" },
            WORKERS[i % WORKERS.len()],
            i % 10 == 0
        ));
    }
    put(&format!(
        "\n    ]}}\n  }},\n  \"budget\": {{\"max_tasks\": {tasks}, \"max_parallel\": 256, \"max_dispatches\": {tasks}, \"max_retries_per_task\": 1, \"task_timeout_seconds\": 2.0, \"max_seconds\": 600}}\n}}\n"
    ));
    out.flush().expect("written");
}
