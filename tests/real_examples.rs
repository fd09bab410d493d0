//! The shipped examples with real tools, run as their descriptions say.
//! The MCP support desk starts its own MCP server (`conclave toolbox mcp`)
//! and stops it with the run. The ops report needs the
//! toolbox's HTTP server started first (here on a free port, which the
//! test writes into a copy of the scenario), then the scenario, whose
//! inventory worker is the toolbox's program. The pricing API fails its
//! first calls; its breaker opens, probes and closes for real.

use crate::common;

use common::real::{CONCLAVE, Sandbox, of_type, recording, stderr};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// `conclave toolbox serve` on a free port; its base URL.
pub(crate) struct Toolbox {
    child: Child,
    pub(crate) url: String,
}

impl Toolbox {
    pub(crate) fn serve(args: &[&str]) -> Toolbox {
        let mut child = Command::new(CONCLAVE)
            .args(["toolbox", "serve", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the toolbox starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("the toolbox prints its address, got {line:?}"))
            .to_string();
        Toolbox { child, url }
    }
}

impl Drop for Toolbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The shipped example with its pricing URL on `base`.
fn example(base: &str) -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/real_tools_ops_report.json"
    );
    let mut scenario: Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let url = &mut scenario["workers"]["pricing_worker"]["http"]["url"];
    assert_eq!(url, "http://127.0.0.1:8787/pricing", "the README's address");
    *url = format!("{base}/pricing").into();
    scenario
}

#[test]
fn the_real_tools_example_opens_and_closes_its_breaker_for_real() {
    let server = Toolbox::serve(&["--fail-first", "4", "--latency-ms", "150"]);
    let sandbox = Sandbox::new();
    let path = sandbox.write("real_tools_ops_report.json", &example(&server.url));
    let out = sandbox.run(&[
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--allow-exec",
        "--record",
        "example.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "ok");
    assert_eq!(
        result["partial"], true,
        "safe mode skipped refused pricing tasks"
    );
    assert_eq!(
        result["aggregate"]["pricing"]["source"],
        "conclave toolbox serve"
    );
    assert_eq!(
        result["aggregate"]["inventory"]["source"],
        "conclave toolbox inventory"
    );
    let events = recording(&sandbox.path("example.jsonl"));
    let transitions: Vec<&str> = of_type(&events, "breaker_transition")
        .into_iter()
        .filter(|e| e["tool"] == "pricing_worker")
        .map(|e| e["to"].as_str().unwrap())
        .collect();
    assert_eq!(transitions, ["open", "half_open", "closed"]);
    let statuses = of_type(&events, "call_finished")
        .into_iter()
        .filter(|e| e["tool"] == "pricing_worker" && e["outcome"] == "error")
        .all(|e| e["http_status"] == 500);
    assert!(statuses, "every failed pricing call says HTTP 500");
}

#[test]
fn the_toolbox_answers_post_and_get() {
    let server = Toolbox::serve(&[]);
    let client = |request: &str| -> String {
        use std::io::{Read, Write};
        let address = server.url.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    let body = r#"{"report_date": "2026-03-20", "region": "eu"}"#;
    let post = client(&format!(
        "POST /pricing HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    assert!(post.starts_with("HTTP/1.1 200"), "{post}");
    assert!(
        post.contains(r#""region":"EU""#) && post.contains(r#""price_index":1.07"#),
        "{post}"
    );
    let get =
        client("GET /echo?region=US&limit=3 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    assert!(
        get.contains(r#""received":{"region":"US","limit":"3"}"#),
        "{get}"
    );
    let missing = client("GET /nothing HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
}

#[test]
fn the_mcp_support_desk_runs_on_its_own_mcp_server_and_stops_it() {
    let sandbox = Sandbox::new();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/mcp_support_desk.json"
    );
    let record = sandbox.path("desk.jsonl");
    let out = sandbox.run(&[
        "run",
        path,
        "--headless",
        "--allow-exec",
        "--record",
        record.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["stop_reason"], "success", "{result}");
    assert_eq!(result["chain"], serde_json::json!(["triage", "billing"]));
    let events = recording(&record);
    let calls = of_type(&events, "call_finished");
    for tool in ["kb_search", "order_lookup"] {
        assert!(
            calls
                .iter()
                .any(|e| e["tool"] == tool && e["outcome"] == "ok"),
            "{tool}: {calls:#?}"
        );
    }
    let recorded = serde_json::to_string(&events).unwrap();
    assert!(
        recorded.contains("refund-policy"),
        "the knowledge base's answer"
    );
    assert!(recorded.contains("charged_twice"), "the order record");

    // The allowance is remembered for this exact file...
    let again = sandbox.run(&["run", path, "--headless"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    // ...and elsewhere, without --allow-exec, it starts nothing and says why.
    let fresh = Sandbox::new();
    let out = fresh.run(&["run", path, "--headless"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--allow-exec"), "{}", stderr(&out));
}
