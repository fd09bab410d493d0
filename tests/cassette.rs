//! Recordings that run again: `run --cassette` serves a recorded run's
//! calls offline to the recorded result, byte for byte, and `fork` runs a
//! recorded run again from one of its gates. The built binary, run as a
//! user runs it; a real loopback endpoint where a model answers.

use crate::common::streaming::{self, Reply, Streamed};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// A port nothing listens on: bound, then let go.
fn closed_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

/// `conclave` with `args`, from the project's folder, its state in
/// `state`, no key in its environment and the model's address at a
/// closed port.
fn conclave(args: &[&str], state: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XDG_STATE_HOME", state)
        .env_remove("OPENAI_API_KEY")
        .env("OPENAI_BASE_URL", closed_port())
        .output()
        .expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn result(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            stderr(output)
        )
    })
}

/// Record `scenario` headless (its programs allowed) into `dir`; the
/// recording and the run's output.
fn record(scenario: &str, dir: &Path, extra: &[&str]) -> (PathBuf, Output) {
    let name = Path::new(scenario).file_stem().unwrap().to_string_lossy();
    let recording = dir.join(format!("{name}.jsonl"));
    let mut args = vec!["run", scenario, "--headless", "--allow-exec", "--record"];
    let path = recording.to_string_lossy().into_owned();
    args.push(&path);
    args.extend_from_slice(extra);
    let output = conclave(&args, &dir.join("state"));
    assert!(
        matches!(output.status.code(), Some(0 | 3)),
        "{scenario}: {}",
        stderr(&output)
    );
    (recording, output)
}

fn events(recording: &Path) -> Vec<Value> {
    crate::common::recorded(recording)
}

fn shipped_scenarios() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| format!("scenarios/{}", path.file_name().unwrap().to_string_lossy()))
        .collect();
    files.sort();
    files
}

#[test]
fn every_shipped_scenario_runs_again_from_its_recording_byte_for_byte_offline() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = shipped_scenarios();
    assert!(scenarios.len() >= 17, "{scenarios:?}");
    for scenario in &scenarios {
        let (recording, recorded) = record(scenario, dir.path(), &[]);
        // No --allow-exec: served wholly, nothing runs.
        let served = conclave(
            &[
                "run",
                scenario,
                "--headless",
                "--cassette",
                &recording.to_string_lossy(),
            ],
            &dir.path().join("other-state"),
        );
        assert_eq!(
            served.status.code(),
            recorded.status.code(),
            "{scenario}: {}",
            stderr(&served)
        );
        assert_eq!(
            String::from_utf8_lossy(&served.stdout),
            String::from_utf8_lossy(&recorded.stdout),
            "{scenario}: the served run's result is the recorded one"
        );
        assert!(
            stderr(&served).contains(", 0 live"),
            "{scenario}: {}",
            stderr(&served)
        );
    }
}

/// A one-analyst round table on an OpenAI-compatible endpoint.
fn one_analyst() -> Value {
    json!({
        "name": "one_analyst", "pattern": "collaboration",
        "goal": "Decide whether to launch checkout v2", "context": {"region": "US"},
        "budget": {"max_rounds": 2, "min_go_votes": 2},
        "team": {"roles": {"risk_analyst": {"focus": "payments"}}, "sequence": ["risk_analyst"]},
        "provider": {"kind": "openai", "model": "mock-model"}
    })
}

const CONTRIBUTION: &str = "{\"agent\": \"risk_analyst\", \"stance\": \"caution\", \"confidence\": 0.7, \"summary\": \"Chargebacks rose in March; ship behind a flag.\", \"actions\": [\"Watch chargebacks\"]}";

