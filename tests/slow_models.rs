//! Slow local models (issue 58): a model call that gets no answer within
//! its timeout stops the run with `llm_timeout` and words that say after
//! how many seconds, where that timeout came from and what raises it
//! (`--call-timeout`, or the scenario's resilience timeout when that is the
//! one that ran out): on stderr and in the run's finish for a headless run,
//! and in the dashboard's result pane. The endpoint is a loopback server
//! that reads each request and never answers.

use crate::common;

use common::loopback::{Body, Loopback, Reply};
use common::script::quick;
use conclave::bus::{Event, EventKind};
use conclave::engine::{LaunchOptions, ProviderChoice};
use conclave::scenario::{ProviderKind, ProviderKnobs};
use conclave::tui::app::{App, AppOptions};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use serde_json::Value;
use std::process::{Command, Output};
use std::sync::Arc;

fn silent() -> Loopback {
    Loopback::serve(|_, _| Reply::new(200, Body::Stall))
}

/// `conclave run` of `doc` against `base_url` with `args`: its output and
/// its recording's `run_finished`.
fn run(doc: &Value, base_url: &str, args: &[&str], env: &[(&str, &str)]) -> (Output, Value) {
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("scenario.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let recording = work.path().join("run.jsonl");
    let output = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .arg("run")
        .arg(&file)
        .args([
            "--headless",
            "--provider",
            "openai",
            "--model",
            "mock-model",
        ])
        .args(["--base-url", base_url])
        .arg("--record")
        .arg(&recording)
        .args(args)
        .env_remove("OPENAI_TIMEOUT_SECONDS")
        .envs(env.iter().copied())
        .env("OPENAI_API_KEY", "sk-slow-models-test-dummy-key")
        .env("XDG_STATE_HOME", work.path().join("state"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    let finished = std::fs::read_to_string(&recording)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|e| e["type"] == "run_finished")
        .unwrap_or(Value::Null);
    (output, finished)
}

/// The run stopped with `llm_timeout`, and its one line on stderr and its
/// finish's error both say `words`.
fn stops_saying(output: &Output, finished: &Value, words: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["stop_reason"], "llm_timeout", "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(lines[0].starts_with("conclave: llm_timeout: "), "{stderr}");
    let error = finished["error"].as_str().unwrap_or_default();
    for said in words {
        assert!(lines[0].contains(said), "{said:?} in {stderr}");
        assert!(error.contains(said), "{said:?} in {finished}");
    }
}

#[test]
fn a_call_past_its_timeout_says_after_how_long_and_that_call_timeout_raises_it() {
    let server = silent();
    let doc = quick("support_swarm.json");
    let (output, finished) = run(&doc, &server.base_url, &["--call-timeout", "0.2"], &[]);
    stops_saying(
        &output,
        &finished,
        &[
            "within 0.2 s",
            "(--call-timeout)",
            "raise it with --call-timeout SECONDS",
        ],
    );
}

#[test]
fn the_words_name_the_scenario_or_the_environment_when_the_timeout_came_from_there() {
    let server = silent();
    let mut doc = quick("checkout_v2_launch.json");
    doc["provider"]["timeout_seconds"] = 0.25.into();
    let (output, finished) = run(&doc, &server.base_url, &[], &[]);
    stops_saying(
        &output,
        &finished,
        &[
            "within 0.25 s",
            "the scenario's provider.timeout_seconds",
            "--call-timeout",
        ],
    );
    let doc = quick("launch_coordinator.json");
    let env = [("OPENAI_TIMEOUT_SECONDS", "0.3")];
    let (output, finished) = run(&doc, &server.base_url, &[], &env);
    stops_saying(
        &output,
        &finished,
        &["within 0.3 s", "OPENAI_TIMEOUT_SECONDS", "--call-timeout"],
    );
}

#[test]
fn a_resilience_timeout_for_the_model_is_named_as_the_one_to_raise() {
    let server = silent();
    let mut doc = quick("support_swarm.json");
    doc["resilience"] = serde_json::json!({"timeouts_ms": {"model": 200}});
    let (output, finished) = run(&doc, &server.base_url, &["--call-timeout", "600"], &[]);
    stops_saying(
        &output,
        &finished,
        &[
            "within 0.2 s",
            "resilience.timeouts_ms",
            "wins over --call-timeout",
        ],
    );
}

#[tokio::test]
async fn the_dashboards_result_pane_says_it_too() {
    let server = silent();
    let options = LaunchOptions {
        provider: ProviderChoice {
            kind: Some(ProviderKind::Openai),
            model: Some("mock-model".into()),
            base_url: Some(server.base_url.clone()),
            knobs: ProviderKnobs {
                timeout_seconds: Some(0.2),
                ..ProviderKnobs::default()
            },
            ..ProviderChoice::default()
        },
        ..LaunchOptions::default()
    };
    let (outcome, events) = common::run(common::shipped("support_swarm.json"), options).await;
    assert_eq!(outcome.stop_reason.to_string(), "llm_timeout");
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::RunFinished { .. })),
        "the run finished"
    );
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, Some("scenarios/support_swarm.json".into()))
        .expect("events start with run_started");
    app.screen = Rect::new(0, 0, 160, 48);
    let area = app.areas(app.screen).result;
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    terminal
        .draw(|frame| conclave::tui::view::draw(frame, &app))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let pane: String = (area.y..area.bottom())
        .map(|y| {
            (area.x..area.right())
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ");
    let pane = pane.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "llm_timeout",
        "model error",
        "within 0.2 s",
        "--call-timeout",
    ] {
        assert!(pane.contains(said), "{said:?} in the result pane: {pane}");
    }
}
