//! `conclave sweep --from REC --at GATE --headless`: every run is a fork of
//! the recorded run at that gate. Its counts equal those of the same forks
//! made one by one with `conclave fork --headless`; its document says
//! where it swept from; a sweep that cannot fork exits 2 naming the file
//! and what was expected.

use crate::common;

use common::cli::{conclave, result};
use common::real::stderr;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A recording of the shipped checkout scenario (seed 1) in `dir`.
pub(crate) fn recorded(dir: &Path) -> PathBuf {
    let recording = dir.join("checkout.jsonl");
    let out = conclave(&[
        "run",
        "scenarios/checkout_v2_launch.json",
        "--headless",
        "--seed",
        "1",
        "--record",
        recording.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    recording
}

/// The sweep's words for a run from a point of `recording`.
pub(crate) fn sweep_args(recording: &Path) -> Vec<String> {
    [
        "sweep",
        "--from",
        recording.to_str().unwrap(),
        "--at",
        "round 2",
        "--seeds",
        "1..3",
        "--flag",
        "legal_analyst=on,off",
        "--headless",
    ]
    .map(String::from)
    .to_vec()
}

/// Per flag value, the outcomes of forking `recording` at round 2 by hand
/// for seeds 1 to 3, keyed as the sweep keys them, and the tokens used.
pub(crate) fn by_hand(recording: &Path, on: bool) -> (BTreeMap<String, u64>, u64, u64) {
    let mut outcomes = BTreeMap::new();
    let (mut input, mut output) = (0, 0);
    for seed in 1..=3 {
        let flag = format!("legal_analyst={}", if on { "on" } else { "off" });
        let seed = seed.to_string();
        let out = conclave(&[
            "fork",
            recording.to_str().unwrap(),
            "--at",
            "round 2",
            "--seed",
            &seed,
            "--flag",
            &flag,
            "--headless",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let run = result(&out);
        let key = format!(
            "{}/{}/{}",
            run["status"].as_str().unwrap(),
            run["stop_reason"].as_str().unwrap(),
            run["final_decision"].as_str().unwrap_or("-")
        );
        *outcomes.entry(key).or_default() += 1;
        input += run["usage"]["input_tokens"].as_u64().unwrap();
        output += run["usage"]["output_tokens"].as_u64().unwrap();
    }
    (outcomes, input, output)
}

/// The document's combinations hold the outcomes and tokens of the forks
/// made by hand, and its `from` names the recording, its run and the gate.
pub(crate) fn assert_forks_by_hand(document: &Value, recording: &Path) {
    assert_eq!(document["runs"], 6);
    assert_eq!(document["seeds"], json!({"from": 1, "to": 3}));
    assert_eq!(
        document["from"],
        json!({"file": recording.to_str().unwrap(), "run": 1, "gate": "round 2"})
    );
    let combinations = document["combinations"].as_array().unwrap();
    assert_eq!(combinations.len(), 2);
    let mut inputs = Vec::new();
    for (combination, on) in combinations.iter().zip([true, false]) {
        assert_eq!(combination["flags"], json!({"legal_analyst": on}));
        let (outcomes, input, output) = by_hand(recording, on);
        let counted: BTreeMap<String, u64> =
            serde_json::from_value(combination["outcomes"].clone()).unwrap();
        assert_eq!(counted, outcomes, "legal_analyst={on}");
        assert_eq!(combination["tokens"]["input"]["total"], input);
        assert_eq!(combination["tokens"]["output"]["total"], output);
        inputs.push(input);
    }
    assert_ne!(
        inputs[0], inputs[1],
        "the flag set at the gate changes the live part"
    );
}

#[test]
fn a_sweep_from_a_point_counts_what_each_fork_by_hand_gives() {
    let dir = tempfile::tempdir().unwrap();
    let recording = recorded(dir.path());
    let out = conclave(
        &sweep_args(&recording)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_forks_by_hand(&result(&out), &recording);
}

#[test]
fn a_sweep_that_cannot_fork_exits_2_naming_the_file_and_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let recording = recorded(dir.path());
    let file = recording.to_str().unwrap();
    // The same run, recorded before calls kept what they answered.
    let old = dir.path().join("old.jsonl");
    crate::common::made_before_cassettes(&recording, &old);
    let old_file = old.to_str().unwrap();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec![
                "sweep",
                "scenarios/checkout_v2_launch.json",
                "--at",
                "round 2",
                "--seeds",
                "1..2",
                "--headless",
            ],
            vec!["scenarios/checkout_v2_launch.json", "--from REC.jsonl"],
        ),
        (
            vec![
                "sweep",
                "--from",
                file,
                "--at",
                "round 9",
                "--seeds",
                "1..2",
                "--headless",
            ],
            vec![file, "--at \"round 9\""],
        ),
        (
            vec![
                "sweep",
                "--from",
                old_file,
                "--at",
                "round 2",
                "--seeds",
                "1..2",
                "--headless",
            ],
            vec![old_file, "without what it asked and answered"],
        ),
        (
            vec![
                "sweep",
                "--from",
                file,
                "--at",
                "round 2",
                "--seeds",
                "1..2",
                "--flag",
                "nope=on,off",
                "--headless",
            ],
            vec![file, "unknown flag \"nope\""],
        ),
        (
            vec!["sweep", "--from", file, "--seeds", "1..2", "--headless"],
            vec!["--at"],
        ),
    ];
    for (args, expected) in cases {
        let out = conclave(&args);
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        for words in expected {
            assert!(said.contains(words), "{args:?}: {words:?} in {said}");
        }
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
