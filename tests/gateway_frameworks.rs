//! Each of the four frameworks' programs, on the framework's own OpenAI
//! client (tests/fixtures/launch/gw_*.py), launched headless and pointed
//! at its run's endpoint by the launch, against a loopback upstream that
//! answers as a real server does (`common::openai_upstream`): a tool call,
//! then the answer, streamed, with usage. The run's model calls, tokens
//! (cached ones too) and cost are exactly what the upstream served,
//! counted from its captured requests; the upstream gets its own key,
//! never the program's; a token budget below the run's need stops it by
//! name and the framework raises the 429 it was answered. Run again from
//! its recording (`--cassette`) with the upstream stopped, each program
//! gives the same answer and counts, nothing live; asked another question,
//! its first call misses by name. The frameworks
//! are installed by `common::python`; each test takes a few seconds once
//! they are.

use crate::common::cli::result;
use crate::common::loopback::Loopback;
use crate::common::openai_upstream::{self, Asked, MODEL, Usage};
use crate::common::python::{Framework, python, root};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};

/// The upstream's key, in the variable the scenario names.
const UPSTREAM_KEY: &str = "sk-upstream-only-for-the-upstream";
/// The program's own key, which must never reach the upstream.
const PROGRAMS_KEY: &str = "sk-the-programs-own";
/// What each program prints once its tool ran and the model answered.
const ANSWER: &str = "answer: In Paris it is sunny, 21 C.";

/// The program of `framework` among the fixtures.
fn program(framework: Framework) -> String {
    let script = match framework {
        Framework::OpenAiAgents => "gw_openai_agents.py",
        Framework::LangGraph => "gw_langgraph.py",
        Framework::PydanticAi => "gw_pydantic_ai.py",
        Framework::AutoGen => "gw_autogen.py",
    };
    let path = root().join("tests/fixtures/launch").join(script);
    path.display().to_string()
}

/// The program's environment: its own key, and every proxy variable
/// pointing at a closed loopback port, so that a framework reaching for
/// anything but its endpoint fails here rather than leaving the machine.
fn program_env() -> Vec<(&'static str, &'static str)> {
    vec![
        ("OPENAI_API_KEY", PROGRAMS_KEY),
        ("HTTP_PROXY", "http://127.0.0.1:9"),
        ("HTTPS_PROXY", "http://127.0.0.1:9"),
        ("ALL_PROXY", "http://127.0.0.1:9"),
        ("NO_PROXY", "127.0.0.1,localhost"),
        ("PYTHONDONTWRITEBYTECODE", "1"),
    ]
}

/// A program scenario in `dir` running `framework`'s program against
/// `upstream`, and a pricing file beside it ([`counted`]'s prices).
fn scenario(dir: &Path, framework: Framework, upstream: &str) -> (String, String) {
    let command = json!([python(framework), program(framework)]);
    let env: serde_json::Map<String, Value> = program_env()
        .into_iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let text = json!({"name": "weather", "pattern": "program", "command": command, "env": env,
        "model": {"upstream": upstream, "key_env": "GW_UPSTREAM_KEY"}, "stop_grace_ms": 2000});
    let app = dir.join("app.json");
    std::fs::write(&app, text.to_string()).unwrap();
    (app.display().to_string(), pricing(dir))
}

fn pricing(dir: &Path) -> String {
    let pricing = dir.join("prices.json");
    let prices = json!({MODEL: {"input": 1, "output": 2, "cached_input": 0.5}});
    std::fs::write(&pricing, prices.to_string()).unwrap();
    pricing.display().to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The run's output lines of `stream`.
fn lines<'a>(run: &'a Value, stream: &str) -> Vec<&'a str> {
    run["output"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["stream"] == stream)
        .map(|l| l["text"].as_str().unwrap())
        .collect()
}

/// What the upstream served, counted from its captured requests: each
/// request, and the tokens it was answered with, all told.
fn served(upstream: &Loopback) -> (Vec<Asked>, Usage) {
    let asked: Vec<Asked> = upstream.requests().iter().map(Asked::of).collect();
    let sum = |part: fn(Usage) -> u64| asked.iter().map(|a| part(a.usage())).sum();
    let usage = Usage {
        input: sum(|u| u.input),
        cached: sum(|u| u.cached),
        output: sum(|u| u.output),
    };
    (asked, usage)
}

/// The run counted `usage`: its tokens, and its cost at $1 a million in
/// ($0.50 cached) and $2 out.
fn counted(run: &Value, usage: Usage) {
    let tokens = ["input_tokens", "cached_input_tokens", "output_tokens"].map(|k| run[k].clone());
    let served = [usage.input, usage.cached, usage.output].map(|n| json!(n));
    assert_eq!(tokens, served, "{run}");
    let fresh = (usage.input - usage.cached) as f64;
    let cost = (fresh + usage.cached as f64 * 0.5 + usage.output as f64 * 2.0) / 1e6;
    let charged = run["cost_usd"].as_f64().unwrap();
    assert!((charged - cost).abs() < 1e-12, "{charged} against {cost}");
}

