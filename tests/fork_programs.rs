//! A fork starts a program only when its live part first calls on it: an
//! MCP server whose tools were all served is never started, and needs no
//! allowance; one the live part calls is allowed first, or the fork stops
//! before it starts, naming the file and the place. The built binary and
//! the real MCP server the toolbox ships, behind a shell that leaves a
//! mark each time it is started.

use crate::common;

use common::real::{CONCLAVE, Sandbox, stderr};
use serde_json::Value;
use std::path::Path;

/// The shipped MCP support desk, its server started through a shell that
/// marks `marker` first. Turns: 1 triage searches, 2 hands over, 3
/// billing looks the order up, 4 billing replies.
fn desk(sandbox: &Sandbox, marker: &Path) -> String {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/mcp_support_desk.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    let script = format!(
        "echo started >> '{}'; exec '{CONCLAVE}' toolbox mcp",
        marker.display()
    );
    doc["mcp_servers"]["payments_kb"]["command"] = serde_json::json!(["sh", "-c", script]);
    let path = sandbox.write("desk.json", &doc);
    path.display().to_string()
}

/// How the run ended and the way the ticket went (its times are the
/// real clock's, which no two runs share).
fn result(output: &std::process::Output) -> Value {
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", stderr(output)));
    serde_json::json!([
        document["status"],
        document["stop_reason"],
        document["chain"]
    ])
}

#[test]
fn a_fork_starts_the_mcp_server_only_when_its_live_part_calls_a_tool() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("started");
    let file = desk(&sandbox, &marker);
    let parent = sandbox.path("parent.jsonl").display().to_string();
    let ran = sandbox.run(&[
        "run",
        &file,
        "--headless",
        "--allow-exec",
        "--record",
        &parent,
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    assert!(marker.exists(), "the parent started its server");
    std::fs::remove_file(&marker).unwrap();

    // Turn 4 only replies: both tool calls are served, nothing starts.
    let late = sandbox.run(&["fork", &parent, "--at", "turn 4", "--headless"]);
    assert_eq!(late.status.code(), Some(0), "{}", stderr(&late));
    assert_eq!(result(&late), result(&ran));
    assert!(!marker.exists(), "no program started");

    // Turn 3 looks the order up live: refused before the server starts.
    let early = sandbox.run(&["fork", &parent, "--at", "turn 3", "--headless"]);
    let said = stderr(&early);
    assert_eq!(early.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!(
            "{parent}: mcp_servers.payments_kb.command: this scenario would run the program \"sh\""
        )),
        "{said}"
    );
    assert!(said.contains("--allow-exec"), "{said}");
    assert!(
        early.stdout.is_empty(),
        "no result: {}",
        String::from_utf8_lossy(&early.stdout)
    );
    assert!(!marker.exists(), "no program started");

    let allowed = sandbox.run(&[
        "fork",
        &parent,
        "--at",
        "turn 3",
        "--headless",
        "--allow-exec",
    ]);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert_eq!(result(&allowed), result(&ran));
    let starts = std::fs::read_to_string(&marker).unwrap();
    assert_eq!(starts.lines().count(), 1, "started once, for the live call");
}
