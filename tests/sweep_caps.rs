//! A sweep's size is counted from its arguments before anything is made:
//! a range or a set of flag combinations past the cap is refused at once
//! (exit 2, naming the flag, the count and the cap) within a small memory
//! limit, a raised cap makes runs one at a time, and `--parallel` asks
//! for at most its maximum of threads and goes on with those the system
//! gives. The built binary runs under real limits (`setrlimit`).

use crate::common;

use common::bounded::{self, Finished};
use common::real::{Sandbox, toolbox};
use serde_json::{Value, json};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const CHECKOUT: &str = "scenarios/checkout_v2_launch.json";

/// Address space the binary may map: a sweep of a few runs needs far
/// less; a billion jobs made at once need 64 GB.
const ADDRESS_SPACE: u64 = 512 * 1024 * 1024;

/// What a run of the binary left: its end and both streams.
struct Ran {
    finished: Finished,
    stdout: String,
    stderr: String,
}

/// `conclave` with `args` from the project's folder, under `limit`
/// (applied in the child before it runs the binary), given at most a
/// minute (it takes milliseconds).
fn conclave_limited(
    args: &[&str],
    env: &[(&str, &str)],
    limit: impl Fn() -> std::io::Result<()> + Send + Sync + 'static,
) -> Ran {
    let out = tempfile::tempdir().unwrap();
    let (stdout, stderr) = (out.path().join("stdout"), out.path().join("stderr"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CONCLAVE_MAX_SWEEP_RUNS")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap());
    for (key, value) in env {
        command.env(key, value);
    }
    // SAFETY: the closure only calls async-signal-safe functions
    // (setrlimit, setgroups, setgid, setuid) and touches only the child.
    unsafe { command.pre_exec(limit) };
    let finished = bounded::run(command, Duration::from_secs(60), &args.join(" "));
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    Ran {
        finished,
        stdout: read(&stdout),
        stderr: read(&stderr),
    }
}

fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    // SAFETY: a valid rlimit for this process.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// `conclave` with `args` in at most [`ADDRESS_SPACE`] of memory.
fn in_small_memory(args: &[&str], env: &[(&str, &str)]) -> Ran {
    conclave_limited(args, env, || set_limit(libc::RLIMIT_AS, ADDRESS_SPACE))
}

/// Refused as a bad argument: exit 2, nothing on stdout, no panic.
fn refused(ran: &Ran) -> &str {
    assert_eq!(
        (ran.finished.exit, ran.finished.signal),
        (Some(2), None),
        "{}",
        ran.stderr
    );
    assert!(ran.stdout.is_empty(), "nothing on stdout: {}", ran.stdout);
    assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
    &ran.stderr
}

#[test]
fn the_whole_range_of_seeds_is_refused_naming_the_count_and_the_cap() {
    let ran = in_small_memory(
        &[
            "sweep",
            CHECKOUT,
            "--seeds",
            "0..18446744073709551615",
            "--headless",
        ],
        &[],
    );
    let err = refused(&ran);
    assert!(
        err.contains("--seeds 0..18446744073709551615 makes 18446744073709551616 runs")
            && err.contains("more than the 1000000 a sweep may make")
            && err.contains("CONCLAVE_MAX_SWEEP_RUNS"),
        "{err}"
    );
}

#[test]
fn a_billion_seeds_are_refused_at_once_in_small_memory() {
    let ran = in_small_memory(
        &["sweep", CHECKOUT, "--seeds", "1..1000000000", "--headless"],
        &[],
    );
    let err = refused(&ran);
    assert!(
        err.contains("--seeds 1..1000000000 makes 1000000000 runs") && err.contains("1000000"),
        "{err}"
    );
}

/// A scenario declaring `n` flags, `f0` to `f<n-1>`, that change nothing.
fn with_flags(sandbox: &Sandbox, n: usize) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(CHECKOUT)).unwrap()).unwrap();
    for i in 0..n {
        doc["flags"][format!("f{i}")] = json!({"default": false, "description": "nothing"});
    }
    let path = sandbox.write("flags.json", &doc);
    path.to_str().unwrap().to_string()
}

#[test]
fn forty_flags_on_and_off_are_counted_not_made() {
    let sandbox = Sandbox::new();
    let file = with_flags(&sandbox, 40);
    let mut args = vec!["sweep", &file, "--seeds", "1", "--headless"];
    let values: Vec<String> = (0..40).map(|i| format!("f{i}=on,off")).collect();
    for value in &values {
        args.extend(["--flag", value.as_str()]);
    }
    let ran = in_small_memory(&args, &[]);
    let err = refused(&ran);
    assert!(
        err.contains(
            "--seeds 1..1 (1 seed) under the values of 40 --flags (1099511627776 combinations) makes 1099511627776 runs"
        ) && err.contains("more than the 1000000"),
        "{err}"
    );
}

