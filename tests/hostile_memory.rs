//! An endless response body costs bounded memory: the real binary against
//! a loopback endpoint that never stops sending, its peak memory measured
//! by `wait4`. Each test runs in a process of its own ([`alone`]), so
//! that the process that starts the binary stays small: a child's measure
//! includes its parent's memory at the fork.

use crate::common;

use common::loopback::{Body, Loopback, Reply};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::Duration;

const KEY: &str = "sk-Mm4vQ8tR1yW6pZ3nC9kL2xB7hJ5dF0gS";

/// Whether this process runs test `name`; otherwise it runs in a process
/// of its own (`common::alone`).
fn alone(name: &str) -> bool {
    common::alone::here(module_path!(), name, &[])
}

fn endless_run(status: u16, cap: Option<&str>) -> (common::bounded::Finished, Value) {
    served_run(status, || Body::Endless, cap)
}

/// The binary against an endpoint that answers every call with `status`
/// and a fresh `body`.
fn served_run(
    status: u16,
    body: fn() -> Body,
    cap: Option<&str>,
) -> (common::bounded::Finished, Value) {
    let server = Loopback::serve(move |_, _| Reply::new(status, body()));
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("endless.json");
    let doc = json!({
        "name": "endless", "pattern": "collaboration", "goal": "g", "context": {},
        "budget": {"max_rounds": 1, "max_seconds": 30},
        "team": {"roles": {"risk_analyst": {}}, "sequence": ["risk_analyst"]},
        "provider": {"kind": "openai", "model": "m", "timeout_seconds": 60}
    });
    std::fs::write(&file, doc.to_string()).unwrap();
    let recording = work.path().join("run.jsonl");
    let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
    command
        .args(["run", "--headless", "--provider", "openai", "--base-url"])
        .arg(&server.base_url)
        .arg("--record")
        .arg(&recording)
        .arg(&file)
        .env("OPENAI_API_KEY", KEY)
        .env_remove("CONCLAVE_MAX_BODY_BYTES")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(cap) = cap {
        command.env("CONCLAVE_MAX_BODY_BYTES", cap);
    }
    let finished = common::bounded::run(command, Duration::from_secs(120), "an endless body");
    let last = std::fs::read_to_string(&recording)
        .unwrap()
        .lines()
        .last()
        .map(|line| serde_json::from_str(line).unwrap())
        .unwrap_or(Value::Null);
    (finished, last)
}

#[test]
fn an_endless_body_stops_at_the_cap_in_bounded_memory() {
    if !alone("an_endless_body_stops_at_the_cap_in_bounded_memory") {
        return;
    }
    // What this process holds already counts in the child's measure.
    let own = common::bounded::own_peak_kib();
    assert!(
        own < 32 * 1024,
        "this test process is too big to measure: {own} KiB"
    );
    // The same binary answered at once with a short reply that is not
    // JSON: what a run costs before any body is large. A debug build maps
    // tens of MiB of its own code, so only the growth over this is the
    // body's.
    let (small, last) = served_run(200, || Body::Bytes(b"not json".to_vec()), None);
    assert_eq!(last["stop_reason"], "llm_bad_response", "{last}");
    for (status, cap, stop, limit_mib) in [
        (200, None, "llm_bad_response", 40),
        (200, Some("65536"), "llm_bad_response", 8),
        (503, None, "llm_unavailable", 8),
    ] {
        let (finished, last) = endless_run(status, cap);
        assert_eq!(finished.exit, Some(3), "HTTP {status} {cap:?}: {last}");
        assert_eq!(last["type"], "run_finished");
        assert_eq!(last["stop_reason"], stop);
        let grown = finished.max_rss_kib - small.max_rss_kib;
        assert!(
            grown < limit_mib * 1024,
            "HTTP {status} with cap {cap:?}: peak memory {} KiB, {grown} KiB over a short reply's {} KiB",
            finished.max_rss_kib,
            small.max_rss_kib
        );
        eprintln!("HTTP {status} with cap {cap:?}: {grown} KiB over a short reply");
    }
}

