//! MCP servers as real workers and tools, end to end: the built binary runs
//! scenarios whose workers or tools are tools of `conclave-mcp-demo`, a
//! real MCP server cargo builds, started over stdio by the run itself (and
//! one reached over streamable HTTP). The server's answers reach the
//! result; a server that exits mid-run fails the calls to it
//! with the reason, without a hang; nothing the server started outlives
//! the run.

use crate::common;

use common::loopback::{Loopback, Reply};
use common::real::{Sandbox, of_type, pids_in, recording, stderr, survivors, toolbox};
use serde_json::{Value, json};
use std::io::BufRead;
use std::time::Duration;

const DEMO: &str = env!("CARGO_BIN_EXE_conclave-mcp-demo");

/// An orchestrator scenario over `workers`, whose planner plans `tasks`
/// (`(id, worker, args, critical)`), with the demo server over stdio.
fn orchestrator(workers: Value, tasks: &[(&str, &str, Value, bool)]) -> Value {
    let tasks: Vec<Value> = tasks
        .iter()
        .map(|(id, worker, args, critical)| {
            json!({"id": id, "worker": worker, "args": args, "critical": critical})
        })
        .collect();
    json!({
        "name": "mcp_workers", "pattern": "orchestrator",
        "goal": "Prepare the stock and pricing report.",
        "context": {"report_date": "2026-03-20", "region": "US"},
        "budget": {"max_tasks": 8, "max_dispatches": 16, "max_retries_per_task": 0},
        "workers": workers,
        "mcp_servers": {"kb": {"command": [DEMO]}},
        "provider": {"kind": "sim", "plan": {"kind": "plan", "tasks": tasks},
                     "final_answer": "Report ready."}
    })
}

fn run(sandbox: &Sandbox, name: &str, scenario: &Value) -> (std::process::Output, Vec<Value>) {
    let path = sandbox.write(name, scenario);
    let record = sandbox.path("run.jsonl");
    let out = sandbox.run(&[
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--allow-exec",
        "--record",
        record.to_str().unwrap(),
    ]);
    let events = recording(&record);
    (out, events)
}

#[test]
fn an_http_a_command_and_an_mcp_worker_answer_for_real_in_one_run() {
    let pricing = json!({"price_index": 1.04, "active_promotions": 2});
    let answer = pricing.clone();
    let server = Loopback::serve(move |_, _| Reply::json(200, &answer));
    let sandbox = Sandbox::new();
    let args = json!({"report_date": "2026-03-20", "region": "US"});
    let scenario = orchestrator(
        json!({
            "pricing_worker": {"description": "Prices", "http": {"url": format!("{}/pricing", server.base_url)}},
            "inventory_worker": {"description": "Stock", "command": {"argv": toolbox(&["inventory"])}},
            "sku_worker": {"mcp": {"server": "kb", "tool": "lookup"}}
        }),
        &[
            ("t1", "pricing_worker", args.clone(), true),
            ("t2", "inventory_worker", args.clone(), true),
            ("t3", "sku_worker", json!({"key": "sku:A-100"}), true),
        ],
    );
    let (out, events) = run(&sandbox, "report.json", &scenario);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "ok", "{result}");
    let text = result.to_string();
    assert!(
        text.contains("\"price_index\":1.04"),
        "the endpoint's answer: {text}"
    );
    assert!(text.contains("SKU-9033"), "the program's answer: {text}");
    assert!(
        text.contains("\"warehouse\":\"Lyon\"") && text.contains("\"on_hand\":120"),
        "the MCP tool's answer: {text}"
    );
    let requests = server.requests();
    assert_eq!(
        serde_json::from_slice::<Value>(&requests[0].body).unwrap(),
        args,
        "the loopback server sees the planner's args"
    );
    let finished: Vec<&Value> = of_type(&events, "task_finished");
    assert_eq!(finished.len(), 3, "{finished:#?}");
    assert!(
        finished.iter().all(|e| e["status"] == "done"),
        "{finished:#?}"
    );
}

