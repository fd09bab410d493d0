//! A launched program's model calls served back from its recording: the
//! gateway fixture (the `openai` package from the Agents SDK's pinned
//! venv) recorded against a loopback upstream (a tool call whole, the
//! answer streamed with usage), then run from the recording with no
//! upstream at all, with a changed prompt (a miss by name, or live), and
//! from recordings that cannot serve. About a second a program run.

use crate::common::cli::result;
use crate::common::loopback::{Captured, Loopback, Reply};
use crate::common::python::{Framework, python, root};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The upstream's key; the upstream echoes it in its answers' ids, which a
/// recording must not keep.
const KEY: &str = "sk-Qx7Lm2Vb9Rt4Zp3Hw8";

fn upstream() -> Loopback {
    Loopback::serve(|request: &Captured, _| {
        let asked: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let id = format!("c-{KEY}");
        if asked["stream"] == true {
            let piece = |text: &str| {
                let chunk = json!({"id": id, "object": "chat.completion.chunk", "model": "test-model",
                    "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
                format!("data: {chunk}\n\n")
            };
            let usage = json!({"id": id, "object": "chat.completion.chunk", "model": "test-model",
                "choices": [], "usage": {"prompt_tokens": 150, "completion_tokens": 10, "total_tokens": 160}});
            let body = format!(
                "{}{}data: {usage}\n\ndata: [DONE]\n\n",
                piece("Sunny"),
                piece(" in Paris.")
            );
            return Reply::text(200, &body).header("content-type", "text/event-stream");
        }
        Reply::json(
            200,
            &json!({"id": id, "object": "chat.completion", "created": 1, "model": "test-model",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": "t1", "type": "function",
                        "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}}]}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}),
        )
    })
}

/// A base URL where nothing listens.
fn dead_upstream() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/v1", listener.local_addr().unwrap())
}

fn fixture() -> PathBuf {
    root().join("tests/fixtures/launch/gateway_program.py")
}

/// A program scenario `dir/NAME.json` running the fixture against
/// `upstream`, its question `prompt` when given; the pricing file beside.
fn scenario(dir: &Path, name: &str, upstream: &str, prompt: Option<&str>) -> String {
    let mut env = json!({"OPENAI_API_KEY": "sk-the-programs-own"});
    if let Some(prompt) = prompt {
        env["PROMPT"] = json!(prompt);
    }
    let text = json!({"name": "weather", "pattern": "program",
        "command": [python(Framework::OpenAiAgents), fixture()], "env": env,
        "model": {"upstream": upstream, "key_env": "CASSETTE_UPSTREAM_KEY"},
        "stop_grace_ms": 2000});
    let app = dir.join(format!("{name}.json"));
    std::fs::write(&app, text.to_string()).unwrap();
    std::fs::write(
        dir.join("prices.json"),
        r#"{"test-model": {"input": 1, "output": 2}}"#,
    )
    .unwrap();
    app.display().to_string()
}

fn conclave(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .env("CASSETTE_UPSTREAM_KEY", KEY)
        .env("OPENAI_API_KEY", "sk-the-programs-own")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn model_calls(recording: &str) -> Vec<Value> {
    std::fs::read_to_string(recording)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["type"] == "model_call")
        .collect()
}

/// Record the fixture's run against the loopback upstream into `dir`.
fn record(dir: &Path, upstream: &Loopback) -> String {
    let app = scenario(dir, "app", &upstream.base_url, None);
    let prices = dir.join("prices.json");
    let rec = dir.join("rec.jsonl").display().to_string();
    let out = conclave(&[
        "run",
        &app,
        "--headless",
        "--pricing",
        prices.to_str().unwrap(),
        "--record",
        &rec,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    rec
}

fn counts(run: &Value) -> Value {
    json!([
        run["model_calls"],
        run["input_tokens"],
        run["output_tokens"],
        run["cost_usd"]
    ])
}

#[test]
fn a_recorded_run_is_served_again_with_no_upstream_and_ends_as_it_ended() {
    let dir = tempfile::tempdir().unwrap();
    let upstream = upstream();
    let rec = record(dir.path(), &upstream);
    assert_eq!(upstream.requests().len(), 2);
    let calls = model_calls(&rec);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["call"], 1);
    assert_eq!(calls[0]["prompt_sha256"].as_str().unwrap().len(), 64);
    let body: Value = serde_json::from_str(calls[0]["answer"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(
        body["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
        "weather"
    );
    assert_eq!(calls[0]["answer"]["content_type"], "application/json");
    let events = calls[1]["answer"]["events"].as_array().unwrap();
    assert_eq!(
        events.len(),
        3,
        "two pieces and [DONE]; the usage chunk Conclave asked for is not the client's: {events:?}"
    );
    assert_eq!(events[2], "data: [DONE]\n\n");
    let recorded = std::fs::read_to_string(&rec).unwrap();
    assert!(
        !recorded.contains(KEY),
        "the upstream's key echoed in its answers is not kept"
    );
    assert!(recorded.contains("c-[redacted]"));
    let first = result(&conclave(&["replay", &rec, "--headless"]));

    // `conclave launch --cassette`, no upstream at all: nothing to reach.
    let rec2 = dir.path().join("served.jsonl").display().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_conclave"))
        // No --pricing: the recorded cost is the run's.
        .args([
            "launch",
            "--headless",
            "--cassette",
            &rec,
            "--record",
            &rec2,
            "--",
        ])
        .arg(python(Framework::OpenAiAgents))
        .arg(fixture())
        .env("OPENAI_API_KEY", "sk-the-programs-own")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let served = result(&out);
    assert_eq!(
        crate::launch::output_texts(&served),
        ["answer: Sunny in Paris."]
    );
    assert_eq!(counts(&served), counts(&first), "{served}");
    assert_eq!(counts(&served), json!([2, 250, 30, 0.00031]));
    assert!(
        stderr(&out).contains(&format!("served 2 calls from {rec}, 0 live")),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        upstream.requests().len(),
        2,
        "no request reached the upstream"
    );
    let again = model_calls(&rec2);
    assert_eq!(again[1]["from_cassette"], true);
    assert_eq!(
        again[1]["answer"], calls[1]["answer"],
        "a served run's recording serves in turn"
    );
}

#[test]
fn a_changed_prompt_misses_by_name_and_the_program_is_told_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let upstream = upstream();
    let rec = record(dir.path(), &upstream);
    let changed = scenario(
        dir.path(),
        "changed",
        &dead_upstream(),
        Some("And in Lyon?"),
    );
    let out = conclave(&[
        "run",
        &changed,
        "--headless",
        "--no-record",
        "--cassette",
        &rec,
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let run = result(&out);
    assert_eq!(run["stop_reason"], "cassette_miss", "{run}");
    let said = stderr(&out);
    assert!(
        said.contains("conclave: cassette_miss: the recording does not hold model call 1 (chat.completions test-model): prompt_sha256: recorded "),
        "{said}"
    );
    assert!(
        said.contains(&format!("served 0 calls from {rec}, 0 live")),
        "{said}"
    );
    let error = run["error"].as_str().unwrap();
    assert!(
        error.contains("BadRequestError: Error code: 400") && error.contains("cassette_miss"),
        "the program raised the miss it was answered: {error}"
    );
    assert_eq!(upstream.requests().len(), 2);

    // `--cassette-miss live`: the changed calls go to the upstream.
    let live = scenario(dir.path(), "live", &upstream.base_url, Some("And in Lyon?"));
    let rec2 = dir.path().join("live.jsonl").display().to_string();
    let args = [
        "run",
        &live,
        "--headless",
        "--cassette",
        &rec,
        "--cassette-miss",
        "live",
    ];
    let out = conclave(&[&args[..], &["--record", &rec2]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("served 0 calls from"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains(", 2 live"), "{}", stderr(&out));
    assert_eq!(upstream.requests().len(), 4);
    assert_eq!(result(&out)["model_calls"], 2);
    assert!(model_calls(&rec2).iter().all(|c| c["answer"].is_object()));
}

#[test]
fn a_recording_that_cannot_serve_is_refused_by_name_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let upstream = upstream();
    let rec = record(dir.path(), &upstream);
    let text = std::fs::read_to_string(&rec).unwrap();
    let app = scenario(dir.path(), "dead", &dead_upstream(), None);
    let refused = |name: &str, text: String| {
        let path = dir.path().join(name).display().to_string();
        std::fs::write(&path, text).unwrap();
        let out = conclave(&[
            "run",
            &app,
            "--headless",
            "--no-record",
            "--cassette",
            &path,
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(out.stdout.is_empty(), "nothing ran");
        (path, stderr(&out))
    };
    let lines = |edit: &dyn Fn(&mut Value)| -> String {
        text.lines()
            .map(|line| {
                let mut value: Value = serde_json::from_str(line).unwrap();
                if value["type"] == "model_call" {
                    edit(&mut value);
                }
                format!("{value}\n")
            })
            .collect()
    };
    // A recording from before answers were kept.
    let old = lines(&|call| {
        let call = call.as_object_mut().unwrap();
        for field in ["call", "prompt_sha256", "answer"] {
            call.remove(field);
        }
    });
    let (path, said) = refused("old.jsonl", old);
    assert!(
        said.contains(&format!("{path}: model call 1 has no prompt_sha256: the recording was made before Conclave kept each call's request and answer")),
        "{said}"
    );
    // Cut in the middle of its second model call's line.
    let at = text.rfind("\"type\":\"model_call\"").unwrap() + 40;
    let (path, said) = refused("cut.jsonl", text[..at].to_string());
    assert!(
        said.contains(&format!("conclave: --cassette: {path}:")),
        "{said}"
    );
    assert!(said.contains("expected a watch recording's line"), "{said}");
    // An answer no API sends.
    let hostile = lines(&|call| {
        if call["call"] == 1 {
            call["answer"]["body"] = json!("\u{1b}[2J<html>gotcha</html>");
        }
    });
    let (path, said) = refused("hostile.jsonl", hostile);
    assert!(
        said.contains(&format!(
            "{path}: model call 1: expected the JSON answer chat.completions sends"
        )),
        "{said}"
    );
    assert!(!said.contains('\u{1b}'));
    let events = lines(&|call| {
        if call["call"] == 2 {
            call["answer"]["events"][0] = json!("data: {\"choices\": [");
        }
    });
    let (_, said) = refused("events.jsonl", events);
    assert!(
        said.contains("model call 2: event 1 of the stream is not a server-sent event"),
        "{said}"
    );
}
