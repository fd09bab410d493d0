//! The dashboard's state of a long run stays bounded: it keeps the latest
//! of what grows with the run (the log, the chain's links and transfers, the
//! table's rounds) and counts the rest, which the recording keeps. Measured
//! with a counting allocator while the recording of a real run (a swarm
//! handing control back and forth for 50,000 model calls, about 350,000
//! events) is folded one event at a time.

#[path = "../benches/common/counting.rs"]
mod counting;

use conclave::bus::{Event, Hub};
use conclave::engine::{self, LaunchOptions};
use conclave::scenario;
use conclave::tui::state::RunState;
use serde_json::json;
use std::io::BufRead;
use std::sync::Arc;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

const CALLS: u32 = 50_000;

/// Record a swarm whose two agents hand control to each other until the
/// model-call budget stops it; the recording's path.
fn record_long_swarm(dir: &std::path::Path) -> std::path::PathBuf {
    let document = json!({
        "name": "long_pingpong", "pattern": "swarm", "goal": "Agree a plan.", "seed": 3,
        "context": {}, "entry": "planner",
        "agents": {"planner": {"description": "Drafts the plan"},
                   "critic": {"description": "Finds its gaps"}},
        "limits": {"max_handoffs": 0, "node_timeout_ms": 0,
                   "repetitive_handoff_window": 0, "repetitive_handoff_min_unique": 0},
        "budget": {"max_llm_calls": CALLS, "max_seconds": 600_000},
        "provider": {"kind": "sim", "latency_ms": 1,
                     "turns": {"planner": [{"transfer_to": "critic", "message": "Draft."}],
                               "critic": [{"transfer_to": "planner", "message": "A gap."}]}}
    });
    let scenario = Arc::new(scenario::parse(&document.to_string(), "long.json").unwrap());
    let path = dir.join("long.jsonl");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let outcome = runtime.block_on(async {
        let options = LaunchOptions {
            record: Some(path.clone()),
            ..LaunchOptions::default()
        };
        let handle = engine::launch(scenario, &Hub::default(), options).unwrap();
        handle.finish().await.unwrap()
    });
    assert_eq!(outcome.result["stop_reason"], "max_llm_calls");
    assert_eq!(outcome.result["llm_calls"], CALLS);
    path
}

#[test]
fn a_long_runs_dashboard_state_stays_within_a_fixed_ceiling() {
    let dir = tempfile::tempdir().unwrap();
    let path = record_long_swarm(dir.path());
    let lines = std::io::BufReader::new(std::fs::File::open(&path).unwrap()).lines();

    let before = counting::live();
    let mut state = RunState::new(1);
    let mut held = Vec::new();
    let mut events = 0usize;
    for line in lines {
        let event: Event = serde_json::from_str(&line.unwrap()).unwrap();
        state.apply(Arc::new(event));
        events += 1;
        if events.is_multiple_of(50_000) {
            held.push(counting::live().saturating_sub(before));
        }
    }
    assert!(events > 300_000, "{events} events");
    assert!(state.outcome.is_some(), "the run's finish was folded");
    let most = *held.iter().max().unwrap();
    // The log alone holds its last 50,000 events: a few MB.
    assert!(
        most < 32 << 20,
        "the state holds {most} bytes at its largest: {held:?}"
    );
    // Past the log's fill, nothing more is kept: the last figures are flat.
    let settled = &held[2..];
    let (low, high) = (settled.iter().min().unwrap(), settled.iter().max().unwrap());
    assert!(
        high - low < 1 << 20,
        "the state grows with the run, by {} bytes from {low}: {held:?}",
        high - low
    );
}