#[test]
fn a_swarm_whose_tools_are_an_mcp_server_uses_their_answers() {
    let sandbox = Sandbox::new();
    let scenario = json!({
        "name": "mcp_desk", "pattern": "swarm",
        "goal": "Answer the customer about order 1001.",
        "context": {},
        "entry": "support",
        "agents": {"support": {"description": "Answers customers"}},
        "tools": {
            "kb_search": {"mcp": {"server": "kb", "tool": "search"}},
            "kb_lookup": {"description": "Order records", "mcp": {"server": "kb", "tool": "lookup"}}
        },
        "mcp_servers": {"kb": {"command": [DEMO]}},
        "budget": {"max_llm_calls": 10, "max_seconds": 60},
        "provider": {"kind": "sim", "turns": {"support": [
            {"call": "kb_search", "args": {"query": "refund", "k": 1}},
            {"call": "kb_lookup", "args": {"key": "order:1001"}},
            {"reply": "We refund the double charge within three business days."}
        ]}}
    });
    let (out, events) = run(&sandbox, "desk.json", &scenario);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "ok", "{result}");
    let recorded = serde_json::to_string(&events).unwrap();
    assert!(
        recorded.contains("refund-policy"),
        "the search tool's real results are in the run: {recorded}"
    );
    assert!(
        recorded.contains("charged_twice"),
        "the lookup tool's real record is in the run"
    );
    let calls = of_type(&events, "call_finished");
    let ok = |tool: &str| {
        calls
            .iter()
            .any(|e| e["tool"] == tool && e["outcome"] == "ok")
    };
    assert!(ok("kb_search") && ok("kb_lookup"), "{calls:#?}");
}

#[test]
fn an_mcp_server_that_exits_mid_run_fails_the_calls_to_it_and_leaves_nothing_behind() {
    let sandbox = Sandbox::new();
    let scenario = orchestrator(
        json!({
            "helper_worker": {"description": "Starts a helper", "mcp": {"server": "kb", "tool": "spawn"}},
            "crash_worker": {"description": "Crashes", "mcp": {"server": "kb", "tool": "crash"}},
            "sku_worker": {"description": "SKUs", "mcp": {"server": "kb", "tool": "lookup"}}
        }),
        &[
            ("t1", "helper_worker", json!({}), false),
            ("t2", "crash_worker", json!({}), false),
            ("t3", "sku_worker", json!({"key": "sku:A-100"}), false),
        ],
    );
    let mut scenario = scenario;
    // One task at a time, so the lookup comes after the crash.
    scenario["budget"]["max_parallel"] = json!(1);
    let (out, events) = run(&sandbox, "crash.json", &scenario);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "the run ends on its own: {}",
        stderr(&out)
    );
    let finished = of_type(&events, "task_finished");
    let task = |id: &str| {
        finished
            .iter()
            .find(|e| e["task"] == id)
            .copied()
            .unwrap_or_else(|| panic!("{id} finished: {finished:#?}"))
    };
    assert_eq!(task("t1")["status"], "done");
    assert_eq!(task("t2")["status"], "failed");
    assert_eq!(task("t3")["status"], "failed", "no server to answer it");
    let errors: Vec<String> = of_type(&events, "call_finished")
        .iter()
        .filter_map(|e| e["error"].as_str().map(String::from))
        .collect();
    assert!(
        errors.iter().any(|e| e.contains("exited during the run")),
        "{errors:#?}"
    );
    // The helper the server started (in its process group) is gone too.
    let recorded = serde_json::to_string(&events).unwrap();
    let pid: i32 = recorded
        .split("\\\"pid\\\":")
        .nth(1)
        .or_else(|| recorded.split("\"pid\":").nth(1))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .expect("the helper's pid in the recording");
    assert_eq!(survivors(&[pid], Duration::from_secs(5)), Vec::<i32>::new());
}

