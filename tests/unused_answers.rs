//! Answers that came back and were not used still took the endpoint's
//! tokens (issue 76): an answer that ignored the tools its request forced,
//! and a stream whose timeout ran out while the model was still writing.
//! Each is counted in the run's usage (estimated where the endpoint
//! counted none), on its `call_finished`, and again when a recording is
//! served back. A timeout after text says the model was writing and quotes
//! what came. The probe's profile keeps whether a stream brings usage.

use crate::common;
use crate::real_models::recorded;
use common::messy::{Behaviour, Messy};
use common::script::quick;
use conclave::bus::{CallOutcome, EventKind};
use conclave::engine::LaunchOptions;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const KEY: &str = "sk-unused-answers-test-key-0123456789";

fn conclave(work: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .env("OPENAI_API_KEY", KEY)
        .env("XDG_STATE_HOME", work.join("state"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

/// The model calls that failed, as recorded.
fn failed_model_calls(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["type"] == "call_finished" && e["tool"] == "model" && e["outcome"] != "ok")
        .collect()
}

/// `scenario` run against `endpoint` in `output` mode, recorded; then
/// the same run served from its recording. Both results, and the
/// recording's events.
fn recorded_and_served(
    work: &Path,
    scenario: &Value,
    endpoint: &Messy,
    output: &str,
) -> (Output, Output, Vec<Value>) {
    let file = work.join("scenario.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let recording = work.join("run.jsonl");
    let recording = recording.to_str().unwrap();
    let live = conclave(
        work,
        &[
            ["run", file, "--headless", "--record", recording].as_slice(),
            &endpoint.model_args(),
            &["--output", output],
        ]
        .concat(),
    );
    let served = conclave(work, &["run", file, "--headless", "--cassette", recording]);
    (live, served, recorded(Path::new(recording)))
}

fn result_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is one JSON document ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn an_answer_that_ignored_the_forced_tools_is_counted_live_and_served() {
    // llama-server with a template without tools: `--output tool` stops
    // at the first answer, which the server generated all the same.
    let work = tempfile::tempdir().unwrap();
    let scenario = quick("support_swarm.json");
    let endpoint = Messy::serve(&scenario, Behaviour::IgnoresTools, true);
    let (live, served, events) = recorded_and_served(work.path(), &scenario, &endpoint, "tool");
    let result = result_of(&live);
    assert_eq!(result["stop_reason"], "llm_bad_request", "{result}");
    let failed = failed_model_calls(&events);
    assert!(!failed.is_empty(), "{events:?}");
    for call in &failed {
        assert!(call["usage"]["input"].as_u64() > Some(0), "{call}");
        assert!(call["usage"]["output"].as_u64() > Some(0), "{call}");
    }
    let usage = &result["usage"];
    assert!(usage["input_tokens"].as_u64() > Some(0), "{result}");
    assert!(usage["output_tokens"].as_u64() > Some(0), "{result}");
    // Served from its recording, the run counts the same tokens.
    assert_eq!(served.status.code(), live.status.code());
    assert_eq!(
        result_of(&served)["usage"]["input_tokens"],
        usage["input_tokens"],
        "{}",
        String::from_utf8_lossy(&served.stderr)
    );
    assert_eq!(
        result_of(&served)["usage"]["output_tokens"],
        usage["output_tokens"]
    );
}

#[test]
fn tools_ignored_under_required_are_counted_when_auto_steps_down() {
    // llama-cpp-python: `json_schema` refused, several functions under
    // `required` answered in prose, streams without usage. The prose
    // answer is not the turn, and it is counted, estimated.
    let work = tempfile::tempdir().unwrap();
    let scenario = quick("support_swarm.json");
    let endpoint = Messy::serve(&scenario, Behaviour::IgnoresRequired, true);
    let (live, _, events) = recorded_and_served(work.path(), &scenario, &endpoint, "auto");
    let result = result_of(&live);
    let ignored: Vec<&Value> = failed_model_calls(&events)
        .into_iter()
        .filter(|c| c["error"].as_str().is_some_and(|e| e.contains("ignored")))
        .collect();
    assert!(!ignored.is_empty(), "{events:?}");
    for call in &ignored {
        assert!(call["usage"]["output"].as_u64() > Some(0), "{call}");
        assert_eq!(call["usage"]["estimated"], true, "{call}");
    }
    // The run's totals are every call's, the ignored ones included.
    let total = |key: &str| -> u64 {
        events
            .iter()
            .filter(|e| e["type"] == "call_finished" && e["tool"] == "model")
            .filter_map(|e| e["usage"][key].as_u64())
            .sum()
    };
    assert_eq!(
        result["usage"]["input_tokens"].as_u64(),
        Some(total("input")),
        "{result}"
    );
    assert_eq!(
        result["usage"]["output_tokens"].as_u64(),
        Some(total("output")),
        "{result}"
    );
    assert_eq!(result["usage"]["estimated"], true, "{result}");
}

#[test]
fn the_probes_profile_keeps_whether_a_stream_brings_usage() {
    let doc = quick("checkout_v2_launch.json");
    for (behaviour, brings) in [
        (Behaviour::Plain, json!(true)),
        (Behaviour::IgnoresRequired, json!(false)),
    ] {
        let work = tempfile::tempdir().unwrap();
        let endpoint = Messy::serve(&doc, behaviour, true);
        let profile = work.path().join("profile.json");
        let output = conclave(
            work.path(),
            &[
                "probe",
                "--provider",
                "openai",
                "--model",
                "mock-model",
                "--base-url",
                &endpoint.base_url,
                "--write",
                profile.to_str().unwrap(),
            ],
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{behaviour:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&profile).unwrap()).unwrap();
        assert_eq!(written["stream_usage"], brings, "{behaviour:?}: {written}");
    }
}

/// A server on loopback that answers every request with the head of an
/// event stream and three pieces of text, then writes nothing more and
/// keeps the connection open: a model still generating.
async fn still_writing() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            tokio::spawn(async move {
                let mut request = vec![0_u8; 1 << 16];
                let _ = socket.read(&mut request).await;
                let mut head = String::from(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\r\n",
                );
                for piece in ["{\"agent\": ", "\"demand_analyst\", ", "\"stance\": \"go"] {
                    let chunk = json!({"object": "chat.completion.chunk",
                        "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
                    head.push_str(&format!("data: {chunk}\n\n"));
                }
                socket.write_all(head.as_bytes()).await.unwrap();
                socket.flush().await.unwrap();
                std::future::pending::<()>().await;
            });
        }
    });
    format!("http://{address}")
}

#[tokio::test(start_paused = true)]
async fn a_call_whose_timeout_ran_out_while_streaming_says_so_and_counts_its_tokens() {
    let base = still_writing().await;
    let mut doc = quick("checkout_v2_launch.json");
    doc["provider"]["timeout_seconds"] = 6.into();
    doc["resilience"]["retries"]["max_attempts"] = 1.into();
    let options = LaunchOptions {
        provider: common::endpoint_at(&base),
        ..LaunchOptions::default()
    };
    let (outcome, events) = common::run(common::scenario(&doc), options).await;
    assert_eq!(
        outcome.result["stop_reason"], "llm_timeout",
        "{}",
        outcome.result
    );
    let timed_out: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallFinished {
                tool,
                outcome: CallOutcome::Timeout,
                usage,
                error,
                ..
            } if tool == "model" => Some((usage, error)),
            _ => None,
        })
        .collect();
    assert!(!timed_out.is_empty(), "{events:?}");
    for (usage, error) in timed_out {
        let error = error.as_deref().unwrap_or_default();
        assert!(
            error.starts_with(
                "the model was still writing when the timeout per call ran out after 6 s"
            ),
            "{error}"
        );
        assert!(error.contains("3 pieces had come"), "{error}");
        assert!(
            error.contains(
                "the text so far (41 characters): {\"agent\": \"demand_analyst\", \"stance\": \"go"
            ),
            "{error}"
        );
        assert!(!error.contains("gave no answer"), "{error}");
        let usage = usage.expect("the tokens counted");
        assert_eq!(usage.output, 3);
        assert!(usage.input > 0 && usage.estimated, "{usage:?}");
    }
    let usage = &outcome.result["usage"];
    assert!(
        usage["input_tokens"].as_u64() > Some(0),
        "{}",
        outcome.result
    );
    assert_eq!(usage["estimated"], true, "{}", outcome.result);
}
