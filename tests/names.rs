//! Agent, worker and tool names follow `^[a-zA-Z0-9_-]+$` (002's rule, and
//! what model APIs accept as a tool's name): any other name is a scenario
//! error placed at the name, and the CLI exits 2.

use crate::common;

use common::cli::conclave;
use common::files::{assert_documented, edit, errors_of, position_of};
use serde_json::{Value, json};

fn swarm() -> Value {
    json!({
        "name": "s", "pattern": "swarm", "goal": "Help.", "context": {},
        "entry": "triage",
        "agents": {"triage": {}, "tier-2_desk": {}},
        "tools": {"lookup_v2": {"latency_ms": 100}},
        "provider": {"kind": "sim", "turns": {"triage": {"reply": "hi"}}}
    })
}

fn orchestrator() -> Value {
    json!({
        "name": "o", "pattern": "orchestrator", "goal": "g", "context": {},
        "workers": {"sales_worker": {}},
        "provider": {"kind": "sim"}
    })
}

#[test]
fn names_of_letters_digits_underscores_and_dashes_load() {
    conclave::scenario::parse(&swarm().to_string(), "ok.json").unwrap();
    conclave::scenario::parse(&orchestrator().to_string(), "ok.json").unwrap();
}

#[test]
fn any_other_agent_worker_or_tool_name_is_a_placed_error() {
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "an agent name with a space",
            edit(swarm(), "/agents/billing desk", Some(json!({}))),
            "expected an agent name of letters, digits, '_' and '-' only (^[a-zA-Z0-9_-]+$), found \"billing desk\"",
        ),
        (
            "an agent name with a dot",
            edit(swarm(), "/agents/billing.v2", Some(json!({}))),
            "found \"billing.v2\"",
        ),
        (
            "a tool name with a slash",
            edit(swarm(), "/tools/crm~1lookup", Some(json!({}))),
            "expected a tool name of letters, digits, '_' and '-' only (^[a-zA-Z0-9_-]+$), found \"crm/lookup\"",
        ),
        (
            "a worker name that is not ASCII",
            edit(orchestrator(), "/workers/café_worker", Some(json!({}))),
            "expected a worker name of letters, digits, '_' and '-' only (^[a-zA-Z0-9_-]+$), found \"café_worker\"",
        ),
        (
            "an empty tool name",
            edit(swarm(), "/tools/", Some(json!({}))),
            "expected a tool name",
        ),
    ];
    assert_documented(&cases);
}

#[test]
fn a_bad_name_is_pointed_at_by_line_and_column() {
    let text = edit(swarm(), "/agents/billing desk", Some(json!({})));
    let (line, column) = position_of(&text, "\"billing desk\"");
    let shown = errors_of(&text).to_string();
    assert!(
        shown.starts_with(&format!("bad.json:{line}:{column}: agents")),
        "{shown}"
    );
}

#[test]
fn the_cli_refuses_a_bad_name_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad_name.json");
    std::fs::write(
        &path,
        edit(swarm(), "/agents/billing desk", Some(json!({}))),
    )
    .unwrap();
    let output = conclave(&["run", path.to_str().unwrap(), "--headless"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad_name.json:"), "{stderr}");
    assert!(stderr.contains("found \"billing desk\""), "{stderr}");
    assert!(output.stdout.is_empty());
}
