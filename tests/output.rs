//! What every command does with its output when the other end misbehaves: a
//! reader that goes away (`… | head -c 100`) ends it quietly with status
//! 141, a full disk (`> /dev/full`) with one line on stderr and status 1,
//! and neither panics. Text from a model or a scenario never reaches stdout
//! or stderr raw. Paths the user gave that cannot be used exit 2.

use crate::common;

use common::cli::{conclave, result};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const CHECKOUT: &str = "scenarios/checkout_v2_launch.json";

fn binary() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// Run with stdout on a pipe whose reader reads `first` bytes and then
/// goes away; stderr is collected.
fn reader_leaves_after(args: &[&str], first: usize) -> Output {
    let mut child = binary()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdout = child.stdout.take().unwrap();
    let mut head = vec![0; first];
    stdout
        .read_exact(&mut head)
        .expect("the first bytes arrive");
    drop(stdout);
    child.wait_with_output().unwrap()
}

/// Run with stdout on /dev/full, where every write fails with ENOSPC.
#[cfg(target_os = "linux")]
fn onto_a_full_disk(args: &[&str]) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    binary()
        .args(args)
        .stdout(Stdio::from(full))
        .output()
        .unwrap()
}

/// What may not reach a terminal raw: C0 (ESC among them), DEL, C1 and the
/// bidi controls.
fn steers(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{61c}' | '\u{200e}' | '\u{200f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The checkout launch with the demand analyst's summaries `size` bytes
/// long, so that the result is bigger than any pipe's buffer.
fn large_scenario(dir: &Path, size: usize) -> PathBuf {
    let mut scenario: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(CHECKOUT)).unwrap(),
    )
    .unwrap();
    for round in scenario["provider"]["responses"]["demand_analyst"]
        .as_array_mut()
        .unwrap()
    {
        round["summary"] = Value::from("long ".repeat(size / 5));
    }
    let file = dir.join("large.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    file
}

/// Every command, each with a result on stdout: `(what, arguments, result
/// is larger than a pipe's buffer)`.
fn commands(dir: &Path) -> Vec<(&'static str, Vec<String>, bool)> {
    let large = large_scenario(dir, 1 << 20);
    let large = large.to_str().unwrap();
    let recording = dir.join("large.jsonl");
    let recording = recording.to_str().unwrap();
    let made = conclave(&["run", large, "--headless", "--record", recording]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let owned = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![
        ("run", owned(&["run", CHECKOUT, "--headless"]), false),
        ("large run", owned(&["run", large, "--headless"]), true),
        ("replay", owned(&["replay", recording, "--headless"]), true),
        ("schema", owned(&["schema"]), false),
        (
            "validate",
            owned(&["validate", CHECKOUT, "scenarios/support_swarm.json"]),
            false,
        ),
        ("help", owned(&["--help"]), false),
    ]
}

#[test]
fn a_reader_that_goes_away_ends_the_command_quietly_with_141() {
    let dir = tempfile::tempdir().unwrap();
    for (what, args, large) in commands(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // Gone before the first write, and (where the result is larger than
        // the pipe's buffer, so the rest is written after) gone mid-way.
        let firsts: &[usize] = if large { &[0, 100] } else { &[0] };
        for &first in firsts {
            let output = reader_leaves_after(&args, first);
            assert_eq!(
                output.status.code(),
                Some(141),
                "{what} after {first} bytes: {}",
                stderr(&output)
            );
            let said = stderr(&output);
            let said_but_steps = said
                .lines()
                .filter(|l| !l.starts_with("round "))
                .collect::<Vec<_>>();
            assert!(
                said_but_steps.is_empty(),
                "{what} after {first} bytes:\n{said}"
            );
            assert!(!said.contains("panicked"), "{what}: {said}");
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_one_line_on_stderr_and_status_1() {
    let dir = tempfile::tempdir().unwrap();
    for (what, args, _) in commands(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = onto_a_full_disk(&args);
        assert_eq!(output.status.code(), Some(1), "{what}: {}", stderr(&output));
        let said = stderr(&output);
        assert!(!said.contains("panicked"), "{what}: {said}");
        // replay says its steps before the result; nothing else is said.
        let lines: Vec<&str> = said.lines().filter(|l| !l.starts_with("round ")).collect();
        assert_eq!(
            lines,
            ["conclave: cannot write to stdout: No space left on device (os error 28)"],
            "{what}"
        );
    }
}

#[test]
fn model_text_reaches_stdout_escaped_and_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let mut scenario: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(CHECKOUT)).unwrap(),
    )
    .unwrap();
    // A clipboard write, a title change, a screen wipe in 7-bit and 8-bit
    // form (C1 CSI), OSC and NEL as C1, bidi overrides and isolates, the
    // Arabic letter mark and DEL.
    let hostile = "Fine\u{1b}]52;c;cHduZWQ=\u{7} plan\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}2J\u{9d}0;t\u{9c}\u{85}\
                   \u{202e}gnirts\u{202c} \u{2066}iso\u{2069}\u{61c}\u{200f}\u{7f} ok";
    for round in scenario["provider"]["responses"]["demand_analyst"]
        .as_array_mut()
        .unwrap()
    {
        round["summary"] = Value::from(hostile);
        round["actions"][0] = Value::from(hostile);
    }
    let file = dir.path().join("hostile.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let recording = dir.path().join("hostile.jsonl");

    let run = conclave(&[
        "run",
        file.to_str().unwrap(),
        "--headless",
        "--record",
        recording.to_str().unwrap(),
    ]);
    let replay = conclave(&["replay", recording.to_str().unwrap(), "--headless"]);
    for (what, output) in [("run", &run), ("replay", &replay)] {
        assert_eq!(output.status.code(), Some(0), "{what}: {}", stderr(output));
        let text = std::str::from_utf8(&output.stdout).unwrap();
        let raw: Vec<char> = text.chars().filter(|&c| steers(c) && c != '\n').collect();
        assert!(raw.is_empty(), "{what}: {raw:?} reached stdout raw");
        let r = result(output);
        for contribution in [
            &r["history"][0]["contributions"][0],
            &r["history"][1]["contributions"][0],
        ] {
            assert_eq!(contribution["summary"], hostile, "{what}");
            assert_eq!(contribution["actions"][0], hostile, "{what}");
        }
    }
    assert_eq!(result(&run), result(&replay));
}

#[test]
fn names_and_messages_reach_stderr_cleaned() {
    let dir = tempfile::tempdir().unwrap();
    // A file name is the user's, and may hold anything but '/' and NUL.
    let name = "bad\u{1b}]0;pwned\u{7}\u{9b}31m\u{202e}nosj.json";
    let file = dir.path().join(name);
    std::fs::write(&file, "{\"name\": ").unwrap();
    for args in [
        vec!["validate", file.to_str().unwrap()],
        vec!["run", file.to_str().unwrap(), "--headless"],
    ] {
        let output = conclave(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let said = stderr(&output);
        assert!(
            said.contains("badnosj.json"),
            "the name is still there, cleaned: {said:?}"
        );
        assert!(!said.chars().any(|c| steers(c) && c != '\n'), "{said:?}");
    }
}

#[test]
fn every_path_the_user_gave_that_cannot_be_used_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let missing = missing.to_str().unwrap();
    let folder = dir.path().to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", missing, "--headless"],
        vec!["run", folder, "--headless"],
        vec!["run", missing],
        vec!["tui", missing],
        vec!["tui", folder],
        vec!["replay", missing, "--headless"],
        vec!["replay", folder, "--headless"],
        vec!["replay", missing],
        vec!["validate", missing],
        vec!["validate", folder],
        vec!["validate", CHECKOUT, missing],
        vec!["run", CHECKOUT, "--headless", "--prompts", missing],
        vec!["run", CHECKOUT, "--headless", "--prompts", CHECKOUT],
        vec!["tui", CHECKOUT, "--prompts", missing],
    ];
    for args in cases {
        let output = conclave(&args);
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(
            said.contains("missing.json") || said.contains(folder) || said.contains(CHECKOUT),
            "{args:?} names the path: {said}"
        );
        assert!(!said.contains("panicked"), "{args:?}: {said}");
        if args[0] != "validate" {
            assert!(output.stdout.is_empty(), "{args:?}");
        }
    }
}
