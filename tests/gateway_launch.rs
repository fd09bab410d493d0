//! A launched program's model calls through its run's endpoint: a small
//! agent on the `openai` package (from the Agents SDK's pinned venv),
//! pointed at the endpoint by the launch, against a loopback upstream that
//! answers a tool call whole and the answer streamed, with usage. The
//! run's calls, tokens and cost are the upstream's, each call is in the
//! recording and its replay, and a budget below the run's need stops it
//! by name while the program is answered the 429 that names it. About two
//! seconds a test once the venv is there.

use crate::common::cli::result;
use crate::common::loopback::{Captured, Loopback, Reply};
use crate::common::python::{Framework, python, root};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};

/// The upstream's key, in the variable the scenario names.
const UPSTREAM_KEY: &str = "sk-upstream-only-for-the-upstream";

/// The upstream: a tool call, whole, for a request that does not stream;
/// the answer in three chunks and a usage chunk for one that does.
fn upstream() -> Loopback {
    Loopback::serve(|request: &Captured, _| {
        let asked: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        if asked["stream"] == true {
            let chunk = |text: &str| {
                let chunk = json!({"id": "c2", "object": "chat.completion.chunk", "model": "test-model",
                    "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
                format!("data: {chunk}\n\n")
            };
            let usage = json!({"id": "c2", "object": "chat.completion.chunk", "model": "test-model",
                "choices": [], "usage": {"prompt_tokens": 150, "completion_tokens": 10, "total_tokens": 160}});
            let body = format!(
                "{}{}{}data: {usage}\n\ndata: [DONE]\n\n",
                chunk("Sunny"),
                chunk(" in"),
                chunk(" Paris.")
            );
            return Reply::text(200, &body).header("content-type", "text/event-stream");
        }
        Reply::json(
            200,
            &json!({"id": "c1", "object": "chat.completion", "created": 1, "model": "test-model",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": "t1", "type": "function",
                        "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}}]}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}),
        )
    })
}

/// A program scenario in `dir` running the fixture against `upstream`,
/// with `extra` fields in its `model`, and a pricing file beside it.
fn scenario(dir: &Path, upstream: &str, extra: &str) -> (String, String) {
    let fixture = root().join("tests/fixtures/launch/gateway_program.py");
    let command = json!([python(Framework::OpenAiAgents), fixture]);
    let text = format!(
        r#"{{"name": "weather", "pattern": "program", "command": {command},
  "env": {{"OPENAI_API_KEY": "sk-the-programs-own", "OPENAI_ORG_ID": "org-weather",
           "OPENAI_PROJECT_ID": "proj_forecasts"}},
  "model": {{"upstream": "{upstream}", "key_env": "GW_UPSTREAM_KEY"{extra}}},
  "stop_grace_ms": 2000}}"#
    );
    let app = dir.join("app.json");
    std::fs::write(&app, text).unwrap();
    let pricing = dir.join("prices.json");
    std::fs::write(&pricing, r#"{"test-model": {"input": 1, "output": 2}}"#).unwrap();
    (app.display().to_string(), pricing.display().to_string())
}

/// `conclave ARGS` with the upstream's key in its environment.
fn conclave(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .env("GW_UPSTREAM_KEY", UPSTREAM_KEY)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_launched_programs_calls_through_its_endpoint_are_the_runs_calls_tokens_and_cost() {
    let dir = tempfile::tempdir().unwrap();
    let upstream = upstream();
    let (app, pricing) = scenario(dir.path(), &upstream.base_url, "");
    let record = dir.path().join("run.jsonl");
    let record = record.to_str().unwrap();
    let out = conclave(&[
        "run",
        &app,
        "--headless",
        "--pricing",
        &pricing,
        "--record",
        record,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = result(&out);
    assert_eq!(run["status"], "ok", "{run}");
    let texts = crate::launch::output_texts(&run);
    assert_eq!(texts, ["answer: Sunny in Paris."]);
    let seen = upstream.requests();
    assert_eq!(seen.len(), 2, "one call each turn");
    for request in &seen {
        assert_eq!(
            request.header("authorization").as_deref(),
            Some(format!("Bearer {UPSTREAM_KEY}").as_str()),
            "the upstream gets its own key, never the program's"
        );
        // The organization and project the program's client names (from
        // OPENAI_ORG_ID and OPENAI_PROJECT_ID) go on with its call.
        assert_eq!(
            request.header("openai-organization").as_deref(),
            Some("org-weather")
        );
        assert_eq!(
            request.header("openai-project").as_deref(),
            Some("proj_forecasts")
        );
    }
    let streamed: Value = serde_json::from_slice(&seen[1].body).unwrap();
    assert_eq!(streamed["tools"][0]["function"]["name"], "weather");
    assert_eq!(streamed["messages"][2]["tool_call_id"], "t1");
    // Exactly what the upstream served: 2 calls, 250 + 30 tokens, priced
    // at $1 and $2 a million.
    assert_eq!(run["model_calls"], 2, "{run}");
    assert_eq!(run["input_tokens"], 250);
    assert_eq!(run["output_tokens"], 30);
    assert_eq!(run["cost_usd"], 0.00031);
    assert_eq!(run["gateway"], json!({"failed": 0, "refused": 0}));
    let recorded = std::fs::read_to_string(record).unwrap();
    let calls: Vec<Value> = recorded
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["type"] == "model_call")
        .collect();
    assert_eq!(calls.len(), 2, "{recorded}");
    assert_eq!(calls[0]["stream"], false);
    assert_eq!(calls[1]["stream"], true);
    assert_eq!(calls[1]["usage"]["input"], 150);
    assert!(!recorded.contains(UPSTREAM_KEY), "no key in the recording");
    assert!(!recorded.contains("sk-the-programs-own"));
    let replay = conclave(&["replay", record, "--headless"]);
    assert_eq!(replay.status.code(), Some(0), "{}", stderr(&replay));
    let replayed = result(&replay);
    assert_eq!(replayed["model_calls"], 2);
    assert_eq!(replayed["input_tokens"], 250);
    assert_eq!(replayed["cost_usd"], 0.00031);
    assert_eq!(replayed["stop_reason"], "completed");
    assert!(
        stderr(&replay).contains("model call  chat.completions test-model  200  150 in, 10 out"),
        "{}",
        stderr(&replay)
    );
}

#[test]
fn a_token_budget_below_the_runs_need_stops_it_by_name_and_the_program_sees_why() {
    let dir = tempfile::tempdir().unwrap();
    let upstream = upstream();
    let (_, pricing) = scenario(dir.path(), &upstream.base_url, "");
    let record = dir.path().join("run.jsonl");
    let record = record.to_str().unwrap();
    let fixture = root().join("tests/fixtures/launch/gateway_program.py");
    let python = python(Framework::OpenAiAgents);
    let out = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args([
            "launch",
            "--headless",
            "--record",
            record,
            "--pricing",
            &pricing,
        ])
        .args([
            "--upstream",
            &upstream.base_url,
            "--upstream-key-env",
            "GW_UPSTREAM_KEY",
        ])
        .args(["--max-tokens", "50", "--"])
        .arg(python)
        .arg(fixture)
        .env("GW_UPSTREAM_KEY", UPSTREAM_KEY)
        .env("OPENAI_API_KEY", "sk-the-programs-own")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let run = result(&out);
    assert_eq!(run["status"], "stopped", "{run}");
    assert_eq!(run["stop_reason"], "max_tokens");
    assert_eq!(upstream.requests().len(), 1, "the second call never went");
    assert_eq!(run["model_calls"], 1);
    assert_eq!(run["input_tokens"], 100);
    assert_eq!(run["gateway"], json!({"failed": 0, "refused": 1}));
    let error = run["error"].as_str().unwrap();
    assert!(
        error.contains(
            "its max_tokens budget (--max-tokens 50 tokens) is spent (120 tokens so far)"
        ),
        "the run says which budget: {error}"
    );
    // The program was answered the 429 naming the budget and raised it.
    assert!(
        error.contains(
            "RateLimitError: Error code: 429 - Conclave stopped this run: its max_tokens budget"
        ),
        "{error}"
    );
    let replay = conclave(&["replay", record, "--headless"]);
    let replayed = result(&replay);
    assert_eq!(replayed["stop_reason"], "max_tokens");
    assert_eq!(replayed["gateway"]["refused"], 1);
}

#[test]
fn the_scenarios_call_budget_stops_the_run_at_the_call_past_it() {
    let dir = tempfile::tempdir().unwrap();
    let upstream = upstream();
    let (app, _) = scenario(dir.path(), &upstream.base_url, r#", "max_calls": 1"#);
    let out = conclave(&["run", &app, "--headless", "--no-record"]);
    let run = result(&out);
    assert_eq!(run["stop_reason"], "max_calls", "{run}");
    assert_eq!(upstream.requests().len(), 1);
    assert_eq!(run["model_calls"], 1);
    let error = run["error"].as_str().unwrap();
    assert!(
        error.contains(
            "RateLimitError: Error code: 429 - Conclave stopped this run: its max_calls budget"
        ),
        "{error}"
    );
}