/// Bytes of the shared context in [`big_context_run`].
const CONTEXT_BYTES: u64 = 20 << 20;

/// The shipped round table with a `context` of `bytes` of small objects
/// (`numbers`: of the number 1), written a piece at a time so that this
/// process stays small.
fn round_table_with_context(file: &std::path::Path, bytes: u64, numbers: bool) {
    use std::io::Write;
    let shipped = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/checkout_v2_launch.json"
    );
    let mut document: Value = serde_json::from_slice(&std::fs::read(shipped).unwrap()).unwrap();
    document["context"] = json!({"region": "US", "rows": "@rows@"});
    let text = serde_json::to_string_pretty(&document).unwrap();
    let (head, tail) = text.split_once("\"@rows@\"").unwrap();
    let mut out = std::io::BufWriter::new(std::fs::File::create(file).unwrap());
    out.write_all(head.as_bytes()).unwrap();
    out.write_all(b"[").unwrap();
    let mut written = (head.len() + tail.len()) as u64;
    let mut i = 0u64;
    while written < bytes {
        let item = match (numbers, i) {
            (true, 0) => "1".to_string(),
            (true, _) => ",1".to_string(),
            (false, _) => format!(
                "{}{{\"i\": {}, \"v\": {}}}",
                if i > 0 { ",\n" } else { "" },
                i % 1000,
                i % 7
            ),
        };
        out.write_all(item.as_bytes()).unwrap();
        written += item.len() as u64;
        i += 1;
    }
    out.write_all(b"]").unwrap();
    out.write_all(tail.as_bytes()).unwrap();
    out.flush().unwrap();
}

/// Ten million numbers, with an API key in the environment (as on most
/// users' machines): the key makes every event pass the secret scrubber,
/// which must read the context as text, never as a tree (it once took a
/// 2.4 GB allocation and aborted under this limit).
#[test]
fn a_big_context_of_numbers_with_a_key_set_costs_a_small_multiple_of_its_size() {
    if !alone("a_big_context_of_numbers_with_a_key_set_costs_a_small_multiple_of_its_size") {
        return;
    }
    big_context_run(true);
}

/// The same size of small objects (`{"i": 7, "v": 3}`, a million of
/// them): the context stays text through the run, its checks and its
/// prompts, never a tree of values.
#[test]
fn a_big_context_of_nested_objects_with_a_key_set_costs_a_small_multiple_of_its_size() {
    if !alone("a_big_context_of_nested_objects_with_a_key_set_costs_a_small_multiple_of_its_size") {
        return;
    }
    big_context_run(false);
}

/// The last line of the file at `path`, read from its end: the
/// recording's first lines hold the whole context, which this process
/// must not take in (the other tests measure it).
fn last_line(path: &std::path::Path) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).unwrap();
    let len = file.metadata().unwrap().len();
    file.seek(SeekFrom::Start(len.saturating_sub(1 << 20)))
        .unwrap();
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).unwrap();
    let tail = String::from_utf8_lossy(&tail);
    tail.trim_end().rsplit('\n').next().unwrap().to_string()
}

fn big_context_run(numbers: bool) {
    let own = common::bounded::own_peak_kib();
    assert!(
        own < 32 * 1024,
        "this test process is too big to measure: {own} KiB"
    );
    let small = context_run(numbers, 0);
    let big = context_run(numbers, CONTEXT_BYTES);
    // What the context adds to the run's peak, against the same run with
    // an empty one (about 55 MB in this unoptimised binary): measured at
    // 1.1 times the context's size. It was 2.4 times while the recorder
    // grew one buffer to hold the run's first line and the scrubber wrote
    // the context out again to look for the key.
    let grown = big - small;
    let ceiling_kib = (CONTEXT_BYTES as i64 * 8 / 5) / 1024;
    assert!(
        grown <= ceiling_kib,
        "a {} MiB context added {grown} KiB to the run's peak ({big} KiB against {small} KiB), over 1.6 times its size ({ceiling_kib} KiB)",
        CONTEXT_BYTES >> 20,
    );
    eprintln!(
        "a {} MiB context: peak {big} KiB, {grown} KiB over an empty one's",
        CONTEXT_BYTES >> 20,
    );
}

