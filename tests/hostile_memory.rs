//! An endless response body costs bounded memory: the real binary against
//! a loopback endpoint that never stops sending, its peak memory measured
//! by `wait4`. A file of its own, so that this test process stays small
//! (a child's measure includes its parent's memory at the start).

mod common;

use common::loopback::{Body, Loopback, Reply};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::Duration;

const KEY: &str = "sk-Mm4vQ8tR1yW6pZ3nC9kL2xB7hJ5dF0gS";

fn endless_run(status: u16, cap: Option<&str>) -> (common::bounded::Finished, Value) {
    served_run(status, || Body::Endless, cap)
}

/// The binary against an endpoint that answers every call with `status`
/// and a fresh `body`.
fn served_run(
    status: u16,
    body: fn() -> Body,
    cap: Option<&str>,
) -> (common::bounded::Finished, Value) {
    let server = Loopback::serve(move |_, _| Reply::new(status, body()));
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("endless.json");
    let doc = json!({
        "name": "endless", "pattern": "collaboration", "goal": "g", "context": {},
        "budget": {"max_rounds": 1, "max_seconds": 30},
        "team": {"roles": {"risk_analyst": {}}, "sequence": ["risk_analyst"]},
        "provider": {"kind": "openai", "model": "m", "timeout_seconds": 60}
    });
    std::fs::write(&file, doc.to_string()).unwrap();
    let recording = work.path().join("run.jsonl");
    let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
    command
        .args(["run", "--headless", "--provider", "openai", "--base-url"])
        .arg(&server.base_url)
        .arg("--record")
        .arg(&recording)
        .arg(&file)
        .env("OPENAI_API_KEY", KEY)
        .env_remove("CONCLAVE_MAX_BODY_BYTES")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(cap) = cap {
        command.env("CONCLAVE_MAX_BODY_BYTES", cap);
    }
    let finished = common::bounded::run(command, Duration::from_secs(120), "an endless body");
    let last = std::fs::read_to_string(&recording)
        .unwrap()
        .lines()
        .last()
        .map(|line| serde_json::from_str(line).unwrap())
        .unwrap_or(Value::Null);
    (finished, last)
}

#[test]
fn an_endless_body_stops_at_the_cap_in_bounded_memory() {
    // What this process holds already counts in the child's measure.
    let own = common::bounded::own_peak_kib();
    assert!(
        own < 32 * 1024,
        "this test process is too big to measure: {own} KiB"
    );
    // The same binary answered at once with a short reply that is not
    // JSON: what a run costs before any body is large. A debug build maps
    // tens of MiB of its own code, so only the growth over this is the
    // body's.
    let (small, last) = served_run(200, || Body::Bytes(b"not json".to_vec()), None);
    assert_eq!(last["stop_reason"], "llm_bad_response", "{last}");
    for (status, cap, stop, limit_mib) in [
        (200, None, "llm_bad_response", 40),
        (200, Some("65536"), "llm_bad_response", 8),
        (503, None, "llm_unavailable", 8),
    ] {
        let (finished, last) = endless_run(status, cap);
        assert_eq!(finished.exit, Some(3), "HTTP {status} {cap:?}: {last}");
        assert_eq!(last["type"], "run_finished");
        assert_eq!(last["stop_reason"], stop);
        let grown = finished.max_rss_kib - small.max_rss_kib;
        assert!(
            grown < limit_mib * 1024,
            "HTTP {status} with cap {cap:?}: peak memory {} KiB, {grown} KiB over a short reply's {} KiB",
            finished.max_rss_kib,
            small.max_rss_kib
        );
        eprintln!("HTTP {status} with cap {cap:?}: {grown} KiB over a short reply");
    }
}