#[test]
fn a_streamed_run_on_a_loopback_endpoint_runs_again_offline_byte_for_byte() {
    let (base_url, seen) = streaming::serve_in_background(|request, _| {
        let text = if streaming::asks_for_the_final_answer(request) {
            "Launch behind a flag."
        } else {
            CONTRIBUTION
        };
        Reply::Stream(Streamed::new(text, 12, Duration::from_millis(5)))
    });
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("one_analyst.json");
    std::fs::write(&file, one_analyst().to_string()).unwrap();
    let file = file.to_string_lossy().into_owned();
    let recording = work.path().join("run.jsonl");
    let recording = recording.to_string_lossy().into_owned();
    let recorded = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args([
            "run",
            &file,
            "--headless",
            "--base-url",
            &base_url,
            "--record",
            &recording,
        ])
        .env("OPENAI_API_KEY", "sk-cassette-test-key-0123456789")
        .env("XDG_STATE_HOME", work.path().join("state"))
        .output()
        .unwrap();
    assert_eq!(recorded.status.code(), Some(3), "{}", stderr(&recorded));
    let asked = seen.lock().unwrap().len();
    assert!(asked >= 2, "a contribution and the final answer: {asked}");
    let deltas = events(Path::new(&recording))
        .iter()
        .filter(|e| e["type"] == "call_delta")
        .count();
    assert!(deltas >= 3, "the answers streamed: {deltas} deltas");

    // Offline: no key, the endpoint at a closed port.
    let closed = closed_port();
    let replay = work.path().join("replay.jsonl");
    let replay = replay.to_string_lossy().into_owned();
    let served = conclave(
        &[
            "run",
            &file,
            "--headless",
            "--base-url",
            &closed,
            "--cassette",
            &recording,
            "--record",
            &replay,
        ],
        &work.path().join("state"),
    );
    assert_eq!(served.status.code(), Some(3), "{}", stderr(&served));
    assert_eq!(
        served.stdout, recorded.stdout,
        "the recorded result, byte for byte"
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        asked,
        "nothing reached the endpoint"
    );
    let replayed = events(Path::new(&replay));
    let served_calls = replayed
        .iter()
        .filter(|e| e["type"] == "call_finished" && e["served"] == true)
        .count();
    assert_eq!(served_calls, asked, "every call marked as served");
    let served_deltas: String = replayed
        .iter()
        .filter(|e| e["type"] == "call_delta")
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        served_deltas.contains("Chargebacks rose"),
        "the text is served as it streamed: {served_deltas}"
    );
    let started = &replayed[0];
    assert_eq!(started["model"]["provider"], "openai", "{started}");
    assert_eq!(started["model"]["name"], "mock-model", "{started}");
}

#[test]
fn a_fork_at_the_first_gate_with_nothing_changed_is_the_recorded_run() {
    let dir = tempfile::tempdir().unwrap();
    let (recording, recorded) = record("scenarios/checkout_v2_launch.json", dir.path(), &[]);
    let fork = conclave(
        &[
            "fork",
            &recording.to_string_lossy(),
            "--at",
            "round 1",
            "--headless",
        ],
        &dir.path().join("state"),
    );
    assert_eq!(fork.status.code(), Some(0), "{}", stderr(&fork));
    assert_eq!(fork.stdout, recorded.stdout);
}

#[test]
fn a_fork_at_round_1_with_a_flag_on_is_a_run_launched_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let (recording, _) = record(
        "scenarios/checkout_v2_launch.json",
        dir.path(),
        &["--seed", "7"],
    );
    let fork = conclave(
        &[
            "fork",
            &recording.to_string_lossy(),
            "--at",
            "round 1",
            "--flag",
            "legal_analyst=on",
            "--headless",
        ],
        &dir.path().join("state"),
    );
    let run = conclave(
        &[
            "run",
            "scenarios/checkout_v2_launch.json",
            "--headless",
            "--seed",
            "7",
            "--flag",
            "legal_analyst=on",
        ],
        &dir.path().join("state"),
    );
    assert_eq!(fork.status.code(), run.status.code(), "{}", stderr(&fork));
    assert_eq!(result(&fork), result(&run));
    assert!(
        result(&run)["usage"]["by_agent"]
            .get("legal_analyst")
            .is_some(),
        "the analyst took part: {}",
        result(&run)["usage"]
    );
}