/// The peak resident memory, in KiB, of the shipped round table run with
/// a context of `bytes` (an empty list at 0), recorded, with an API key
/// in its environment, under an operator's 4 GiB address-space limit.
fn context_run(numbers: bool, bytes: u64) -> i64 {
    use std::os::unix::process::CommandExt;
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("big_context.json");
    round_table_with_context(&file, bytes, numbers);
    let recording = work.path().join("run.jsonl");
    let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
    command
        .args(["run", "--headless", "--record"])
        .arg(&recording)
        .arg(&file)
        .env("OPENAI_API_KEY", "sk-big-context-Hj3Kl5Mn7Pq9")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: between fork and exec the closure only calls setrlimit, which
    // is async-signal-safe, on a value on its own stack.
    unsafe {
        command.pre_exec(|| {
            // An operator's `ulimit -v 4194304`: 4 GiB of address space.
            let limit = libc::rlimit {
                rlim_cur: 4 << 30,
                rlim_max: 4 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let finished = common::bounded::run(command, Duration::from_secs(600), "a big context");
    assert_eq!(
        (finished.exit, finished.signal),
        (Some(0), None),
        "the run ends as the shipped one does"
    );
    let last: Value = serde_json::from_str(&last_line(&recording)).unwrap();
    assert_eq!(
        last["result"]["final_decision"], "go_with_caution",
        "{last}"
    );
    finished.max_rss_kib
}

/// A line far longer than the cap is skipped while the replay stays far
/// smaller than the line, and the run's result still comes out. Measured
/// on the replay's own process (`wait4`), in this small test process: a
/// measure of every child of the big test binary would count whichever
/// other test's child was largest.
#[test]
fn a_line_far_over_the_cap_is_skipped_in_bounded_memory() {
    if !alone("a_line_far_over_the_cap_is_skipped_in_bounded_memory") {
        return;
    }
    use std::io::{Seek, SeekFrom, Write};
    const GIB: u64 = 1 << 30;
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("run.jsonl");
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/checkout_v2_launch.json"
    );
    let ran = common::cli::conclave(&[
        "run",
        scenario,
        "--headless",
        "--record",
        recorded.to_str().unwrap(),
    ]);
    let code = ran.status.code().unwrap();
    let result: Value = serde_json::from_slice(&ran.stdout).unwrap();
    let text = std::fs::read(&recorded).unwrap();
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();

    let path = dir.path().join("long.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(lines[0]).unwrap();
    file.write_all(b"\n").unwrap();
    // A hole reads as a gigabyte of NUL bytes without taking the disk.
    let start = file.stream_position().unwrap();
    file.seek(SeekFrom::Start(start + GIB)).unwrap();
    file.write_all(b"\n").unwrap();
    for line in &lines[1..] {
        file.write_all(line).unwrap();
        file.write_all(b"\n").unwrap();
    }
    drop(file);

    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut replay = Command::new(env!("CARGO_BIN_EXE_conclave"));
    replay
        .args(["replay", path.to_str().unwrap(), "--headless"])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    let finished = common::bounded::run(replay, Duration::from_secs(120), "long line");
    let stderr = std::fs::read_to_string(&err).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(finished.exit, Some(code), "{stderr}");
    let replayed: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(replayed, result);
    assert!(
        stderr.contains(&format!(
            "long.jsonl:2: a line of {} bytes, longer than the line cap (128 MiB); skipped",
            GIB + 1
        )),
        "{stderr}"
    );
    assert_eq!(stderr.matches("long.jsonl:").count(), 1, "{stderr}");
    let peak = u64::try_from(finished.max_rss_kib).unwrap() * 1024;
    assert!(
        peak < GIB / 4,
        "the replay held {peak} bytes for a 1 GiB line"
    );
}
