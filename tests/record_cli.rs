//! `--record` as a user meets it: a path that cannot be written is refused
//! before the run (exit 2, naming the path and why), with or without the
//! dashboard; a recording that fails while written leaves the run's result
//! on stdout, says so in one line and exits 1; the dashboard records its
//! run to the file asked for. And replays of research runs list their steps.

use crate::common;

use common::cli::{conclave, result};
use common::pty::{Session, recordings};
use serde_json::Value;

const CHECKOUT: &str = "scenarios/checkout_v2_launch.json";

#[test]
fn a_path_that_cannot_be_recorded_to_exits_2_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.txt");
    std::fs::write(&plain, "keep me").unwrap();
    let cases = [
        (
            dir.path().join("no/such/run.jsonl"),
            format!(
                "the folder {} does not exist",
                dir.path().join("no/such").display()
            ),
        ),
        (dir.path().to_path_buf(), "it is a folder".to_string()),
        (
            plain.join("run.jsonl"),
            format!("{} is not a folder", plain.display()),
        ),
    ];
    for (path, reason) in &cases {
        let shown = path.to_str().unwrap();
        for headless in [true, false] {
            let mut args = vec!["run", CHECKOUT, "--record", shown];
            if headless {
                args.push("--headless");
            }
            let output = conclave(&args);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
            assert!(output.stdout.is_empty(), "{args:?}: nothing ran");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                stderr.trim_end(),
                format!("conclave: cannot record to {shown}: {reason}"),
                "{args:?}"
            );
        }
    }
    assert!(!dir.path().join("no").exists(), "no folder was made");
    assert_eq!(std::fs::read_to_string(&plain).unwrap(), "keep me");

    let output = conclave(&["run", CHECKOUT, "--record", "x.jsonl", "--no-record"]);
    assert_eq!(output.status.code(), Some(2));
}

#[cfg(target_os = "linux")]
#[test]
fn a_recording_that_fails_keeps_the_result_and_exits_1() {
    let expected = result(&conclave(&["run", CHECKOUT, "--headless"]));
    let output = conclave(&["run", CHECKOUT, "--headless", "--record", "/dev/full"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(
        result(&output),
        expected,
        "the result is printed all the same"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        ["conclave: the recording /dev/full is incomplete: No space left on device (os error 28)"]
    );
}

#[test]
fn a_research_replay_prints_a_line_per_step() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("research.jsonl");
    let recorded = conclave(&[
        "run",
        "scenarios/payments_incident_research.json",
        "--headless",
        "--record",
        path.to_str().unwrap(),
    ]);
    assert_eq!(recorded.status.code(), Some(0));
    let output = conclave(&["replay", path.to_str().unwrap(), "--headless"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(result(&output), result(&recorded));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "step 1 plan done: 5 steps",
            "step 2 search done: 6 candidates",
            "step 3 dedupe done: 4 sources",
            "step 4 read_extract done: 2 notes",
            "step 5 verify done: 2 checked",
            "step 6 synthesize done: 2 citations",
        ]
    );
}

#[test]
fn the_dashboard_records_its_run_to_the_file_asked_for() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("mine.jsonl");
    let mut session = Session::start(
        &["run", CHECKOUT, "--record", file.to_str().unwrap()],
        home.path(),
    );
    session.wait_text("FINISHED");
    session.press("q");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");

    let events: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["seq"], i as u64 + 1);
    }
    assert_eq!(events[0]["type"], "run_started");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "run_finished");
    assert_eq!(last["result"]["final_decision"], "go_with_caution");
    assert!(
        recordings(home.path()).is_empty(),
        "the run went to the file, not to the runs folder"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn the_dashboard_says_when_its_recording_failed_and_exits_1() {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(&["run", CHECKOUT, "--record", "/dev/full"], home.path());
    session.wait_text("FINISHED");
    session.press("q");
    let status = session.wait_exit();
    assert_eq!(status.exit_code(), 1, "{status:?}");
    session.wait_text("conclave: the recording /dev/full is incomplete: No space left on device");
}