/// Every request reached the upstream with its key and nothing of the
/// program's.
fn upstream_keys_only(upstream: &Loopback) {
    for request in upstream.requests() {
        assert_eq!(
            request.header("authorization").as_deref(),
            Some(format!("Bearer {UPSTREAM_KEY}").as_str()),
            "the upstream gets its own key"
        );
        assert!(!request.head.contains(PROGRAMS_KEY), "{}", request.head);
    }
}

/// `framework`'s program run headless through its endpoint ends well, and
/// its run counts exactly what the upstream served.
fn counts_what_was_served(framework: Framework, responses_api: bool) {
    let dir = tempfile::tempdir().unwrap();
    let upstream = openai_upstream::serve();
    let (app, pricing) = scenario(dir.path(), framework, &upstream.base_url);
    let record = dir.path().join("run.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["run", &app, "--headless", "--pricing", &pricing, "--record"])
        .arg(&record)
        .env("GW_UPSTREAM_KEY", UPSTREAM_KEY)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let run = result(&out);
    assert_eq!(out.status.code(), Some(0), "{run:#}\n{}", stderr(&out));
    assert_eq!(run["status"], "ok", "{run}");
    assert_eq!(lines(&run, "stdout"), [ANSWER], "{run:#}");

    let (asked, usage) = served(&upstream);
    assert_eq!(asked.len(), 2, "a tool call, then the answer: {asked:?}");
    assert!(asked[0].tool_call && !asked[1].tool_call, "{asked:?}");
    assert!(
        asked.iter().all(|a| a.responses == responses_api),
        "{asked:?}"
    );
    assert!(
        asked.iter().all(|a| a.stream),
        "every call streamed: {asked:?}"
    );
    for request in upstream.requests().iter().filter(|_| !responses_api) {
        // Asked for by the client or added by the endpoint: the stream's
        // usage comes in its last chunk either way.
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        assert_eq!(body["stream_options"]["include_usage"], true, "{body}");
    }
    upstream_keys_only(&upstream);
    assert_eq!(run["model_calls"], asked.len(), "{run}");
    counted(&run, usage);
    assert_eq!(run["gateway"], json!({"failed": 0, "refused": 0}));
    recorded_as_served(&record, &asked, &run);
    served_from_its_recording(framework, &record, &run);
}

/// A base URL nothing listens at: the upstream, stopped.
fn stopped_upstream() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let at = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{at}/v1")
}

/// `framework`'s run recorded at `record` (which counted `run`), run
/// again with `--cassette` and its upstream stopped: the same answer, the
/// same calls, tokens and cost, none of them live. Asked another
/// question, its first call misses by name, exit 3, and the framework
/// raises the error it was answered.
fn served_from_its_recording(framework: Framework, record: &Path, run: &Value) {
    let dir = tempfile::tempdir().unwrap();
    let (app, pricing) = scenario(dir.path(), framework, &stopped_upstream());
    let again = |question: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
        command
            .args([
                "run",
                &app,
                "--headless",
                "--pricing",
                &pricing,
                "--cassette",
            ])
            .arg(record)
            .env("GW_UPSTREAM_KEY", UPSTREAM_KEY)
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        if let Some(question) = question {
            command.env("QUESTION", question);
        }
        command.output().unwrap()
    };
    let out = again(None);
    let served = result(&out);
    assert_eq!(out.status.code(), Some(0), "{served:#}\n{}", stderr(&out));
    assert_eq!(lines(&served, "stdout"), [ANSWER], "{served:#}");
    for counted in [
        "model_calls",
        "input_tokens",
        "cached_input_tokens",
        "output_tokens",
        "cost_usd",
    ] {
        assert_eq!(served[counted], run[counted], "{counted}: {served}");
    }
    assert!(
        stderr(&out).contains("served 2 calls from") && stderr(&out).contains(", 0 live"),
        "{}",
        stderr(&out)
    );
    let out = again(Some("What is the weather in Lyon?"));
    let missed = result(&out);
    assert_eq!(out.status.code(), Some(3), "{missed:#}\n{}", stderr(&out));
    assert_eq!(missed["stop_reason"], "cassette_miss", "{missed}");
    let said = stderr(&out);
    assert!(
        said.contains("cassette_miss: the recording does not hold model call 1 (")
            && said.contains("prompt_sha256: recorded "),
        "the miss is named: {said}"
    );
    let told = lines(&missed, "stderr").join("\n");
    assert!(
        told.contains("Error code: 400") && told.contains("does not hold model call 1 ("),
        "the program raised the miss it was answered:\n{told}"
    );
    assert!(!lines(&missed, "stdout").contains(&ANSWER), "{missed:#}");
}

