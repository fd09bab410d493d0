//! The real binary in a pseudo-terminal against a loopback endpoint that
//! streams: the dashboard shows the analyst's summary while the model is
//! still writing it, and the contribution once the call is done. The
//! endpoint runs on its own thread and runtime and holds the stream half
//! way until the test has seen the partial summary, so nothing depends on
//! how fast either side is. `--no-stream` asks for whole answers.

use crate::common;

use common::pty::{Session, recordings};
use common::streaming::{Reply, Streamed, asks_for_the_final_answer, serve_in_background};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

const SUMMARY: &str = "Fraud rates are flat since March and chargebacks sit under the threshold, so checkout v2 can ship to every region.";

fn contribution() -> String {
    json!({"agent": "risk_analyst", "stance": "go", "confidence": 0.8, "summary": SUMMARY,
           "actions": ["Watch chargebacks for a week"]})
    .to_string()
}

fn scenario(dir: &Path) -> PathBuf {
    let file = dir.join("one_analyst.json");
    let doc = json!({
        "name": "one_analyst", "pattern": "collaboration",
        "goal": "Decide whether to launch checkout v2", "context": {"region": "US"},
        "budget": {"max_rounds": 1, "min_go_votes": 1},
        "team": {"roles": {"risk_analyst": {"focus": "payments"}}, "sequence": ["risk_analyst"]},
        "provider": {"kind": "openai", "model": "mock-model"}
    });
    std::fs::write(&file, doc.to_string()).unwrap();
    file
}

/// The row of the round table that starts with `role`.
fn row_of<'a>(text: &'a str, role: &str) -> Option<&'a str> {
    text.lines()
        .find(|line| line.trim_start_matches('│').starts_with(role))
}

#[test]
fn the_dashboard_shows_the_summary_while_the_model_writes_it() {
    let release = Arc::new(Notify::new());
    let hold = Arc::clone(&release);
    let text = contribution();
    let (base_url, seen) = serve_in_background(move |request: &Value, _| {
        let mut streamed = Streamed::new(&text, 20, Duration::from_millis(100));
        if asks_for_the_final_answer(request) {
            streamed = Streamed::new("Ship checkout v2 everywhere.", 4, Duration::from_millis(50));
        } else {
            // Half the contribution, then wait for the test.
            streamed.hold = Some((10, Arc::clone(&hold)));
        }
        Reply::Stream(streamed)
    });
    let home = tempfile::tempdir().unwrap();
    let file = scenario(home.path());
    let mut pty = Session::start(
        &[
            "tui",
            file.to_str().unwrap(),
            "--provider",
            "openai",
            "--base-url",
            &base_url,
        ],
        home.path(),
    );

    // The first half of the contribution has come: its summary so far is
    // on screen, the cell says the analyst is writing, and no stance yet.
    pty.wait_text("Fraud rates are flat");
    let screen = pty.text();
    assert!(
        row_of(&screen, "risk_analyst").is_some_and(|r| r.contains("✎ writing")),
        "{screen}"
    );
    assert!(
        screen.contains("risk_analyst · round 1 · writing…"),
        "{screen}"
    );
    assert!(
        !screen.contains("threshold"),
        "the second half has not come:\n{screen}"
    );
    assert!(!screen.contains("FINISHED"), "{screen}");

    // Let the stream go on: the validated contribution replaces the text.
    release.notify_one();
    pty.wait_text("FINISHED");
    let screen = pty.text();
    assert!(
        row_of(&screen, "risk_analyst").is_some_and(|r| r.contains("go") && !r.contains("✎")),
        "{screen}"
    );
    assert!(
        screen.contains("ttft"),
        "the model's row times the stream:\n{screen}"
    );
    assert_eq!(seen.lock().unwrap()[0]["stream"], true);

    pty.press("q");
    assert!(pty.wait_exit().success());

    // The recording has the deltas, and they make the contribution.
    let recording = std::fs::read_to_string(&recordings(home.path())[0]).unwrap();
    let events: Vec<Value> = recording
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let call = events
        .iter()
        .find(|e| e["type"] == "call_started" && e["agent"] == "risk_analyst")
        .unwrap()["call"]
        .clone();
    let written: String = events
        .iter()
        .filter(|e| e["type"] == "call_delta" && e["call"] == call)
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(written, contribution());
}

