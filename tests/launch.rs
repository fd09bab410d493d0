//! `conclave launch` and program scenarios (`"pattern": "program"`),
//! headless: one run of whatever the program emits (its spans in any
//! trace, its steering, its output), its exit as the run's end, a stop
//! that leaves nothing running, and bad commands named at their place.
//! Each test starts the real binary on small programs (sh, python3):
//! about a second each, the 100 MB one a few.

use crate::common::cli::{conclave, result, run_recorded};
use crate::common::python::root;
use crate::common::real::survivors;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// A program scenario in `dir`, with `extra` members.
fn scenario(dir: &Path, command: Value, extra: &str) -> String {
    let path = dir.join("app.json");
    let text =
        format!("{{\"name\": \"app\", \"pattern\": \"program\",\n \"command\": {command}{extra}}}");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A program scenario in `dir` running the Python fixture `script` with
/// the hook package on its path, declaring the flag `legal_analyst` as
/// `flag` (a JSON object).
fn hooked(dir: &Path, script: &str, flag: &str) -> String {
    let fixture = root().join("tests/fixtures/launch").join(script);
    let hooks = root().join("hooks/python").display().to_string();
    let extra = format!(
        ", \"env\": {{\"PYTHONPATH\": {}}},\n \"flags\": {{\"legal_analyst\": {flag}}}",
        Value::from(hooks)
    );
    scenario(dir, serde_json::json!(["python3", fixture]), &extra)
}

/// The texts of the launched run's output lines, in order.
pub(crate) fn output_texts(run: &Value) -> Vec<&str> {
    run["output"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect()
}
#[test]
fn a_plain_program_is_one_run_of_its_spans_steering_and_output_and_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.jsonl");
    let app = hooked(dir.path(), "plain_program.py", "{\"default\": true}");
    let run = run_recorded(&app, &record);
    assert_eq!(run["status"], "ok");
    assert_eq!(run["stop_reason"], "completed");
    assert_eq!(run["exit_status"], 0);
    let id = run["run_id"].as_str().unwrap();
    assert_eq!(run["trace_id"], id, "the spans' run is the launch's");
    assert_eq!(run["spans"], 4, "two traces, one run: {run}");
    assert_eq!(run["model_calls"], 2);
    assert_eq!(run["input_tokens"], 200);
    assert_eq!(run["output_tokens"], 40);
    assert_eq!(
        run["agents"],
        serde_json::json!(["triage", "legal"]),
        "the scenario's flag reached the hook"
    );
    assert_eq!(run["steering"]["flags"]["legal_analyst"], true);
    assert_eq!(
        run["steering"]["gates"], 1,
        "the hook's gate is on the same run"
    );
    let texts = output_texts(&run);
    assert_eq!(texts, ["legal_analyst=on", "done"]);
    assert_eq!(run["recording"], record.display().to_string());
    let replay = conclave(&["replay", record.to_str().unwrap(), "--headless"]);
    assert_eq!(replay.status.code(), Some(0));
    let replayed = result(&replay);
    assert_eq!(replayed["trace_id"], id);
    assert_eq!(replayed["spans"], 4);
    let said = String::from_utf8_lossy(&replay.stderr);
    assert!(said.contains("stdout  legal_analyst=on"), "{said}");
    // The flag turned off from the command line reaches the program too.
    let off = conclave(&[
        "run",
        &app,
        "--headless",
        "--no-record",
        "--flag",
        "legal_analyst=off",
    ]);
    assert_eq!(
        result(&off)["agents"],
        serde_json::json!(["triage", "billing"])
    );
}

#[test]
fn a_program_that_fails_ends_its_run_failed_with_its_last_stderr_lines() {
    let out = conclave(&[
        "launch",
        "--headless",
        "--no-record",
        "--",
        "python3",
        "-c",
        "print('working'); raise ValueError('the ledger is locked')",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let run = result(&out);
    assert_eq!(run["status"], "failed");
    assert_eq!(run["stop_reason"], "exit_status");
    assert_eq!(run["exit_status"], 1);
    let error = run["error"].as_str().unwrap();
    assert!(
        error.starts_with("the program exited with status 1: Traceback"),
        "{error}"
    );
    assert!(
        error.ends_with("ValueError: the ledger is locked"),
        "{error}"
    );
    let killed = result(&conclave(&[
        "launch",
        "--headless",
        "--no-record",
        "--",
        "sh",
        "-c",
        "kill -SEGV $$",
    ]));
    assert_eq!(killed["stop_reason"], "signal");
    assert_eq!(killed["signal"], "SIGSEGV");
    assert_eq!(killed["exit_status"], Value::Null);
}

#[test]
fn commands_that_cannot_start_exit_2_named_at_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let missing = scenario(
        dir.path(),
        serde_json::json!(["no-such-program-anywhere"]),
        "",
    );
    let out = conclave(&["run", &missing, "--headless"]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("app.json:2:14: command[0]: cannot find the program"),
        "{said}"
    );
    let empty = scenario(dir.path(), serde_json::json!([]), "");
    let out = conclave(&["validate", &empty]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("app.json:2:13: command: expected the program and its arguments"),
        "{said}"
    );
    let folder = scenario(dir.path(), serde_json::json!(["sh"]), ", \"cwd\": \"gone\"");
    let out = conclave(&["run", &folder, "--headless"]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(":2:28: cwd: the working directory"), "{said}");
    assert!(said.contains("gone does not exist"), "{said}");
    let out = conclave(&["launch", "--headless", "--", "./not-here"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("(command line): command[0]: the program")
    );
    assert_eq!(
        conclave(&["validate", &folder]).status.code(),
        Some(0),
        "a folder is looked for at launch"
    );
}

#[test]
fn a_program_that_never_exits_is_stopped_at_max_seconds_with_its_child_that_ignores_sigint() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    // The child ignores SIGINT (and SIGTERM); the program waits for it.
    let script = format!(
        "trap '' INT TERM; sleep 1000 & echo $$ > {p}; echo $! >> {p}; echo started; wait",
        p = pids.display()
    );
    let app = scenario(
        dir.path(),
        serde_json::json!(["sh", "-c", script]),
        ", \"max_seconds\": 1, \"stop_grace_ms\": 200",
    );
    let out = conclave(&["run", &app, "--headless", "--no-record"]);
    assert_eq!(out.status.code(), Some(3));
    let run = result(&out);
    assert_eq!(run["status"], "stopped");
    assert_eq!(run["stop_reason"], "max_seconds");
    assert_eq!(
        run["signal"], "SIGKILL",
        "neither SIGINT nor SIGTERM ended it: {run}"
    );
    assert_eq!(run["output"]["lines"][0]["text"], "started");
    let pids: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2);
    assert_eq!(survivors(&pids, Duration::from_secs(5)), Vec::<i32>::new());
}

#[test]
fn a_program_printing_100_mb_is_read_to_its_end_and_only_its_tail_is_kept() {
    let script = "import sys\nline = 'x' * 99 + '\\n'\nw = sys.stdout.write\nfor _ in range(1_000_000): w(line)\nprint('the end')";
    let out = conclave(&[
        "launch",
        "--headless",
        "--no-record",
        "--",
        "python3",
        "-c",
        script,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = result(&out);
    let lines = run["output"]["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 200);
    assert_eq!(lines.last().unwrap()["text"], "the end");
    let not_kept = run["output"]["lines_not_kept"].as_u64().unwrap();
    assert_eq!(not_kept, 1_000_001 - 200, "every line counted, kept or not");
}

#[test]
fn a_sweep_of_a_program_counts_its_outcomes_by_the_flag_as_its_code_says() {
    let dir = tempfile::tempdir().unwrap();
    let app = hooked(dir.path(), "sweep_program.py", "{}");
    let out = conclave(&[
        "sweep",
        &app,
        "--seeds",
        "1..10",
        "--flag",
        "legal_analyst=on,off",
        "--headless",
        "--parallel",
        "4",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sweep = result(&out);
    let combos = sweep["combinations"].as_array().unwrap();
    assert_eq!(combos.len(), 2);
    assert_eq!(
        combos[0]["flags"],
        serde_json::json!({"legal_analyst": true})
    );
    assert_eq!(combos[0]["runs"], 10);
    assert_eq!(
        combos[0]["outcomes"],
        serde_json::json!({"ok/completed": 10})
    );
    assert_eq!(
        combos[1]["flags"],
        serde_json::json!({"legal_analyst": false})
    );
    assert_eq!(
        combos[1]["outcomes"],
        serde_json::json!({"ok/completed": 5, "failed/exit_status": 5})
    );
    assert_eq!(
        combos[1]["exit_statuses"],
        serde_json::json!({"0": 5, "3": 5})
    );
    let unknown = conclave(&[
        "sweep",
        &app,
        "--seeds",
        "1..2",
        "--flag",
        "legl=on,off",
        "--headless",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown flag \"legl\""));
}