/// The recording at `record` holds each call as the upstream served it
/// (`asked`), no key, and replays as the run `run` counted.
fn recorded_as_served(record: &Path, asked: &[Asked], run: &Value) {
    let lines: Vec<Value> = crate::common::recorded(record);
    let calls: Vec<&Value> = lines.iter().filter(|l| l["type"] == "model_call").collect();
    assert_eq!(calls.len(), asked.len(), "{lines:?}");
    for (call, asked) in calls.iter().zip(asked) {
        let api = if asked.responses {
            "responses"
        } else {
            "chat.completions"
        };
        assert_eq!(call["api"], api, "{call}");
        assert_eq!(call["stream"], asked.stream, "{call}");
        let usage = asked.usage();
        assert_eq!(call["usage"]["input"], usage.input, "{call}");
        // A call with no cached tokens is recorded without the field.
        let cached = call["usage"]["cached"].as_u64().unwrap_or(0);
        assert_eq!(cached, usage.cached, "{call}");
        assert_eq!(call["usage"]["output"], usage.output, "{call}");
    }
    let recorded = std::fs::read_to_string(record).unwrap();
    assert!(!recorded.contains(UPSTREAM_KEY), "no key in the recording");
    assert!(!recorded.contains(PROGRAMS_KEY), "no key in the recording");
    let replay = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["replay", "--headless"])
        .arg(record)
        .output()
        .unwrap();
    let replayed = result(&replay);
    assert_eq!(replayed["model_calls"], run["model_calls"], "{replayed}");
    for counted in [
        "input_tokens",
        "cached_input_tokens",
        "output_tokens",
        "cost_usd",
    ] {
        assert_eq!(replayed[counted], run[counted], "{counted}: {replayed}");
    }
}

/// `framework`'s program launched with `--max-tokens 50`, below what its
/// first call spends, its calls whole (`STREAM=0`; a whole answer's usage
/// is metered as a stream's is): the second call is refused 429, the
/// framework raises it (`raised`, as it names the error, on the
/// program's stderr) and the run stops `max_tokens` saying so.
fn stops_at_its_token_budget(framework: Framework, raised: &str) {
    let dir = tempfile::tempdir().unwrap();
    let upstream = openai_upstream::serve();
    let pricing = pricing(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["launch", "--headless", "--no-record", "--pricing", &pricing])
        .args(["--upstream", &upstream.base_url])
        .args(["--upstream-key-env", "GW_UPSTREAM_KEY"])
        .args(["--max-tokens", "50", "--"])
        .arg(python(framework))
        .arg(program(framework))
        .envs(program_env())
        .env("STREAM", "0")
        .env("GW_UPSTREAM_KEY", UPSTREAM_KEY)
        .output()
        .unwrap();
    let run = result(&out);
    assert_eq!(out.status.code(), Some(3), "{run:#}\n{}", stderr(&out));
    assert_eq!(run["status"], "stopped", "{run}");
    assert_eq!(run["stop_reason"], "max_tokens");
    let (asked, usage) = served(&upstream);
    assert_eq!(asked.len(), 1, "the call past the budget never went");
    assert!(!asked[0].stream, "{asked:?}");
    upstream_keys_only(&upstream);
    assert_eq!(run["model_calls"], 1);
    counted(&run, usage);
    // The refusal says not to retry it, and no framework does.
    assert_eq!(run["gateway"], json!({"failed": 0, "refused": 1}), "{run}");
    let spent = format!(
        "its max_tokens budget (--max-tokens 50 tokens) is spent ({} tokens so far)",
        usage.input + usage.output
    );
    let error = run["error"].as_str().unwrap();
    assert!(error.contains(&spent), "the run names its budget: {error}");
    let told = lines(&run, "stderr").join("\n");
    assert!(
        told.contains(raised) && told.contains("Conclave stopped this run: its max_tokens budget"),
        "the program raised the 429 naming the budget:\n{told}"
    );
    assert!(!lines(&run, "stdout").contains(&ANSWER), "{run:#}");
}

#[test]
fn the_agents_sdk_on_the_responses_api_is_counted_as_served() {
    counts_what_was_served(Framework::OpenAiAgents, true);
}

#[test]
fn the_agents_sdk_stops_at_its_token_budget_and_raises_the_429() {
    stops_at_its_token_budget(
        Framework::OpenAiAgents,
        "openai.RateLimitError: Error code: 429",
    );
}

#[test]
fn langgraph_on_chat_openai_is_counted_as_served() {
    counts_what_was_served(Framework::LangGraph, false);
}

#[test]
fn langgraph_stops_at_its_token_budget_and_raises_the_429() {
    stops_at_its_token_budget(
        Framework::LangGraph,
        "openai.RateLimitError: Error code: 429",
    );
}

#[test]
fn pydantic_ai_on_its_openai_provider_is_counted_as_served() {
    counts_what_was_served(Framework::PydanticAi, false);
}

#[test]
fn pydantic_ai_stops_at_its_token_budget_and_raises_the_429() {
    stops_at_its_token_budget(
        Framework::PydanticAi,
        "pydantic_ai.exceptions.ModelQuotaExceededError: status_code: 429",
    );
}

#[test]
fn autogen_on_its_openai_client_is_counted_as_served() {
    counts_what_was_served(Framework::AutoGen, false);
}

#[test]
fn autogen_stops_at_its_token_budget_and_raises_the_429() {
    stops_at_its_token_budget(Framework::AutoGen, "openai.RateLimitError: Error code: 429");
}
