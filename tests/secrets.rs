//! The API key never leaves the request: with a known fake key in
//! OPENAI_API_KEY, runs against a loopback endpoint that succeeds, refuses
//! the key (echoing it back, as real endpoints do in part) or fails, and
//! then every byte printed, every recording and every file the process
//! wrote is searched for it.

use crate::common;

use common::pty::{Session, recordings};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-conclave-test-9f3b27c1d8e04a6b";

fn scenario(dir: &Path) -> PathBuf {
    let file = dir.join("one_analyst.json");
    let doc = json!({
        "name": "one_analyst", "pattern": "collaboration",
        "goal": "Decide whether to launch", "context": {"region": "US"},
        "budget": {"max_rounds": 1},
        "team": {"roles": {"risk_analyst": {"focus": "payments"}}, "sequence": ["risk_analyst"]},
        "provider": {"kind": "openai", "model": "mock-model"}
    });
    std::fs::write(&file, doc.to_string()).unwrap();
    file
}

fn answer() -> ResponseTemplate {
    let contribution = json!({"agent": "risk_analyst", "stance": "go", "summary": "Ready.",
                              "confidence": 0.8, "actions": ["Ship it"]});
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"message": {"role": "assistant", "content": contribution.to_string()}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}
    }))
}

/// What a real endpoint says about a wrong key: the key itself, in part or
/// whole.
fn refusal() -> ResponseTemplate {
    ResponseTemplate::new(401).set_body_json(json!({"error": {
        "message": format!("Incorrect API key provided: {KEY}. You can find your API key at ..."),
        "type": "invalid_request_error", "code": "invalid_api_key"}}))
}

fn failure() -> ResponseTemplate {
    ResponseTemplate::new(503)
        .insert_header("Retry-After", "0")
        .set_body_string(format!("upstream refused Authorization: Bearer {KEY}"))
}

async fn endpoint(response: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(response)
        .mount(&server)
        .await;
    server
}

fn headless(scenario: &Path, server: &MockServer, work: &Path) -> Output {
    let recording = work.join("run.jsonl");
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["run", "--headless", "--provider", "openai", "--base-url"])
        .arg(format!("{}/v1", server.uri()))
        .arg("--record")
        .arg(&recording)
        .arg(scenario)
        .env("OPENAI_API_KEY", KEY)
        .env("XDG_STATE_HOME", work.join("state"))
        .env("RUST_BACKTRACE", "1")
        .current_dir(work)
        .output()
        .expect("the binary runs")
}

/// Every file under `dir` that mentions the key.
fn files_with_the_key(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if String::from_utf8_lossy(&std::fs::read(&path).unwrap()).contains(KEY) {
                found.push(path);
            }
        }
    }
    found
}

fn assert_clean(output: &Output, work: &Path) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stdout.contains(KEY), "stdout has the key:\n{stdout}");
    assert!(!stderr.contains(KEY), "stderr has the key:\n{stderr}");
    assert_eq!(files_with_the_key(work), Vec::<PathBuf>::new());
    let recording = std::fs::read_to_string(work.join("run.jsonl")).unwrap();
    assert!(recording.lines().count() > 3, "{recording}");
}

#[tokio::test]
async fn a_successful_run_prints_and_records_no_key() {
    let work = tempfile::tempdir().unwrap();
    let server = endpoint(answer()).await;
    let output = headless(&scenario(work.path()), &server, work.path());
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["trace"][0]["stance"], "go", "{result}");
    assert!(
        !server.received_requests().await.unwrap().is_empty(),
        "the endpoint saw the key"
    );
    assert_clean(&output, work.path());
}

#[tokio::test]
async fn a_refused_key_is_named_but_never_shown() {
    let work = tempfile::tempdir().unwrap();
    let server = endpoint(refusal()).await;
    let output = headless(&scenario(work.path()), &server, work.path());
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("llm_auth"), "{stderr}");
    assert!(stderr.contains("OPENAI_API_KEY"), "{stderr}");
    assert_clean(&output, work.path());
}

#[tokio::test]
async fn a_failing_endpoint_that_echoes_the_key_does_not_leak_it() {
    let work = tempfile::tempdir().unwrap();
    let server = endpoint(failure()).await;
    let output = headless(&scenario(work.path()), &server, work.path());
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("llm_unavailable"), "{stderr}");
    assert!(
        server.received_requests().await.unwrap().len() > 1,
        "503 is retried"
    );
    assert_clean(&output, work.path());
}

#[test]
fn the_dashboard_shows_the_refusal_but_not_the_key() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(endpoint(refusal()));
    let work = tempfile::tempdir().unwrap();
    let file = scenario(work.path());
    let base_url = format!("{}/v1", server.uri());
    let state = work.path().join("state");
    let mut session = Session::start_with(
        &[
            "run",
            file.to_str().unwrap(),
            "--provider",
            "openai",
            "--base-url",
            &base_url,
        ],
        &state,
        &[("OPENAI_API_KEY", KEY)],
    );
    session.wait_text("STOPPED");
    session.wait_text("llm_auth");
    session.press("4");
    session.wait_text("OPENAI_API_KEY");
    session.press("q");
    assert!(session.wait_exit().success());
    let raw = String::from_utf8_lossy(&session.raw.lock().unwrap()).into_owned();
    assert!(!raw.contains(KEY), "the terminal got the key");
    assert_eq!(recordings(&state).len(), 1);
    assert_eq!(files_with_the_key(work.path()), Vec::<PathBuf>::new());
}

#[test]
fn a_key_typed_as_an_arguments_value_is_masked_in_the_argument_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["run", "scenarios/checkout_v2_launch.json", "--headless"])
        .args(["--decide", KEY])
        .env("OPENAI_API_KEY", KEY)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--decide"),
        "the error names the option: {stderr}"
    );
    assert!(
        !stderr.contains(KEY) && !stderr.contains(&KEY[3..15]),
        "the key is masked: {stderr}"
    );
    assert!(output.stdout.is_empty());
}