#[test]
fn a_fork_at_round_3_serves_rounds_1_and_2_and_makes_the_rest_live() {
    let dir = tempfile::tempdir().unwrap();
    let (recording, recorded) = record("scenarios/loyalty_program_deadlock.json", dir.path(), &[]);
    let parent = events(&recording);
    let round_3 = parent
        .iter()
        .position(|e| e["type"] == "round_started" && e["round"] == 3)
        .expect("the deadlock reaches round 3");
    let calls_before = parent[..round_3]
        .iter()
        .filter(|e| e["type"] == "call_finished")
        .count();
    assert!(calls_before >= 4, "rounds 1 and 2 called the model");
    let out = dir.path().join("fork.jsonl");
    let fork = conclave(
        &[
            "fork",
            &recording.to_string_lossy(),
            "--at",
            "round 3",
            "--headless",
            "--record",
            &out.to_string_lossy(),
        ],
        &dir.path().join("state"),
    );
    assert_eq!(
        fork.status.code(),
        recorded.status.code(),
        "{}",
        stderr(&fork)
    );
    let forked = result(&fork);
    assert_eq!(
        forked["usage"]["served"]["calls"],
        json!(calls_before),
        "{}",
        forked["usage"]
    );
    let mut document = forked.clone();
    document["usage"].as_object_mut().unwrap().remove("served");
    assert_eq!(document, result(&recorded), "nothing changed: the same run");

    let events = events(&out);
    let went_live = events
        .iter()
        .position(|e| e["type"] == "went_live")
        .expect("the fork says where it went live");
    assert_eq!(
        events[went_live]["gate"],
        json!({"before": "round", "round": 3})
    );
    let served = |e: &Value| e["type"] == "call_finished" && e["served"] == true;
    let live = |e: &Value| e["type"] == "call_finished" && e["served"] != true;
    assert_eq!(
        events[..went_live].iter().filter(|e| served(e)).count(),
        calls_before
    );
    assert!(
        !events[..went_live].iter().any(live),
        "no live call before the gate"
    );
    assert!(
        !events[went_live..].iter().any(served),
        "no served call after it"
    );
    assert!(events[went_live..].iter().any(live));
    let started = &events[0];
    assert_eq!(started["forked_from"]["gate"], "round 3", "{started}");
    assert_eq!(started["forked_from"]["run"], 1);
    assert!(
        started["forked_from"]["file"]
            .as_str()
            .unwrap()
            .ends_with("loyalty_program_deadlock.jsonl")
    );
}

#[test]
fn a_request_the_recording_does_not_hold_stops_naming_the_first_difference() {
    let dir = tempfile::tempdir().unwrap();
    let (recording, _) = record("scenarios/support_swarm.json", dir.path(), &[]);
    let recording = recording.to_string_lossy().into_owned();
    let changed = conclave(
        &[
            "run",
            "scenarios/support_swarm.json",
            "--headless",
            "--goal",
            "Refund twice.",
            "--cassette",
            &recording,
        ],
        &dir.path().join("state"),
    );
    assert_eq!(changed.status.code(), Some(3), "{}", stderr(&changed));
    assert_eq!(result(&changed)["stop_reason"], "cassette_miss");
    let said = stderr(&changed);
    assert!(
        said.contains("cassette_miss: the recording does not hold model call 1 for turn:triage: prompt_sha256: recorded "),
        "{said}"
    );
    assert!(said.contains(", now "), "{said}");

    // Live instead: the call is made (here on the sim) and recorded, and
    // that recording serves the changed run in turn.
    let again = dir
        .path()
        .join("again.jsonl")
        .to_string_lossy()
        .into_owned();
    let live = conclave(
        &[
            "run",
            "scenarios/support_swarm.json",
            "--headless",
            "--goal",
            "Refund twice.",
            "--cassette",
            &recording,
            "--cassette-miss",
            "live",
            "--record",
            &again,
        ],
        &dir.path().join("state"),
    );
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    // The turns asked with the new goal go live; the tool calls they make
    // ask what the recorded ones asked, and are served.
    assert!(
        stderr(&live).contains("served 2 calls") && stderr(&live).contains(", 5 live"),
        "{}",
        stderr(&live)
    );
    let made_live = events(Path::new(&again))
        .iter()
        .filter(|e| e["type"] == "call_finished" && e["served"] != true && !e["record"].is_null())
        .count();
    assert!(
        made_live > 0,
        "the live calls are recorded with their answers"
    );
    let served = conclave(
        &[
            "run",
            "scenarios/support_swarm.json",
            "--headless",
            "--goal",
            "Refund twice.",
            "--cassette",
            &again,
        ],
        &dir.path().join("state"),
    );
    assert_eq!(served.stdout, live.stdout);
}

