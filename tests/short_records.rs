//! A recording keeps what a cassette needs once: a tool call that asks and
//! answers what the tool's previous call did is written short, the sim's
//! scripted plan is named rather than copied from the run's `run_started`,
//! and a cassette fills both in again. Recordings written whole, before
//! short records, serve as they always did.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const SCENARIO: &str = "tests/fixtures/orchestrator_20_tasks.json";
/// The same scenario recorded by a Conclave that wrote every record whole.
const WHOLE: &str = "tests/fixtures/orchestrator_20_tasks_recorded_whole.jsonl";

fn conclave(args: &[&str], state: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XDG_STATE_HOME", state)
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("the binary runs")
}

fn said(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The run served wholly from `recording`: its output, checked to have
/// made no call live.
fn served(recording: &str, state: &Path) -> Output {
    let output = conclave(
        &["run", SCENARIO, "--headless", "--cassette", recording],
        state,
    );
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
    assert!(said(&output).contains(", 0 live"), "{}", said(&output));
    output
}

#[test]
fn repeated_tool_calls_and_the_scripted_plan_are_recorded_once_and_served_whole() {
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("run.jsonl");
    let path = recording.to_string_lossy().into_owned();
    let live = conclave(
        &["run", SCENARIO, "--headless", "--record", &path],
        dir.path(),
    );
    assert_eq!(live.status.code(), Some(0), "{}", said(&live));
    let text = std::fs::read_to_string(&recording).unwrap();
    let finished: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["type"] == "call_finished")
        .collect();
    assert_eq!(finished.len(), 22, "a plan, 20 tasks and a brief");

    // The plan's text is the scenario's, which run_started holds.
    let plan = &finished[0];
    assert_eq!(plan["record"]["purpose"], "plan");
    assert_eq!(plan["record"]["answer"], "scripted_plan", "{plan}");
    let plan_line = text
        .lines()
        .find(|line| line.contains("\"purpose\":\"plan\""))
        .unwrap();
    assert!(
        !plan_line.contains("payments_worker"),
        "the plan's call repeats the plan: {} bytes",
        plan_line.len()
    );

    // Each worker's first call is written whole; the rest ask and answer
    // the same, at their event's time, and say nothing more.
    let tools: Vec<&Value> = finished
        .iter()
        .filter(|event| event["tool"] != "model")
        .collect();
    assert_eq!(tools.len(), 20);
    let short = tools
        .iter()
        .filter(|event| event["record"] == serde_json::json!({}))
        .count();
    assert_eq!(short, 16, "{tools:#?}");
    for whole in tools
        .iter()
        .filter(|e| e["record"] != serde_json::json!({}))
    {
        assert_eq!(whole["record"]["args"]["region"], "US", "{whole}");
        assert_eq!(whole["record"]["answer"]["observation"]["status"], "done");
    }

    // Served, the recording gives the recorded run back byte for byte.
    let again = served(&path, &dir.path().join("served"));
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        String::from_utf8_lossy(&live.stdout)
    );
}

#[test]
fn a_recording_written_whole_still_serves_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let whole = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(WHOLE)).unwrap();
    assert!(
        whole.contains("\"answer\":{\"json\":\"{\\n"),
        "the fixture holds its plan's text"
    );
    let live = conclave(&["run", SCENARIO, "--headless"], dir.path());
    assert_eq!(live.status.code(), Some(0), "{}", said(&live));
    let again = served(WHOLE, &dir.path().join("served"));
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        String::from_utf8_lossy(&live.stdout)
    );
}
