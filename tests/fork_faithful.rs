//! A fork that changes nothing is its parent: the person's recorded
//! answer is served again, the parent's model and endpoint answer the
//! live part, and what was served shows the latency the recording
//! measured. The built binary, run as a user runs it; a loopback
//! endpoint where a model answers.

use crate::common;

use common::cli::{conclave, result};
use common::real::stderr;
use common::streaming::{self, Reply, Streamed};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

/// The escalating table recorded with a person's answer given in advance.
fn recorded_with_an_answer(dir: &Path, answer: &str) -> (String, Output) {
    let file = common::escalating_deadlock(dir, false);
    let recording = dir.join("parent.jsonl").display().to_string();
    let output = conclave(&[
        "run",
        &file,
        "--headless",
        "--decide",
        answer,
        "--record",
        &recording,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    (recording, output)
}

/// `document` without what says how it was run (its usage, which a fork
/// splits into served and live).
fn without_usage(mut document: Value) -> Value {
    if let Some(map) = document.as_object_mut() {
        map.remove("usage");
    }
    document
}

#[test]
fn a_fork_before_the_persons_answer_that_changes_nothing_serves_the_answer_again() {
    let dir = tempfile::tempdir().unwrap();
    let (parent, ran) = recorded_with_an_answer(dir.path(), "no_go");
    let fork = dir.path().join("fork.jsonl").display().to_string();
    let forked = conclave(&[
        "fork",
        &parent,
        "--at",
        "round 1",
        "--headless",
        "--record",
        &fork,
    ]);
    assert_eq!(forked.status.code(), Some(0), "{}", stderr(&forked));
    assert_eq!(without_usage(result(&forked)), without_usage(result(&ran)));
    assert_eq!(result(&forked)["decided_by"], "human");
    let compared = conclave(&["compare", &parent, &fork, "--headless"]);
    let document = result(&compared);
    assert_eq!(document["first_divergence"], Value::Null, "{document}");

    // An answer given to the fork is the fork's change.
    let changed = conclave(&[
        "fork",
        &parent,
        "--at",
        "round 1",
        "--headless",
        "--decide",
        "continue",
    ]);
    assert_eq!(changed.status.code(), Some(3), "{}", stderr(&changed));
    let changed = result(&changed);
    assert_eq!(changed["stop_reason"], "max_rounds_reached", "{changed}");
}

/// A one-analyst round table whose sim says `go`: recorded against an
/// endpoint that says `caution`, so that which model answers shows.
fn one_analyst(dir: &Path) -> String {
    let doc = json!({
        "name": "one_analyst", "pattern": "collaboration",
        "goal": "Decide whether to launch checkout v2", "context": {"region": "US"},
        "budget": {"max_rounds": 2, "min_go_votes": 2},
        "team": {"roles": {"risk_analyst": {"focus": "payments"}}, "sequence": ["risk_analyst"]},
        "provider": {"kind": "sim", "latency_ms": 5, "final_answer": "Ship it.",
                     "responses": {"risk_analyst": common::said("risk_analyst", "go", 0.9)}}
    });
    let path = dir.join("one_analyst.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path.display().to_string()
}

const CAUTION: &str = "{\"agent\": \"risk_analyst\", \"stance\": \"caution\", \"confidence\": 0.7, \"summary\": \"Chargebacks rose in March; ship behind a flag.\", \"actions\": [\"Watch chargebacks\"]}";

/// `conclave` with a key in its environment and no endpoint but the one
/// its arguments or its recording name.
fn with_key(args: &[&str], state: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XDG_STATE_HOME", state)
        .env("OPENAI_API_KEY", "sk-fork-faithful-key-0123456789")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .expect("the binary runs")
}

fn events(recording: &str) -> Vec<Value> {
    common::recorded(recording)
}

/// A loopback endpoint that says `caution` (the sim says `go`), each
/// answer in three pieces 15 ms apart, so that every call takes 30 ms
/// or more; its base URL and the requests it saw.
fn cautious_endpoint() -> (String, streaming::Seen) {
    streaming::serve_in_background(|request, _| {
        let text = if streaming::asks_for_the_final_answer(request) {
            "Launch behind a flag."
        } else {
            CAUTION
        };
        Reply::Stream(Streamed::new(text, 3, Duration::from_millis(15)))
    })
}

/// The one-analyst table run on `base_url` with `--provider openai`,
/// recorded in `dir`: the recording's path and the run's output.
fn recorded_on(base_url: &str, dir: &Path) -> (String, Output) {
    let file = one_analyst(dir);
    let parent = dir.join("parent.jsonl").display().to_string();
    let ran = with_key(
        &[
            "run",
            &file,
            "--headless",
            "--provider",
            "openai",
            "--model",
            "mock-model",
            "--base-url",
            base_url,
            "--record",
            &parent,
        ],
        &dir.join("state"),
    );
    assert_eq!(ran.status.code(), Some(3), "{}", stderr(&ran));
    (parent, ran)
}

/// `fork PARENT --at "round 2" --headless` with `extra`, a key in its
/// environment.
fn fork_at_round_2(parent: &str, extra: &[&str], state: &Path) -> Output {
    let mut args = vec!["fork", parent, "--at", "round 2", "--headless"];
    args.extend_from_slice(extra);
    with_key(&args, state)
}

#[test]
fn a_fork_of_a_run_on_an_endpoint_goes_live_on_that_endpoint_and_model() {
    let (base_url, seen) = cautious_endpoint();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let (parent, ran) = recorded_on(&base_url, dir.path());
    let asked = seen.lock().unwrap().len();

    let fork = dir.path().join("fork.jsonl").display().to_string();
    let forked = fork_at_round_2(&parent, &["--record", &fork], &state);
    assert_eq!(forked.status.code(), Some(3), "{}", stderr(&forked));
    assert_eq!(without_usage(result(&forked)), without_usage(result(&ran)));
    let requests = seen.lock().unwrap();
    assert!(requests.len() > asked, "round 2 was asked of the endpoint");
    assert!(
        requests[asked..].iter().all(|r| r["model"] == "mock-model"),
        "{:?}",
        &requests[asked..]
    );
    drop(requests);
    let started = &events(&fork)[0];
    assert_eq!(started["model"]["provider"], "openai", "{started}");
    assert_eq!(started["model"]["name"], "mock-model", "{started}");

    // Asked for, another model answers the live part.
    let other = fork_at_round_2(&parent, &["--provider", "sim"], &state);
    let other = result(&other);
    assert_eq!(
        other["history"][1]["contributions"][0]["stance"], "go",
        "{other}"
    );
}

#[test]
fn what_a_fork_serves_shows_the_latency_its_parent_measured() {
    let (base_url, _seen) = cautious_endpoint();
    let dir = tempfile::tempdir().unwrap();
    let (parent, _) = recorded_on(&base_url, dir.path());
    let fork = dir.path().join("fork.jsonl").display().to_string();
    let forked = fork_at_round_2(
        &parent,
        &[
            "--provider",
            "openai",
            "--model",
            "mock-model",
            "--base-url",
            &base_url,
            "--record",
            &fork,
        ],
        &dir.path().join("state"),
    );
    assert_eq!(forked.status.code(), Some(3), "{}", stderr(&forked));
    let measured: Vec<u64> = events(&parent)
        .iter()
        .filter(|e| e["type"] == "call_finished")
        .map(|e| e["latency_ms"].as_u64().unwrap())
        .collect();
    let served: Vec<u64> = events(&fork)
        .iter()
        .filter(|e| e["type"] == "call_finished" && e["served"] == true)
        .map(|e| e["latency_ms"].as_u64().unwrap())
        .collect();
    assert!(!served.is_empty(), "round 1 was served");
    assert!(served.iter().all(|ms| *ms >= 30), "{served:?}");
    assert_eq!(served, measured[..served.len()], "{measured:?}");
    // The dashboard's event log says so.
    let mut app = conclave::tui::app::App::new(conclave::tui::app::AppOptions::default());
    conclave::tui::world::open_replay(&mut app, Path::new(&fork)).unwrap();
    let moved = app.playback(conclave::tui::keymap::Action::End);
    conclave::tui::world::settle(&mut app, moved);
    let screen = common::screen::of_app(&app, 200, 80);
    assert!(
        screen.contains(&format!("model: served ok in {} ms", served[0])),
        "{screen}"
    );
}