#[test]
fn what_cannot_be_served_or_forked_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (recording, _) = record("scenarios/checkout_v2_launch.json", dir.path(), &[]);
    let recording = recording.to_string_lossy().into_owned();
    let state = dir.path().join("state");

    let never = conclave(
        &["fork", &recording, "--at", "round 9", "--headless"],
        &state,
    );
    assert_eq!(never.status.code(), Some(2));
    assert!(
        stderr(&never).contains(
            "checkout_v2_launch.jsonl: --at \"round 9\": the recorded run passed round 1 to round 2"
        ),
        "{}",
        stderr(&never)
    );
    // A flag the scenario does not declare: refused as `run` refuses it.
    let unknown = conclave(
        &[
            "fork",
            &recording,
            "--at",
            "round 2",
            "--flag",
            "legl_analyst=on",
            "--headless",
        ],
        &state,
    );
    assert_eq!(unknown.status.code(), Some(2), "{}", stderr(&unknown));
    assert!(
        stderr(&unknown).contains(
            "checkout_v2_launch.jsonl: unknown flag \"legl_analyst\"; this scenario declares: legal_analyst"
        ),
        "{}",
        stderr(&unknown)
    );
    assert!(unknown.stdout.is_empty(), "nothing ran");
    let kind = conclave(
        &["fork", &recording, "--at", "turn 2", "--headless"],
        &state,
    );
    assert_eq!(kind.status.code(), Some(2));
    assert!(
        stderr(&kind).contains("this run's gates are rounds"),
        "{}",
        stderr(&kind)
    );

    // A recording made before cassettes: no call records.
    let old_file = dir.path().join("old.jsonl");
    crate::common::made_before_cassettes(Path::new(&recording), &old_file);
    let refused = conclave(
        &[
            "run",
            "scenarios/checkout_v2_launch.json",
            "--headless",
            "--cassette",
            &old_file.to_string_lossy(),
        ],
        &state,
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("old.jsonl:")
            && stderr(&refused).contains("older than cassettes"),
        "{}",
        stderr(&refused)
    );
    let missing = conclave(
        &[
            "fork",
            &dir.path().join("nope.jsonl").to_string_lossy(),
            "--at",
            "round 1",
            "--headless",
        ],
        &state,
    );
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert!(
        stderr(&missing).contains("nope.jsonl"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn a_fork_that_switches_to_a_real_model_needs_its_key_as_a_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let (recording, _) = record("scenarios/checkout_v2_launch.json", dir.path(), &[]);
    let without_key = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_conclave"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .output()
            .unwrap()
    };
    let fork = without_key(&[
        "fork",
        &recording.to_string_lossy(),
        "--at",
        "round 2",
        "--headless",
        "--provider",
        "openai",
    ]);
    let run = without_key(&[
        "run",
        "scenarios/checkout_v2_launch.json",
        "--headless",
        "--provider",
        "openai",
    ]);
    assert_eq!(fork.status.code(), run.status.code(), "{}", stderr(&fork));
    assert_eq!(result(&fork)["stop_reason"], "llm_auth");
    assert!(
        stderr(&fork).contains("OPENAI_API_KEY is not set"),
        "{}",
        stderr(&fork)
    );
    // Round 1 was served: the first live call is the one refused.
    assert!(
        stderr(&fork).contains("served 3 calls"),
        "{}",
        stderr(&fork)
    );
}

