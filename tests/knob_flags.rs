//! The knobs on the command line (issue 58): `--output`, `--output-retries`,
//! `--temperature`, `--max-output-tokens`, `--reasoning-effort` and
//! `--call-timeout` set a scenario's `provider` fields of the same names
//! for a run of the real binary against the loopback model, as the
//! requests it gets show; a wrong value of any of them exits 2 naming the
//! flag and what it expects, on every command that takes a model.

use crate::common;

use common::loopback::{Body, Loopback, Reply};
use common::messy::{Behaviour, Messy, is_repair};
use common::script::quick;
use serde_json::Value;
use std::process::{Command, Output};

/// `conclave run FILE --headless --provider openai --base-url URL` with
/// `args`, in a folder of its own.
fn run(doc: &Value, base_url: &str, args: &[&str]) -> Output {
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("scenario.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_conclave"))
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
        .args(args)
        .env("OPENAI_API_KEY", "sk-knob-flags-test-dummy-key")
        .env("XDG_STATE_HOME", work.path().join("state"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn about(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The round table's shipped scenario run against the plain loopback
/// model with `args`: the requests it sent, after checking that it ended
/// as on the sim.
fn requests_with(args: &[&str]) -> Vec<Value> {
    let doc = quick("checkout_v2_launch.json");
    let endpoint = Messy::serve(&doc, Behaviour::Plain, true);
    let output = run(&doc, &endpoint.base_url, args);
    assert_eq!(output.status.code(), Some(0), "{}", about(&output));
    let requests = endpoint.requests();
    assert!(!requests.is_empty());
    requests
}

#[test]
fn temperature_none_sends_none_and_a_number_sends_that_number() {
    // Without the flag, mock-model (no reasoning model) is sent 0.
    for request in requests_with(&[]) {
        assert_eq!(request["temperature"], 0.0, "{request}");
    }
    for request in requests_with(&["--temperature", "none"]) {
        assert_eq!(request.get("temperature"), None, "{request}");
    }
    for request in requests_with(&["--temperature", "0.7"]) {
        assert_eq!(request["temperature"], 0.7, "{request}");
    }
}

#[test]
fn the_output_limit_and_the_reasoning_effort_go_out_as_given() {
    let requests = requests_with(&["--max-output-tokens", "321", "--reasoning-effort", "low"]);
    for request in requests {
        assert_eq!(request["max_completion_tokens"], 321, "{request}");
        assert_eq!(request.get("max_tokens"), None, "{request}");
        assert_eq!(request["reasoning_effort"], "low", "{request}");
    }
}

#[test]
fn output_tool_asks_with_tools_and_output_json_with_a_json_object() {
    let doc = quick("checkout_v2_launch.json");
    let endpoint = Messy::serve(&doc, Behaviour::Plain, true);
    let prose = |request: &Value| endpoint.asks_for_prose(request);
    let output = run(&doc, &endpoint.base_url, &["--output", "tool"]);
    assert_eq!(output.status.code(), Some(0), "{}", about(&output));
    let asked: Vec<Value> = endpoint
        .requests()
        .into_iter()
        .filter(|r| !prose(r))
        .collect();
    assert!(!asked.is_empty());
    for request in &asked {
        assert!(request["tools"].is_array(), "{request}");
        assert!(request.get("tool_choice").is_some(), "{request}");
        assert_eq!(request.get("response_format"), None, "{request}");
    }
    let endpoint = Messy::serve(&doc, Behaviour::Plain, true);
    let output = run(&doc, &endpoint.base_url, &["--output", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", about(&output));
    for request in endpoint
        .requests()
        .iter()
        .filter(|r| !endpoint.asks_for_prose(r))
    {
        assert_eq!(
            request["response_format"]["type"], "json_object",
            "{request}"
        );
    }
}

#[test]
fn output_retries_zero_stops_at_the_first_broken_answer_without_a_repair() {
    let doc = quick("checkout_v2_launch.json");
    // The default, one repair: the broken answer is asked for again.
    let endpoint = Messy::serve(&doc, Behaviour::MissingKey, true);
    let output = run(&doc, &endpoint.base_url, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", about(&output));
    assert!(endpoint.requests().iter().any(is_repair));
    let endpoint = Messy::serve(&doc, Behaviour::MissingKey, true);
    let output = run(&doc, &endpoint.base_url, &["--output-retries", "0"]);
    assert_eq!(output.status.code(), Some(3), "{}", about(&output));
    assert!(
        !endpoint.requests().iter().any(is_repair),
        "{}",
        about(&output)
    );
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        result["stop_reason"]
            .as_str()
            .is_some_and(|stop| stop.starts_with("invalid_contribution")),
        "{}",
        about(&output)
    );
}

#[test]
fn call_timeout_overrides_the_scenarios_timeout() {
    // The scenario waits ten minutes for a call; the flag a fifth of a
    // second, which a server that never answers runs out.
    let mut doc = quick("checkout_v2_launch.json");
    doc["provider"]["timeout_seconds"] = 600.into();
    doc["budget"]["max_seconds"] = 600.into();
    let server = Loopback::serve(|_, _| Reply::new(200, Body::Stall));
    let output = run(&doc, &server.base_url, &["--call-timeout", "0.2"]);
    assert_eq!(output.status.code(), Some(3), "{}", about(&output));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["stop_reason"], "llm_timeout", "{}", about(&output));
    // A timeout an endpoint cannot run with is refused naming the flag.
    let output = run(&doc, &server.base_url, &["--call-timeout", "0"]);
    assert_eq!(output.status.code(), Some(2), "{}", about(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--call-timeout"), "{stderr}");
}

/// Each flag with a value the scenario's field would refuse too.
const WRONG: [(&str, &str, &str); 9] = [
    (
        "--output",
        "tools",
        "expected auto, native, tool, json or prompted",
    ),
    (
        "--output-retries",
        "11",
        "expected a number of repairs from 0 to 10",
    ),
    ("--temperature", "2.5", "expected a temperature from 0 to 2"),
    (
        "--temperature",
        "warm",
        "expected a temperature from 0 to 2",
    ),
    (
        "--temperature",
        "-0.5",
        "expected a temperature from 0 to 2",
    ),
    (
        "--output-retries",
        "-1",
        "expected a number of repairs from 0 to 10",
    ),
    (
        "--max-output-tokens",
        "0",
        "expected a whole number of tokens, 1 or more",
    ),
    ("--reasoning-effort", " ", "expected a reasoning effort"),
    ("--call-timeout", "-1", "expected a duration of 0 or more"),
];

#[test]
fn a_wrong_value_exits_2_naming_the_flag_on_every_command_that_takes_a_model() {
    let scenario = "scenarios/checkout_v2_launch.json";
    let commands: [&[&str]; 4] = [
        &["run", scenario, "--headless"],
        &["tui", scenario],
        &["sweep", scenario, "--seeds", "1..2", "--headless"],
        &["fork", "run.jsonl", "--at", "round:1", "--headless"],
    ];
    for command in commands {
        for (flag, value, expected) in WRONG {
            let mut args = command.to_vec();
            // fork's --output edits a recorded output; its mode is
            // --output-mode, which every command takes.
            let flag = match (command[0], flag) {
                ("fork", "--output") => "--output-mode",
                _ => flag,
            };
            args.push(flag);
            args.push(value);
            let output = common::cli::conclave(&args);
            assert_eq!(
                output.status.code(),
                Some(2),
                "{args:?}: {}",
                about(&output)
            );
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains(flag) && stderr.contains(expected),
                "{args:?} names {flag} and says {expected:?}: {stderr}"
            );
            assert!(output.stdout.is_empty(), "{args:?}");
        }
    }
    // A valid value of each passes the parser (the sim ignores them).
    let output = common::cli::conclave(&[
        "run",
        scenario,
        "--headless",
        "--output",
        "prompted",
        "--output-retries",
        "10",
        "--temperature",
        "2",
        "--max-output-tokens",
        "1",
        "--reasoning-effort",
        "high",
        "--call-timeout",
        "30",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", about(&output));
}
