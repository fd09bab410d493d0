//! The real binary against the hostile scenario corpus (truncated files,
//! wrong types at every field of every shipped scenario, durations out of
//! range, repeated keys, byte-order marks, NULs, invalid UTF-8, nesting
//! 100000 deep, huge strings and lists, unknown fields, undeclared names,
//! files past the size cap): `validate` of each file, and `run --headless`
//! of each but most per-field files (which it reads as `validate` does),
//! exit 2 with an error that names the file and a line and column, never
//! panic, and never hang.

#[path = "hostile_scenarios/bytes.rs"]
mod bytes;
#[path = "hostile_scenarios/corpus.rs"]
mod corpus;

use corpus::Case;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Far longer than any of these runs takes: a hang detector, not a timer.
const BOUND: Duration = Duration::from_secs(20);

/// What [`BOUND`] grows by for each file one `validate` is given.
const PER_FILE: Duration = Duration::from_millis(100);

struct Finished {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Run `conclave` with `args`; a run still going after [`BOUND`] is killed
/// and fails the test as a hang.
fn conclave(args: &[&str], env: &[(&str, String)]) -> Finished {
    conclave_within(args, env, BOUND)
}

/// [`conclave`], killed as hung after `bound`.
fn conclave_within(args: &[&str], env: &[(&str, String)], bound: Duration) -> Finished {
    let mut child = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let drain = |mut stream: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            stream.read_to_end(&mut bytes).ok();
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let pid = child.id();
    let (done, waited) = mpsc::channel();
    std::thread::spawn(move || done.send(child.wait()));
    let status = match waited.recv_timeout(bound) {
        Ok(status) => status.expect("the binary is waited for"),
        Err(_) => {
            // SAFETY: `pid` is the child this test started and has not reaped.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            panic!("conclave {args:?} still runs after {bound:?}");
        }
    };
    Finished {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// What is wrong with how `conclave` refused `file`, if anything: `status`
/// is the process's, `stdout` and `stderr` what it printed about `file`.
fn misbehaviour(
    case: &Case,
    file: &str,
    status: ExitStatus,
    stdout: &str,
    stderr: &str,
) -> Option<String> {
    let problem = if status.code() != Some(2) {
        format!("exit status {status:?}, not 2")
    } else if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        "panic text on stderr".to_string()
    } else if !stdout.is_empty() {
        "output on stdout".to_string()
    } else if stderr.is_empty() {
        "no error".to_string()
    } else if !stderr.lines().all(|line| line.starts_with(file)) {
        "an error that does not start with the file's name".to_string()
    } else if case.placed && !has_place(stderr, file) {
        "no line:column after the file's name".to_string()
    } else if case.says.is_some_and(|says| !stderr.contains(says)) {
        format!("no {:?} in the error", case.says.unwrap())
    } else {
        return None;
    };
    let shown: String = stderr.chars().take(600).collect();
    Some(format!(
        "{} ({}): {problem}\n{shown}",
        case.name, case.class
    ))
}

/// Whether the first error reads `FILE:LINE:COLUMN: ` with both from 1.
fn has_place(stderr: &str, file: &str) -> bool {
    let Some(rest) = stderr.strip_prefix(file).and_then(|r| r.strip_prefix(':')) else {
        return false;
    };
    let mut numbers = rest.splitn(3, ':');
    let mut number = || numbers.next().and_then(|n| n.parse::<usize>().ok());
    matches!((number(), number()), (Some(line), Some(column)) if line >= 1 && column >= 1)
}

/// `stderr`'s lines by the file of `files` each starts with (`FILE:`), each
/// file's joined as a `validate` of it alone prints them; the lines that
/// start with none of them apart.
fn by_file<'a>(stderr: &'a str, files: &[&'a str]) -> (BTreeMap<&'a str, String>, Vec<&'a str>) {
    let mut lines: BTreeMap<&str, String> = BTreeMap::new();
    let mut strays = Vec::new();
    for line in stderr.lines() {
        let named = files.iter().find(|file| {
            line.strip_prefix(**file)
                .is_some_and(|rest| rest.starts_with(':'))
        });
        match named {
            Some(file) => {
                let said = lines.entry(*file).or_default();
                said.push_str(line);
                said.push('\n');
            }
            None => strays.push(line),
        }
    }
    (lines, strays)
}

/// A batch's errors reach the file they name, a file whose name begins
/// another's keeps only its own, and a line naming no file of the batch
/// (a panic's) is kept apart, where the corpus test fails on it.
#[test]
fn a_batchs_errors_are_told_apart_by_file() {
    let stderr = "d/a.json:3:5: expected a number\n\
                  d/a.json.json:1:1: not valid JSON\n\
                  thread 'main' panicked at src/x.rs:1:1\n\
                  d/a.json: and 2 more errors\n";
    let (lines, strays) = by_file(stderr, &["d/a.json", "d/a.json.json", "d/b.json"]);
    assert_eq!(
        lines["d/a.json"],
        "d/a.json:3:5: expected a number\nd/a.json: and 2 more errors\n"
    );
    assert_eq!(
        lines["d/a.json.json"],
        "d/a.json.json:1:1: not valid JSON\n"
    );
    assert!(
        !lines.contains_key("d/b.json"),
        "a file with no line has none"
    );
    assert_eq!(strays, ["thread 'main' panicked at src/x.rs:1:1"]);
    let case = corpus::corpus(false).remove(0);
    let exit_2 = Command::new("sh").args(["-c", "exit 2"]).status().unwrap();
    let failure = misbehaviour(&case, "d/b.json", exit_2, "", "");
    assert!(
        failure.as_ref().is_some_and(|f| f.contains("no error")),
        "a file of a batch that printed nothing about it fails: {failure:?}"
    );
}

/// The variables a case sets for the processes that read its file.
type Environment = [(&'static str, String)];

/// How `validate` and `run --headless` misbehaved on each file, if they did.
///
/// `validate` checks every file given to it, so the files that share an
/// environment go to one `validate` (one process per file would spend the
/// test's time starting processes); each file's lines are then held to what
/// a `validate` of that file alone must print. `run` takes one scenario, so
/// it runs once per file of [`run_too`]'s, and must print what `validate`
/// printed about it.
fn misbehaviours(cases: &[(Case, String)]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut validated: BTreeMap<&str, String> = BTreeMap::new();
    let mut by_env: BTreeMap<&Environment, Vec<&(Case, String)>> = BTreeMap::new();
    for entry in cases {
        by_env.entry(&entry.0.env).or_default().push(entry);
    }
    for (env, together) in by_env {
        let files: Vec<&str> = together.iter().map(|(_, file)| file.as_str()).collect();
        let args: Vec<&str> = std::iter::once("validate")
            .chain(files.iter().copied())
            .collect();
        // A hang detector still: a file takes milliseconds to check.
        let bound = BOUND + PER_FILE * files.len() as u32;
        let finished = conclave_within(&args, env, bound);
        let (lines, strays) = by_file(&finished.stderr, &files);
        failures.extend(strays.into_iter().map(|line| {
            format!(
                "validate of {} files: a line that names none of them: {line}",
                files.len()
            )
        }));
        for (case, file) in together {
            let stderr = lines.get(file.as_str()).map_or("", String::as_str);
            failures.extend(misbehaviour(
                case,
                file,
                finished.status,
                &finished.stdout,
                stderr,
            ));
            validated.insert(file.as_str(), stderr.to_string());
        }
    }
    for (case, file) in run_too(cases) {
        let finished = conclave(&["run", file.as_str(), "--headless"], &case.env);
        failures.extend(misbehaviour(
            case,
            file,
            finished.status,
            &finished.stdout,
            &finished.stderr,
        ));
        if finished.stderr != validated[file.as_str()] {
            failures.push(format!(
                "{} ({}): run printed what validate did not\nrun: {}\nvalidate: {}",
                case.name,
                case.class,
                finished.stderr,
                validated[file.as_str()]
            ));
        }
    }
    failures
}

/// The files `run --headless` is given as well as `validate`: every file
/// of the classes about a file's bytes, shape and size, and of the classes
/// made for every field of every shipped scenario (cuts, wrong types,
/// unknown fields: nine in ten of the corpus), each scenario's first. Both
/// commands read a scenario through one function and print its errors
/// alike, which each file run is held to; a process for each of the
/// thousand per-field files was most of the test's time.
fn run_too(cases: &[(Case, String)]) -> Vec<&(Case, String)> {
    let mut seen = std::collections::BTreeSet::new();
    cases
        .iter()
        .filter(|(case, _)| {
            let per_field = ["truncated", "wrong type", "unknown field"].contains(&case.class);
            let scenario = case.name.split('.').next().unwrap_or_default();
            !per_field || seen.insert((case.class, scenario))
        })
        .collect()
}

#[test]
fn every_hostile_scenario_is_refused_with_a_place_and_exit_2() {
    refused_with_a_place_and_exit_2(corpus::corpus(false));
}

/// The same with a wrong type at every field of every shipped scenario,
/// however deep (about a thousand files, two processes each).
#[test]
#[ignore = "the full corpus: cargo test --test all hostile_scenarios:: -- --ignored"]
fn every_field_of_every_shipped_scenario_refuses_a_wrong_type() {
    refused_with_a_place_and_exit_2(corpus::corpus(true));
}

fn refused_with_a_place_and_exit_2(cases: Vec<Case>) {
    let dir = tempfile::tempdir().unwrap();
    let mut per_class: BTreeMap<&str, usize> = BTreeMap::new();
    for case in &cases {
        *per_class.entry(case.class).or_default() += 1;
    }
    assert!(cases.len() >= 150, "{} cases", cases.len());
    for class in [
        "truncated",
        "wrong type",
        "duration",
        "duplicate key",
        "bom",
        "nul",
        "utf8",
        "deep",
        "huge string",
        "unknown field",
        "undeclared",
        "size cap",
    ] {
        assert!(
            per_class.contains_key(class),
            "no {class} case: {per_class:?}"
        );
    }
    let cases: Vec<(Case, String)> = cases
        .into_iter()
        .map(|case| {
            let path = dir.path().join(format!("{}.json", case.name));
            std::fs::write(&path, &case.bytes).unwrap();
            (case, path.display().to_string())
        })
        .collect();
    // Two at a time, as the machine has two cores.
    let (left, right) = cases.split_at(cases.len() / 2);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let other = scope.spawn(|| misbehaviours(right));
        let mut failures = misbehaviours(left);
        failures.extend(other.join().unwrap());
        failures
    });
    assert!(
        failures.is_empty(),
        "{} of {} files misbehaved ({per_class:?}):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// An endless file costs no more than one at the cap, and the error names
/// the cap.
#[test]
fn an_endless_file_is_refused_at_the_cap() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    for args in [
        vec!["validate", "/dev/zero"],
        vec!["run", "/dev/zero", "--headless"],
    ] {
        let finished = conclave(&args, &[]);
        assert_eq!(finished.status.code(), Some(2), "{}", finished.stderr);
        assert!(
            finished.stderr.starts_with("/dev/zero:1:67108865: ")
                && finished
                    .stderr
                    .contains("larger than the 64 MB (67108864 bytes) cap on scenario files")
                && finished.stderr.contains("CONCLAVE_MAX_SCENARIO_BYTES"),
            "{}",
            finished.stderr
        );
    }
}

/// A file within a raised cap loads.
#[test]
fn the_cap_can_be_raised() {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/checkout_v2_launch.json"
    );
    let size = std::fs::metadata(scenario).unwrap().len();
    let at = |cap: u64| {
        conclave(
            &["validate", scenario],
            &[("CONCLAVE_MAX_SCENARIO_BYTES", cap.to_string())],
        )
    };
    assert_eq!(at(size).status.code(), Some(0), "a file exactly at the cap");
    let below = at(size - 1);
    assert_eq!(below.status.code(), Some(2));
    assert!(
        below.stderr.contains("cap on scenario files"),
        "{}",
        below.stderr
    );
}