#[test]
fn a_fork_that_changed_nothing_does_not_diverge_from_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    let (recording, _) = record("scenarios/checkout_v2_launch.json", dir.path(), &[]);
    let fork = dir.path().join("fork.jsonl");
    let forked = conclave(
        &[
            "fork",
            &recording.to_string_lossy(),
            "--at",
            "round 2",
            "--headless",
            "--record",
            &fork.to_string_lossy(),
        ],
        &dir.path().join("state"),
    );
    assert_eq!(forked.status.code(), Some(0), "{}", stderr(&forked));
    let compared = conclave(
        &[
            "compare",
            &recording.to_string_lossy(),
            &fork.to_string_lossy(),
            "--headless",
        ],
        &dir.path().join("state"),
    );
    let document = result(&compared);
    assert_eq!(
        document["first_divergence"],
        Value::Null,
        "served calls are the same calls: {document}"
    );
    let went_live = &document["control"]["b"];
    assert!(
        went_live
            .as_array()
            .is_some_and(|events| events.iter().any(|e| e["kind"] == "went_live")),
        "the fork's going live is listed with the control: {document}"
    );
}

/// A way a cassette lies, and what it changes in each call's record.
type Lie<'a> = (&'a str, &'a dyn Fn(&mut Value));

#[test]
fn a_lying_cassette_stops_or_misses_but_never_panics_or_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    for scenario in [
        "scenarios/support_swarm.json",
        "scenarios/morning_ops_report.json",
        "scenarios/checkout_v2_launch.json",
    ] {
        let (recording, _) = record(scenario, dir.path(), &[]);
        let lies: [Lie; 5] = [
            ("times far in the future", &|e| {
                e["latency_ms"] = json!(u64::MAX);
                e["record"]["ended_us"] = json!(u64::MAX);
                e["record"]["span_ms"] = json!(u64::MAX);
            }),
            ("no answers at all", &|e| {
                e["record"].as_object_mut().unwrap().remove("answer");
            }),
            ("answers of the wrong kind", &|e| {
                e["record"]["answer"] = json!({"observation": "not what was asked"});
            }),
            ("a JSON answer that is not JSON", &|e| {
                e["record"]["answer"] = json!({"json": "{\"tasks\": ["});
            }),
            ("huge usage", &|e| {
                e["usage"] = json!({"input": u64::MAX, "output": u64::MAX, "cost_usd": 1e308});
            }),
        ];
        for (lie, change) in lies {
            let lying = dir.path().join("lying.jsonl");
            crate::common::rewrite_recording(&recording, &lying, |event| {
                if event["type"] == "call_finished" {
                    change(event);
                }
            });
            let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
            command
                .args(["run", scenario, "--headless", "--cassette"])
                .arg(&lying)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .env("XDG_STATE_HOME", &state)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            let what = format!("{scenario} with {lie}");
            let finished = crate::common::bounded::run(command, Duration::from_secs(60), &what);
            // 0 or 3: the run ended (a miss, a bad answer); 2: the
            // recording was refused. Never a panic (101) or a signal.
            assert!(
                matches!(finished.exit, Some(0 | 2 | 3)),
                "{what}: exit {:?}, signal {:?}",
                finished.exit,
                finished.signal
            );
        }
    }
}

/// A FIFO with no writer, a device or a folder given as a recording is
/// refused at once (opening a FIFO would wait for a writer for ever).
#[test]
fn a_recording_that_is_no_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("cassette.jsonl");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let fifo = fifo.to_str().unwrap();
    let scenario = "scenarios/support_swarm.json";
    for (args, kind) in [
        (
            vec!["run", scenario, "--headless", "--cassette", fifo],
            "a FIFO",
        ),
        (vec!["fork", fifo, "--at", "turn 2", "--headless"], "a FIFO"),
        (vec!["replay", fifo, "--headless"], "a FIFO"),
        (
            vec!["fork", "/dev/zero", "--at", "turn 2", "--headless"],
            "a device",
        ),
        (
            vec!["run", scenario, "--headless", "--cassette", "scenarios"],
            "a folder",
        ),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
        command
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        let what = args.join(" ");
        let finished = crate::common::bounded::run(command, Duration::from_secs(20), &what);
        assert_eq!(finished.exit, Some(2), "{what}");
        let mut retried = Command::new(env!("CARGO_BIN_EXE_conclave"));
        let output = retried
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .output()
            .unwrap();
        let said = stderr(&output);
        assert!(
            said.contains(&format!("expected a recording file, found {kind}")),
            "{what}: {said}"
        );
    }
}
