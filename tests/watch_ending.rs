//! Watched runs that always end, through the real binary: a service's
//! top span whose parent is remote finishes its run; a run whose root
//! never comes ends as incomplete when the watch stops, by a signal
//! (`--headless`, its line printed) or by `q` (the dashboard), and is
//! recorded either way; a watch killed outright leaves each run still
//! going recorded as far as it got.

use crate::common;
use crate::common::cli::{conclave, names_in, recording_lines, result};
use crate::watch_dashboard::{free_port, post, span_of, text};

use common::pty::Session;
use common::steer::Watch;
use opentelemetry_proto::tonic::trace::v1::Span;
use std::path::Path;

/// A run's agent span, its parent `1` never sent.
fn orphan(trace: u128) -> Vec<Span> {
    let attrs = vec![
        text("gen_ai.operation.name", "invoke_agent"),
        text("gen_ai.agent.name", "triage"),
    ];
    vec![span_of(
        trace,
        2,
        Some(1),
        "invoke_agent triage",
        (0, 20),
        attrs,
    )]
}

/// A service's top span continuing a caller's trace (OTLP span flags: the
/// parent is known to be remote) over its agent's span.
fn served(trace: u128) -> Vec<Span> {
    let mut spans = orphan(trace);
    let mut top = span_of(trace, 1, Some(0x99), "POST /chat", (0, 30), Vec::new());
    top.flags = 0x300;
    spans.push(top);
    spans
}

/// The `incomplete` of each recording in `dir`, by trace id.
fn recorded(dir: &Path) -> Vec<(String, serde_json::Value)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        let summary = &last["summary"];
        found.push((
            summary["trace_id"].as_str().unwrap().to_string(),
            summary["incomplete"].clone(),
        ));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

#[test]
fn headless_a_served_run_finishes_and_a_signal_ends_the_rest_as_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().to_str().unwrap();
    let watch = Watch::start(&["--record-dir", record]);
    let port: u16 = watch.url.rsplit(':').next().unwrap().parse().unwrap();
    post(port, served(0xa));
    let first = watch.finished();
    assert_eq!(first["trace_id"], format!("{:032x}", 0xa));
    assert_eq!(first["agents"], serde_json::json!(["triage"]));
    assert!(first.get("incomplete").is_none(), "{first}");
    post(port, orphan(0xb));
    // SAFETY: sending a signal to the child this test started.
    unsafe {
        libc::kill(watch.child.id() as libc::pid_t, libc::SIGINT);
    }
    let last = watch.finished();
    assert_eq!(last["trace_id"], format!("{:032x}", 0xb));
    assert_eq!(last["incomplete"], "watch_stopped", "{last}");
    assert_eq!(last["agents"], serde_json::json!(["triage"]));
    assert_eq!(
        recorded(dir.path()),
        [
            (format!("{:032x}", 0xa), serde_json::Value::Null),
            (format!("{:032x}", 0xb), serde_json::json!("watch_stopped")),
        ]
    );
}

#[test]
fn the_dashboard_quitting_ends_and_records_a_run_whose_root_never_came() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let args = [
        "watch",
        "--listen",
        &listen,
        "--no-grpc",
        "--record-dir",
        dir.path().to_str().unwrap(),
    ];
    let mut session = Session::start_sized(&args, home.path(), &[], (160, 48));
    session.wait_text("Waiting for the first span");
    post(port, orphan(0xc));
    session.wait_text("1 ▶ watch_support_bot");
    session.press("q");
    assert!(session.wait_exit().success());
    assert_eq!(
        recorded(dir.path()),
        [(format!("{:032x}", 0xc), serde_json::json!("watch_stopped"))]
    );
}

#[test]
fn headless_a_watch_killed_outright_leaves_the_run_going_recorded_as_far_as_it_got() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().to_str().unwrap();
    let mut watch = Watch::start(&["--record-dir", record]);
    let port: u16 = watch.url.rsplit(':').next().unwrap().parse().unwrap();
    post(port, served(0xa));
    assert_eq!(watch.finished()["trace_id"], format!("{:032x}", 0xa));
    // A run whose root never comes goes on until the watch stops: its
    // recording is on disk while it goes.
    post(port, orphan(0xb));
    let going = dir.path().join(format!("watch-{:032x}.jsonl", 0xb));
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while recording_lines(&going).len() < 2 {
        assert!(
            std::time::Instant::now() < until,
            "no journal of the run going"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SIGKILL: the watch writes nothing more.
    watch.child.kill().unwrap();
    watch.child.wait().unwrap();
    let lines = recording_lines(&going);
    assert_eq!(lines[0]["type"], "watch_started");
    assert_eq!(lines[1]["type"], "span_arrived");
    assert_eq!(lines.len(), 2, "{lines:?}");
    let replay = conclave(&["replay", going.to_str().unwrap(), "--headless"]);
    let said = String::from_utf8_lossy(&replay.stderr);
    assert_eq!(replay.status.code(), Some(0), "{said}");
    let replayed = result(&replay);
    assert_eq!(replayed["trace_id"], format!("{:032x}", 0xb));
    assert_eq!(replayed["spans"], 1, "{replayed}");
    assert_eq!(replayed["agents"], serde_json::json!(["triage"]));
    // The run that finished has its whole recording in its journal's
    // place, and nothing is left beside either.
    let finished = dir.path().join(format!("watch-{:032x}.jsonl", 0xa));
    let whole = recording_lines(&finished);
    assert_eq!(whole.last().unwrap()["type"], "watch_finished", "{whole:?}");
    assert_eq!(
        names_in(dir.path()),
        [
            format!("watch-{:032x}.jsonl", 0xa),
            format!("watch-{:032x}.jsonl", 0xb)
        ]
    );
}