#[test]
fn the_cap_is_changed_by_its_variable_and_a_bad_one_is_refused() {
    let four = [
        "sweep",
        CHECKOUT,
        "--seeds",
        "1..2",
        "--flag",
        "legal_analyst=on,off",
        "--headless",
    ];
    let ran = in_small_memory(&four, &[("CONCLAVE_MAX_SWEEP_RUNS", "3")]);
    let err = refused(&ran);
    assert!(
        err.contains("(2 combinations) makes 4 runs, more than the 3 a sweep may make"),
        "{err}"
    );
    let ran = in_small_memory(&four, &[("CONCLAVE_MAX_SWEEP_RUNS", "4")]);
    assert_eq!(ran.finished.exit, Some(0), "{}", ran.stderr);
    let document: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(document["runs"], 4);
    let ran = in_small_memory(&four, &[("CONCLAVE_MAX_SWEEP_RUNS", "lots")]);
    let err = refused(&ran);
    assert!(
        err.contains("CONCLAVE_MAX_SWEEP_RUNS: expected a whole number of runs")
            && err.contains("\"lots\""),
        "{err}"
    );
}

#[test]
fn under_a_raised_cap_a_billion_runs_are_made_one_at_a_time() {
    // Its first run cannot start (its program is not allowed): the sweep
    // stops there, having made only the jobs its threads took.
    let sandbox = Sandbox::new();
    let scenario = json!({
        "name": "marks", "pattern": "orchestrator", "goal": "Run the marker.",
        "context": {"report_date": "2026-03-20", "region": "US"},
        "workers": {"marker_worker": {"command": {"argv": toolbox(&[
            "echo", "--touch", sandbox.path("ran").to_str().unwrap()])}}},
        "provider": {"kind": "sim", "final_answer": "Done."}
    });
    let path = sandbox.write("marks.json", &scenario);
    let state = sandbox.state();
    let ran = in_small_memory(
        &[
            "sweep",
            path.to_str().unwrap(),
            "--seeds",
            "1..1000000000",
            "--headless",
        ],
        &[
            ("CONCLAVE_MAX_SWEEP_RUNS", "1000000000000"),
            ("XDG_STATE_HOME", state.to_str().unwrap()),
        ],
    );
    let err = refused(&ran);
    assert!(
        err.contains("marks.json") && err.contains("--allow-exec"),
        "{err}"
    );
}

#[test]
fn parallel_is_at_most_its_maximum_and_clamped_to_the_runs() {
    let ran = in_small_memory(
        &[
            "sweep",
            CHECKOUT,
            "--seeds",
            "1..3",
            "--parallel",
            "5000",
            "--headless",
        ],
        &[],
    );
    let err = refused(&ran);
    assert!(
        err.contains("--parallel") && err.contains("at most 1024") && err.contains("5000"),
        "{err}"
    );
    let ran = in_small_memory(
        &[
            "sweep",
            CHECKOUT,
            "--seeds",
            "1..3",
            "--parallel",
            "1024",
            "--headless",
        ],
        &[],
    );
    assert_eq!(ran.finished.exit, Some(0), "{}", ran.stderr);
    let document: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(document["runs"], 3);
}

/// A user id no process has, so that its count of processes is the
/// child's alone.
const LONELY_UID: u32 = 61_237;

/// Held while a child runs as [`LONELY_UID`]: two such children at once
/// would count each other's processes, and the second's `exec` would fail
/// for a limit meant for its threads.
static LONELY: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `conclave` with `args` as a user who may have at most `tasks`
/// processes and threads: the child becomes [`LONELY_UID`] when this test
/// runs as root (whose own limit the system does not apply), else stays
/// this user (who has other processes, so only a limit of 1 is known).
fn with_few_threads(args: &[&str], tasks: u64) -> Ran {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let _alone = LONELY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    conclave_limited(args, &[], move || {
        set_limit(libc::RLIMIT_NPROC, tasks)?;
        if root {
            // SAFETY: plain system calls on this (child) process.
            unsafe {
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(LONELY_UID) != 0
                    || libc::setuid(LONELY_UID) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
        }
        Ok(())
    })
}

#[test]
fn a_sweep_the_system_gives_no_thread_ends_saying_so() {
    let ran = with_few_threads(
        &[
            "sweep",
            CHECKOUT,
            "--seeds",
            "1..8",
            "--parallel",
            "4",
            "--headless",
        ],
        1,
    );
    assert_eq!(
        (ran.finished.exit, ran.finished.signal),
        (Some(1), None),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("conclave: cannot start a thread for the sweep's runs")
            && !ran.stderr.contains("panicked"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_sweep_given_fewer_threads_than_asked_runs_on_those_it_has() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        // Only root can run the child as a user without other processes,
        // whose count of threads is then known.
        eprintln!("skipped: needs root to run the binary as a user of its own");
        return;
    }
    let ran = with_few_threads(
        &[
            "sweep",
            CHECKOUT,
            "--seeds",
            "1..40",
            "--parallel",
            "40",
            "--headless",
        ],
        4,
    );
    assert_eq!(
        (ran.finished.exit, ran.finished.signal),
        (Some(0), None),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("conclave: the system gave ")
            && ran.stderr.contains(" of the 40 threads asked for")
            && !ran.stderr.contains("panicked"),
        "{}",
        ran.stderr
    );
    let document: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(document["runs"], 40, "every run, on the threads given");
}
