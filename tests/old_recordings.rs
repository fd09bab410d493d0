//! Recordings made by Conclave before each pattern owned its events, its
//! stop reasons and its figures (tests/fixtures/recordings/, one per
//! pattern and per way a run ends: finished, stopped at a question,
//! answered, deadlocked, a breaker's outage). Whatever moves inside the
//! engine, these files must keep reading exactly as they were written:
//!
//! - every line reads as an event and writes back byte for byte;
//! - `replay --headless` prints the result the run printed when it was
//!   recorded, with the same exit code;
//! - the recording serves as a cassette of its own scenario and gives that
//!   result again;
//! - the dashboard draws each finished recording as it did (snapshots).
//!
//! Each `NAME.result.json` is what `conclave run --headless` printed when
//! `NAME.jsonl` was recorded.

use crate::common::cli::conclave;
use crate::common::screen;
use conclave::bus::Event;
use conclave::tui::app::{App, AppOptions};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

/// The fixtures, by name, in name order.
fn fixtures() -> Vec<(String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recordings");
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|x| x == "jsonl"))
        .map(|path| (path.file_stem().unwrap().to_string_lossy().into(), path))
        .collect();
    found.sort();
    assert!(found.len() >= 12, "the fixtures are in {}", dir.display());
    found
}

fn recorded_result(recording: &Path) -> String {
    std::fs::read_to_string(recording.with_extension("result.json")).unwrap()
}

/// The exit code a recorded result stands for: 0 when the run finished
/// well, 3 when it stopped (DESIGN.md, exit codes).
fn recorded_exit(result: &str) -> i32 {
    let doc: serde_json::Value = serde_json::from_str(result).unwrap();
    if doc["status"] == "ok" { 0 } else { 3 }
}

/// `out` printed the result the run of `recording` printed, and exited as
/// that run did.
fn assert_prints_recorded_result(name: &str, recording: &Path, out: &Output) {
    let expected = recorded_result(recording);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        expected,
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(recorded_exit(&expected)), "{name}");
}

fn events_of(recording: &Path) -> Vec<Event> {
    crate::common::recorded(recording)
}

#[test]
fn every_line_reads_and_writes_back_byte_for_byte() {
    for (name, path) in fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, line) in text.lines().enumerate() {
            let event: Event = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{name}:{}: {e}\n{line}", at + 1));
            let written = serde_json::to_string(&event).unwrap();
            assert_eq!(written, line, "{name}:{} writes back otherwise", at + 1);
        }
    }
}

#[test]
fn headless_replay_prints_the_result_the_run_printed() {
    for (name, path) in fixtures() {
        let out = conclave(&["replay", "--headless", path.to_str().unwrap()]);
        assert_prints_recorded_result(&name, &path, &out);
    }
}

#[test]
fn each_recording_serves_its_own_scenario_as_a_cassette() {
    let dir = tempfile::tempdir().unwrap();
    for (name, path) in fixtures() {
        let started = &events_of(&path)[0];
        let line = serde_json::to_value(started).unwrap();
        let scenario = dir.path().join(format!("{name}.json"));
        std::fs::write(&scenario, line["scenario"].to_string()).unwrap();
        let out = conclave(&[
            "run",
            "--headless",
            scenario.to_str().unwrap(),
            "--cassette",
            path.to_str().unwrap(),
        ]);
        assert_prints_recorded_result(&name, &path, &out);
    }
}

#[test]
fn the_dashboard_draws_each_finished_recording_as_it_did() {
    for (name, path) in fixtures() {
        let events: Vec<Arc<Event>> = events_of(&path).into_iter().map(Arc::new).collect();
        let mut app = App::new(AppOptions::default());
        app.add_from_events(
            &events,
            Some(format!("tests/fixtures/recordings/{name}.jsonl")),
        )
        .expect("a recording starts with run_started");
        insta::assert_snapshot!(format!("old_{name}_160x48"), screen::of_app(&app, 160, 48));
    }
}