#[test]
fn with_no_stream_the_dashboard_asks_for_whole_answers() {
    let (base_url, seen) = serve_in_background(|request: &Value, _| {
        Reply::Whole(if asks_for_the_final_answer(request) {
            "Ship checkout v2 everywhere.".to_string()
        } else {
            contribution()
        })
    });
    let home = tempfile::tempdir().unwrap();
    let file = scenario(home.path());
    let mut pty = Session::start(
        &[
            "run",
            file.to_str().unwrap(),
            "--provider",
            "openai",
            "--base-url",
            &base_url,
            "--no-stream",
        ],
        home.path(),
    );
    pty.wait_text("FINISHED");
    assert!(pty.text().contains("Fraud rates are flat"));
    assert!(seen.lock().unwrap()[0].get("stream").is_none());
    pty.press("q");
    assert!(pty.wait_exit().success());
}

/// The characters the screen says a model has written so far
/// (`writing… N characters`), if it says so.
fn characters_written(screen: &str) -> Option<u64> {
    let (_, after) = screen.split_once("writing… ")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[test]
fn in_tool_mode_the_dashboard_counts_the_arguments_as_the_model_writes_them() {
    let release = Arc::new(Notify::new());
    let hold = Arc::clone(&release);
    let text = contribution();
    let (base_url, seen) = serve_in_background(move |request: &Value, _| {
        match request["tool_choice"]["function"]["name"].as_str() {
            // The contribution as the forced function's arguments: the
            // first piece, then wait for the test.
            Some(name) => Reply::Stream(Streamed {
                function: Some(name.to_string()),
                hold: Some((1, Arc::clone(&hold))),
                ..Streamed::new(&text, 20, Duration::from_millis(100))
            }),
            None => Reply::Stream(Streamed::new(
                "Ship checkout v2 everywhere.",
                4,
                Duration::from_millis(50),
            )),
        }
    });
    let home = tempfile::tempdir().unwrap();
    let file = scenario(home.path());
    let mut pty = Session::start(
        &[
            "tui",
            file.to_str().unwrap(),
            "--provider",
            "openai",
            "--base-url",
            &base_url,
            "--output",
            "tool",
        ],
        home.path(),
    );

    // The first piece of the arguments has come: the pane counts it.
    pty.wait_for("a nonzero count of characters written", |screen| {
        characters_written(screen).is_some_and(|n| n > 0)
    });
    let screen = pty.text();
    assert!(
        screen.contains("risk_analyst · round 1 · writing…"),
        "{screen}"
    );
    assert!(!screen.contains("FINISHED"), "{screen}");
    assert!(
        seen.lock().unwrap()[0]["tools"].is_array(),
        "asked in tool mode"
    );

    // The rest: the validated contribution, and the model's row timed the
    // arguments as the answer's first token.
    release.notify_one();
    pty.wait_text("FINISHED");
    let screen = pty.text();
    assert!(
        row_of(&screen, "risk_analyst").is_some_and(|r| r.contains("go") && !r.contains("✎")),
        "{screen}"
    );
    assert!(screen.contains("ttft"), "{screen}");
    pty.press("q");
    assert!(pty.wait_exit().success());

    // The recording marks the deltas as arguments; they make the
    // contribution.
    let recording = std::fs::read_to_string(&recordings(home.path())[0]).unwrap();
    let events: Vec<Value> = recording
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let call = events
        .iter()
        .find(|e| e["type"] == "call_started" && e["agent"] == "risk_analyst")
        .unwrap()["call"]
        .clone();
    let deltas: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "call_delta" && e["call"] == call)
        .collect();
    assert!(deltas.iter().all(|e| e["arguments"] == true), "{deltas:?}");
    let written: String = deltas.iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(written, contribution());
}
