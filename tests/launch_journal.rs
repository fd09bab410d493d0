//! A launched run's recording is written as the run goes: Conclave
//! killed outright mid-run leaves a recording that `conclave replay`
//! reads as far as the run got (its spans, steering decisions and output
//! lines), and a run that ends leaves its whole recording in its place.

use crate::common::cli::{conclave, names_in, recording_lines, result, run_recorded};
use crate::common::python::root;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The plain fixture program as a scenario in `dir`, held at its end
/// when `hang`.
fn plain(dir: &Path, hang: bool) -> String {
    let fixture = root().join("tests/fixtures/launch/plain_program.py");
    let hooks = root().join("hooks/python").display().to_string();
    let mut env = serde_json::json!({"PYTHONPATH": hooks});
    if hang {
        env["PLAIN_HANG"] = "1".into();
    }
    let scenario = serde_json::json!({
        "name": "app", "pattern": "program", "command": ["python3", fixture],
        "env": env, "flags": {"legal_analyst": {"default": true}},
    });
    let path = dir.join(if hang { "held.json" } else { "app.json" });
    std::fs::write(&path, scenario.to_string()).unwrap();
    path.display().to_string()
}

/// The recording's lines read so far, a cut last one left out.
fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

#[test]
fn a_launch_killed_outright_leaves_its_recording_as_far_as_the_run_got() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("held.jsonl");
    let app = plain(dir.path(), true);
    let mut child = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["run", &app, "--headless", "--record"])
        .arg(&record)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The program has printed its last line and is held: everything it
    // did is in the recording while Conclave still runs.
    let until = Instant::now() + Duration::from_secs(60);
    let lines = loop {
        let lines = recording_lines(&record);
        let done = of_type(&lines, "program_output")
            .iter()
            .any(|l| l["text"] == "done");
        if done && of_type(&lines, "span_arrived").len() == 4 {
            break lines;
        }
        assert!(
            Instant::now() < until,
            "the journal never held the run: {lines:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(lines[0]["type"], "watch_started");
    assert!(of_type(&lines, "watch_finished").is_empty());
    // SIGKILL: Conclave writes nothing more.
    child.kill().unwrap();
    child.wait().unwrap();
    let replay = conclave(&["replay", record.to_str().unwrap(), "--headless"]);
    let said = String::from_utf8_lossy(&replay.stderr);
    assert_eq!(replay.status.code(), Some(0), "{said}");
    let replayed = result(&replay);
    assert_eq!(replayed["trace_id"], lines[0]["trace_id"]);
    assert_eq!(replayed["spans"], 4, "{replayed}");
    assert_eq!(replayed["model_calls"], 2);
    assert_eq!(replayed["agents"], serde_json::json!(["triage", "legal"]));
    assert!(said.contains("stdout  legal_analyst=on"), "{said}");
    assert!(said.contains("stdout  done"), "{said}");
    // The steering decision taken (the hook declaring its flag); the
    // gates' count is the summary's, which a run cut short never wrote.
    assert_eq!(of_type(&lines, "steered").len(), 1);
    let decisions = &replayed["steering"]["decisions"];
    assert_eq!(decisions[0]["decision"], "flags_declared", "{replayed}");
    assert_eq!(decisions[0]["flags"]["legal_analyst"], true);
}

#[test]
fn a_launch_that_ends_leaves_its_whole_recording_in_the_journals_place() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.jsonl");
    let app = plain(dir.path(), false);
    let run = run_recorded(&app, &record);
    let lines = recording_lines(&record);
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "watch_finished");
    assert_eq!(last["summary"]["run_id"], run["run_id"]);
    assert_eq!(of_type(&lines, "span_arrived").len(), 4);
    assert_eq!(of_type(&lines, "program_output").len(), 2);
    assert_eq!(of_type(&lines, "model_call").len(), 0);
    assert_eq!(
        names_in(dir.path()),
        ["app.json", "run.jsonl"],
        "nothing is left beside it"
    );
    // A file already there is never written over, journal or not.
    let again = conclave(&[
        "run",
        &app,
        "--headless",
        "--record",
        record.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("cannot record the run to"), "{said}");
    assert_eq!(
        recording_lines(&record),
        lines,
        "the first run's recording is kept"
    );
}
