//! Real workers in scenario files: every mistake is reported at its place
//! (file, line:column, JSON path) with what was expected, before anything
//! runs; the JSON Schema describes the new keys for editors.

use crate::common;

use common::real::{Sandbox, stderr};
use conclave::scenario;
use serde_json::{Value, json};

/// An orchestrator scenario with `workers`, and `extra` keys over it.
fn with_workers(workers: Value, extra: Value) -> String {
    let mut document = json!({
        "name": "t", "pattern": "orchestrator", "goal": "g",
        "context": {"report_date": "2026-03-20", "region": "US"},
        "workers": workers,
        "provider": {"kind": "sim"}
    });
    for (k, v) in extra.as_object().unwrap() {
        document[k] = v.clone();
    }
    serde_json::to_string_pretty(&document).unwrap()
}

/// Every error of `text`, one `line:column: path: message` each.
fn errors(text: &str) -> Vec<String> {
    match scenario::parse(text, "s.json") {
        Ok(_) => Vec::new(),
        Err(errors) => errors
            .0
            .iter()
            .map(|e| {
                let p = e.position.expect("placed");
                format!("{}:{}: {}: {}", p.line, p.column, e.path, e.message)
            })
            .collect(),
    }
}

fn one_error(text: &str) -> String {
    let all = errors(text);
    assert_eq!(all.len(), 1, "{all:#?}");
    all[0].clone()
}

#[test]
fn a_worker_takes_exactly_one_kind() {
    let text = with_workers(
        json!({"w": {"data": {"2026-03-20:US": {"x": 1}}, "http": {"url": "http://127.0.0.1:1/"},
                     "command": {"argv": ["tool"]}}}),
        json!({}),
    );
    let all = errors(&text);
    assert_eq!(all.len(), 2, "{all:#?}");
    assert!(all[0].ends_with(
        "workers.w.http: a worker takes exactly one of \"data\", \"http\", \"command\" and \"mcp\"; this one already has \"data\""
    ), "{all:#?}");
    assert!(
        all[1].contains("workers.w.command: a worker takes exactly one of"),
        "{all:#?}"
    );
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    assert!(
        all[0].starts_with(&format!("{}:", line_of("\"http\""))),
        "{all:#?}"
    );
}

#[test]
fn a_real_worker_carries_no_script_of_a_simulated_call() {
    let error = one_error(&with_workers(
        json!({"w": {"http": {"url": "http://127.0.0.1:1/"}, "latency_ms": 300}}),
        json!({}),
    ));
    assert!(
        error.ends_with("workers.w.latency_ms: \"latency_ms\" scripts a simulated call; a real worker takes the time it takes and fails when it fails"),
        "{error}"
    );
}

#[test]
fn urls_are_http_or_https_with_a_host() {
    let error = one_error(&with_workers(
        json!({"w": {"http": {"url": "ftp://files.example.com/x"}}}),
        json!({}),
    ));
    assert!(
        error.ends_with("workers.w.http.url: expected an http:// or https:// URL, found string \"ftp://files.example.com/x\""),
        "{error}"
    );
    let error = one_error(&with_workers(
        json!({"w": {"http": {"url": "http://"}}}),
        json!({}),
    ));
    assert!(
        error.contains("workers.w.http.url: expected an http:// or https:// URL"),
        "{error}"
    );
    let error = one_error(&with_workers(
        json!({"w": {"http": {"url": "http://x", "method": "PUT"}}}),
        json!({}),
    ));
    assert!(
        error.contains("workers.w.http.method: expected one of \"POST\", \"GET\""),
        "{error}"
    );
}

#[test]
fn secret_headers_come_from_the_environment_only() {
    let error = one_error(&with_workers(
        json!({"w": {"http": {"url": "http://127.0.0.1:1/", "secret_headers": {"Authorization": "Bearer abc"}}}}),
        json!({}),
    ));
    assert!(
        error.contains("workers.w.http.secret_headers.Authorization: expected \"env:NAME\", the environment variable that holds the value"),
        "{error}"
    );
    let error = one_error(&with_workers(
        json!({"w": {"http": {"url": "http://127.0.0.1:1/", "headers": {"Bad Header": "x"}}}}),
        json!({}),
    ));
    assert!(error.contains("expected an HTTP header name"), "{error}");
}

#[test]
fn a_program_has_a_name() {
    let error = one_error(&with_workers(
        json!({"w": {"command": {"argv": []}}}),
        json!({}),
    ));
    assert!(
        error.ends_with("workers.w.command.argv: expected at least 1 item, found list []"),
        "{error}"
    );
    let error = one_error(&with_workers(
        json!({"w": {"command": {"argv": [" "]}}}),
        json!({}),
    ));
    assert!(
        error.ends_with(
            "workers.w.command.argv[0]: expected the program's name or path, found an empty string"
        ),
        "{error}"
    );
}

#[test]
fn mcp_workers_name_a_declared_server_and_a_server_is_a_program_or_a_url() {
    let error = one_error(&with_workers(
        json!({"w": {"mcp": {"server": "kb", "tool": "search"}}}),
        json!({"mcp_servers": {"docs": {"command": ["docs-server"]}}}),
    ));
    assert!(
        error.ends_with(
            "workers.w.mcp.server: expected a server declared in mcp_servers (docs), found \"kb\""
        ),
        "{error}"
    );
    let error = one_error(&with_workers(
        json!({"w": {"mcp": {"server": "kb", "tool": "search"}}}),
        json!({"mcp_servers": {"kb": {"command": ["kb"], "url": "http://127.0.0.1:1/mcp"}}}),
    ));
    assert!(error.ends_with("mcp_servers.kb.url: an MCP server is a program (\"command\") or an endpoint (\"url\"), not both"), "{error}");
    let error = one_error(&with_workers(
        json!({"w": {"mcp": {"server": "kb", "tool": "search"}}}),
        json!({"mcp_servers": {"kb": {}}}),
    ));
    assert!(
        error.contains("mcp_servers.kb: expected \"command\""),
        "{error}"
    );
}

#[test]
fn only_the_research_search_can_be_real() {
    let text = json!({
        "name": "t", "pattern": "research", "goal": "g",
        "context": {"request": {"question": "q?"}},
        "sources": {"tools": {
            "search_sources": {"http": {"url": "http://127.0.0.1:1/search"}},
            "read_source": {"http": {"url": "http://127.0.0.1:1/read"}}
        }},
        "provider": {"kind": "sim"}
    })
    .to_string();
    let error = one_error(&text);
    assert!(
        error.contains(
            "sources.tools.read_source.http: only \"search_sources\" can be a real research tool"
        ),
        "{error}"
    );
}

#[test]
fn validate_reports_them_with_the_file_and_exits_2() {
    let sandbox = Sandbox::new();
    let path = sandbox.path("bad.json");
    std::fs::write(
        &path,
        with_workers(
            json!({"w": {"command": {"argv": []}, "http": {"url": "gopher://x"}}}),
            json!({}),
        ),
    )
    .unwrap();
    let out = sandbox.run(&["validate", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("bad.json:") && err.contains("workers.w.command.argv"),
        "{err}"
    );
    assert!(err.contains("workers.w.http.url"), "{err}");
}

#[test]
fn the_schema_describes_real_workers_and_mcp_servers() {
    let schema = scenario::json_schema().to_string();
    for key in [
        "\"http\"",
        "\"command\"",
        "\"mcp\"",
        "\"mcp_servers\"",
        "\"secret_headers\"",
        "\"argv\"",
        "env:",
    ] {
        assert!(schema.contains(key), "{key}");
    }
}