#[test]
fn an_mcp_server_over_streamable_http_answers_with_its_headers_sent() {
    let mut demo = std::process::Command::new(DEMO)
        .args(["--http", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(demo.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first.trim().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let sandbox = Sandbox::new();
    let mut scenario = orchestrator(
        json!({"sku_worker": {"description": "SKUs", "mcp": {"server": "kb", "tool": "lookup"}}}),
        &[("t1", "sku_worker", json!({"key": "order:1002"}), true)],
    );
    scenario["mcp_servers"] = json!({"kb": {"url": url,
        "secret_headers": {"Authorization": "env:CONCLAVE_TEST_MCP_TOKEN"}}});
    let path = sandbox.write("http.json", &scenario);
    let out = sandbox.run_with(
        &["run", path.to_str().unwrap(), "--headless"],
        &[("CONCLAVE_TEST_MCP_TOKEN", "Bearer mcp-7f3a91c2")],
    );
    let _ = demo.kill();
    let _ = demo.wait();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = result.to_string();
    assert!(text.contains("\"status\":\"shipped\""), "{text}");
    assert!(!text.contains("mcp-7f3a91c2"), "no secret in the result");

    // The header goes with every request (seen by a plain loopback server
    // standing in for the endpoint), and the secret nowhere else.
    let probe = Loopback::serve(|_, _| Reply::json(503, &json!({"error": "down"})));
    scenario["mcp_servers"]["kb"]["url"] = json!(format!("{}/mcp", probe.base_url));
    let probed = sandbox.write("probe.json", &scenario);
    let out = sandbox.run_with(
        &["run", probed.to_str().unwrap(), "--headless"],
        &[("CONCLAVE_TEST_MCP_TOKEN", "Bearer mcp-7f3a91c2")],
    );
    assert_ne!(out.status.code(), Some(0), "the server is down");
    let requests = probe.requests();
    assert!(!requests.is_empty());
    assert_eq!(
        requests[0].header("authorization").as_deref(),
        Some("Bearer mcp-7f3a91c2")
    );
    let everything = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(!everything.contains("mcp-7f3a91c2"), "{everything}");

    // Without the variable, the launch names it and starts nothing.
    let out = sandbox.run(&["run", path.to_str().unwrap(), "--headless"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("mcp_servers.kb.secret_headers.Authorization")
            && err.contains("CONCLAVE_TEST_MCP_TOKEN is not set"),
        "{err}"
    );
}

#[test]
fn a_run_cancelled_while_its_mcp_server_starts_ends_at_once_and_leaves_nothing() {
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("pids");
    // A server that never answers the handshake, and starts a child too.
    let mut scenario = orchestrator(
        json!({"sku_worker": {"description": "SKUs", "mcp": {"server": "kb", "tool": "lookup"}}}),
        &[("t1", "sku_worker", json!({"key": "sku:A-100"}), true)],
    );
    scenario["mcp_servers"] = json!({"kb": {"command": toolbox(&[
        "misbehave", "hang", "--child", "--pid-file", pid_file.to_str().unwrap()])}});
    let path = sandbox.write("stuck.json", &scenario);
    let mut child = sandbox.start_run(&path);
    let pids = pids_in(&pid_file, 2, Duration::from_secs(10));
    assert_eq!(pids.len(), 2, "the server started");
    let signalled = std::time::Instant::now();
    // SAFETY: signalling the child this test started.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    // Without cancelling the start, the run waits out the server's 10 s
    // handshake limit; with it, it ends at once (the bound is generous).
    assert!(
        signalled.elapsed() < Duration::from_secs(5),
        "the run did not wait for the handshake: {:?}",
        signalled.elapsed()
    );
    assert_eq!(status.code(), Some(143), "128 + SIGTERM");
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["stop_reason"], "cancelled", "{result}");
    assert_eq!(survivors(&pids, Duration::from_secs(5)), Vec::<i32>::new());
}
