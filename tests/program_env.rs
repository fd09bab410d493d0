//! The environment of a program a scenario starts, end to end: the built
//! binary runs, on the simulated model, a command worker and a stdio MCP
//! server that print or keep `OPENAI_API_KEY`. Without the scenario naming
//! it the program does not get the key; named (`env:OPENAI_API_KEY`) it
//! does, and what it prints of it is masked in the result and the
//! recording, though the sim never uses the key.

#![cfg(unix)]

use crate::common;

use common::real::{Sandbox, of_type, recording, stderr};
use serde_json::{Value, json};

const DEMO: &str = env!("CARGO_BIN_EXE_conclave-mcp-demo");

/// A key made for these tests, never a real one.
const KEY: &str = "sk-program-env-test-Qx7Lm2Vb9Rt4Hz6Nc";

fn script(sandbox: &Sandbox, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = sandbox.path(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A command worker that answers with the key it sees, whether it has
/// one, and whether it got a PATH to run with.
const PRINTS_THE_KEY: &str = "cat > /dev/null\nprintf '{\"key\": \"%s\", \"has_key\": \"%s\", \"has_path\": \"%s\"}\\n' \"$OPENAI_API_KEY\" \"${OPENAI_API_KEY:+yes}\" \"${PATH:+yes}\"\n";

fn scenario(env: Value) -> Value {
    json!({
        "name": "program_env", "pattern": "orchestrator",
        "goal": "Ask the program.",
        "context": {},
        "budget": {"max_tasks": 2, "max_dispatches": 2, "max_retries_per_task": 0},
        "workers": {"env_worker": {"description": "Prints its environment",
                                   "command": {"argv": ["./prints.sh"], "env": env}}},
        "provider": {"kind": "sim", "plan": {"kind": "plan", "tasks": [
            {"id": "t1", "worker": "env_worker", "args": {}, "critical": true}]},
            "final_answer": "Done."}
    })
}

/// Run `scenario` on the sim with the key in Conclave's environment: the
/// result, the recording as text, and the worker's answer.
fn run(sandbox: &Sandbox, scenario: &Value) -> (String, String, Value) {
    let path = sandbox.write("env.json", scenario);
    let record = sandbox.path("run.jsonl");
    let out = sandbox.run_with(
        &[
            "run",
            path.to_str().unwrap(),
            "--headless",
            "--allow-exec",
            "--record",
            record.to_str().unwrap(),
        ],
        &[("OPENAI_API_KEY", KEY)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let events = recording(&record);
    let answer = of_type(&events, "task_finished")
        .first()
        .map(|e| e["result"].clone())
        .unwrap_or_default();
    let result = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
    (result, serde_json::to_string(&events).unwrap(), answer)
}

/// No part of the key (eight characters or more) is in `text`.
fn assert_no_key(text: &str, place: &str) {
    for start in 0..=KEY.len() - 8 {
        assert!(
            !text.contains(&KEY[start..start + 8]),
            "{place} holds part of the key: {text}"
        );
    }
}

#[test]
fn a_program_gets_no_key_it_was_not_handed_and_the_key_never_shows() {
    let sandbox = Sandbox::new();
    script(&sandbox, "prints.sh", PRINTS_THE_KEY);
    let (result, recorded, answer) = run(&sandbox, &scenario(json!({})));
    assert_no_key(&result, "the result");
    assert_no_key(&recorded, "the recording");
    let text = answer.to_string();
    assert!(
        text.contains("\"has_key\":\"\""),
        "the program's environment has no key: {text}"
    );
    assert!(
        text.contains("\"has_path\":\"yes\""),
        "it has a PATH: {text}"
    );
}

#[test]
fn a_program_handed_the_key_by_name_gets_it_and_what_it_prints_is_masked() {
    let sandbox = Sandbox::new();
    script(&sandbox, "prints.sh", PRINTS_THE_KEY);
    let (result, recorded, answer) = run(
        &sandbox,
        &scenario(json!({"OPENAI_API_KEY": "env:OPENAI_API_KEY"})),
    );
    assert_no_key(&result, "the result");
    assert_no_key(&recorded, "the recording");
    let text = answer.to_string();
    assert!(
        text.contains("\"has_key\":\"yes\""),
        "the program got the key: {text}"
    );
    assert!(
        text.contains("\"key\":\"[redacted]\""),
        "what it printed of it is masked: {text}"
    );
}

#[test]
fn a_stdio_mcp_server_gets_no_key_it_was_not_handed() {
    let sandbox = Sandbox::new();
    script(
        &sandbox,
        "server.sh",
        &format!("printf '%s' \"${{OPENAI_API_KEY:+yes}}\" > server-has-key\nexec '{DEMO}'\n"),
    );
    let scenario = common::real::lookup_through("server_env");
    let (_, _, answer) = run(&sandbox, &scenario);
    assert!(
        answer.to_string().contains("\"warehouse\":\"Lyon\""),
        "the server answered: {answer}"
    );
    assert_eq!(
        std::fs::read_to_string(sandbox.path("server-has-key")).unwrap(),
        "",
        "the server's environment has no key"
    );
}

#[test]
fn a_variable_handed_over_that_conclave_does_not_have_stops_the_launch_and_is_named() {
    let sandbox = Sandbox::new();
    script(&sandbox, "prints.sh", PRINTS_THE_KEY);
    let path = sandbox.write(
        "env.json",
        &scenario(json!({"DB_PASSWORD": "env:CONCLAVE_TEST_UNSET_VARIABLE"})),
    );
    let out = sandbox.run(&["run", path.to_str().unwrap(), "--headless", "--allow-exec"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("workers.env_worker.command.env")
            && err.contains(
                "the environment variable CONCLAVE_TEST_UNSET_VARIABLE is not set; the program's DB_PASSWORD takes its value from it"
            ),
        "{err}"
    );
}
