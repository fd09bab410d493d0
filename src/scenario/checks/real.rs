//! The checks of real workers and tools and of the MCP servers: a worker
//! is simulated or real with exactly one kind, a real one carries none of
//! the simulated calls' script, every URL is http(s), every secret header
//! names an environment variable, every program has a name, and every
//! `mcp` worker names a declared server. What only the launch can know
//! (an unset variable, a program that is not there) is checked then.

use super::super::error::Problem;
use super::super::path::JsonPath;
use super::super::real::{CommandSpec, HttpSpec, McpServerSpec, RealKeys, env_name};
use super::super::sections::ToolSection;
use super::super::types::Scenario;
use super::super::workers::WorkerSpec;
use indexmap::IndexMap;
use serde_json::Value;

pub(super) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    for (section, specs, what) in [
        ("workers", &scenario.workers, "a worker"),
        ("tools", &scenario.tools, "a tool"),
    ] {
        for (name, spec) in specs {
            check_worker(scenario, spec, &root.key(section).key(name), what, problems);
        }
    }
    for (at, _, spec) in scenario.team_tools() {
        check_worker(scenario, spec, &at, "a tool", problems);
    }
    if let Some(sources) = &scenario.sources {
        let tools = root.key("sources").key("tools");
        for (tool, keys) in sources.tools().real_keys() {
            check_kinds(
                scenario,
                keys,
                false,
                &tools.key(tool),
                "a research tool",
                problems,
            );
        }
    }
    for (name, server) in &scenario.mcp_servers {
        check_server(server, &root.key("mcp_servers").key(name), problems);
    }
}

fn check_worker(
    scenario: &Scenario,
    spec: &WorkerSpec,
    path: &JsonPath,
    what: &str,
    problems: &mut Vec<Problem>,
) {
    let keys = spec.real_keys();
    check_kinds(scenario, keys, !spec.data.is_empty(), path, what, problems);
    if keys.first().is_none() {
        return;
    }
    for (field, set) in [
        ("latency_ms", spec.latency_ms.is_some()),
        ("fail", !spec.fail.is_empty()),
        ("outage_ms", !spec.outage_ms.is_empty()),
        ("hang", spec.hang),
    ] {
        if set {
            problems.push(Problem::at_key(
                path.key(field),
                format!(
                    "{field:?} scripts a simulated call; a real {} takes the time it takes and fails when it fails",
                    what.trim_start_matches("a ")
                ),
            ));
        }
    }
}

/// At most one kind among `data` and the real ones; each real one well
/// formed.
fn check_kinds(
    scenario: &Scenario,
    keys: RealKeys<'_>,
    has_data: bool,
    path: &JsonPath,
    what: &str,
    problems: &mut Vec<Problem>,
) {
    let mut given: Vec<&str> = Vec::new();
    if has_data {
        given.push("data");
    }
    given.extend(keys.given().iter().map(|k| k.key()));
    if given.len() > 1 {
        let first = given[0];
        for extra in &given[1..] {
            problems.push(Problem::at_key(
                path.key(extra),
                format!(
                    "{what} takes exactly one of \"data\", \"http\", \"command\" and \"mcp\"; this one already has {first:?}"
                ),
            ));
        }
    }
    if let Some(http) = keys.http {
        check_http(http, &path.key("http"), problems);
    }
    if let Some(command) = keys.command {
        check_command(command, &path.key("command"), problems);
    }
    if let Some(mcp) = keys.mcp {
        let at = path.key("mcp");
        if !scenario.mcp_servers.contains_key(&mcp.server) {
            let declared: Vec<&str> = scenario.mcp_servers.keys().map(String::as_str).collect();
            let message = if declared.is_empty() {
                format!(
                    "expected a server declared in mcp_servers, found {}; the scenario declares none",
                    Value::from(mcp.server.as_str())
                )
            } else {
                format!(
                    "expected a server declared in mcp_servers ({}), found {}",
                    declared.join(", "),
                    Value::from(mcp.server.as_str())
                )
            };
            problems.push(Problem::at(at.key("server"), message));
        }
        if mcp.tool.trim().is_empty() {
            problems.push(Problem::at(
                at.key("tool"),
                "expected the name of a tool on the server",
            ));
        }
    }
}

fn check_http(http: &HttpSpec, path: &JsonPath, problems: &mut Vec<Problem>) {
    check_url(&http.url, &path.key("url"), problems);
    check_headers(&http.headers, &http.secret_headers, path, problems);
}

fn check_url(url: &str, path: &JsonPath, problems: &mut Vec<Problem>) {
    match reqwest::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.has_host() => {}
        Ok(_) => problems.push(Problem::at(
            path.clone(),
            format!(
                "expected an http:// or https:// URL with a host, found {}",
                Value::from(url)
            ),
        )),
        Err(e) => problems.push(Problem::at(
            path.clone(),
            format!(
                "expected an http:// or https:// URL, found {} ({e})",
                Value::from(url)
            ),
        )),
    }
}

fn check_headers(
    headers: &IndexMap<String, String>,
    secret_headers: &IndexMap<String, String>,
    path: &JsonPath,
    problems: &mut Vec<Problem>,
) {
    for (field, map) in [("headers", headers), ("secret_headers", secret_headers)] {
        for (name, value) in map {
            let at = path.key(field).key(name);
            if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
                problems.push(Problem::at_key(
                    at.clone(),
                    format!(
                        "expected an HTTP header name (letters, digits and !#$%&'*+-.^_`|~), found {}",
                        Value::from(name.as_str())
                    ),
                ));
            }
            if field == "headers" && reqwest::header::HeaderValue::from_str(value).is_err() {
                problems.push(Problem::at(
                    at.clone(),
                    "expected a header value of visible characters, spaces and tabs",
                ));
            }
            if field == "secret_headers" {
                if env_name(value).is_none() {
                    problems.push(Problem::at(
                        at.clone(),
                        format!(
                            "expected \"env:NAME\", the environment variable that holds the value, found {}; a secret is never written in a scenario",
                            Value::from(value.as_str())
                        ),
                    ));
                }
                if headers.keys().any(|h| h.eq_ignore_ascii_case(name)) {
                    problems.push(Problem::at_key(
                        at,
                        format!(
                            "the header {} is given in \"headers\" too; give it once",
                            Value::from(name.as_str())
                        ),
                    ));
                }
            }
        }
    }
}

fn check_command(command: &CommandSpec, path: &JsonPath, problems: &mut Vec<Problem>) {
    check_program(&command.argv, &path.key("argv"), problems);
    check_env(&command.env, &path.key("env"), problems);
    if let Some(cwd) = &command.cwd {
        check_text(cwd, &path.key("cwd"), problems);
    }
}

fn check_program(argv: &[String], path: &JsonPath, problems: &mut Vec<Problem>) {
    match argv.first() {
        None => problems.push(Problem::at(
            path.clone(),
            "expected the program and its arguments, found an empty list",
        )),
        Some(program) if program.trim().is_empty() => problems.push(Problem::at(
            path.index(0),
            "expected the program's name or path, found an empty string",
        )),
        Some(_) => {}
    }
    for (i, arg) in argv.iter().enumerate() {
        check_text(arg, &path.index(i), problems);
    }
}

fn check_env(env: &IndexMap<String, String>, path: &JsonPath, problems: &mut Vec<Problem>) {
    for (name, value) in env {
        let at = path.key(name);
        if name.is_empty() || name.contains(['=', '\0']) {
            problems.push(Problem::at_key(
                at.clone(),
                format!(
                    "expected an environment variable's name (not empty, without = or NUL), found {}",
                    Value::from(name.as_str())
                ),
            ));
        }
        check_text(value, &at, problems);
    }
}

/// A NUL cannot be passed to a program.
fn check_text(text: &str, path: &JsonPath, problems: &mut Vec<Problem>) {
    if text.contains('\0') {
        problems.push(Problem::at(
            path.clone(),
            "a program cannot be given a NUL character (\\u0000)",
        ));
    }
}

fn check_server(server: &McpServerSpec, path: &JsonPath, problems: &mut Vec<Problem>) {
    match (&server.command, &server.url) {
        (None, None) => problems.push(Problem::at(
            path.clone(),
            "expected \"command\" (a program spoken to over stdio) or \"url\" (a streamable HTTP endpoint)",
        )),
        (Some(_), Some(_)) => problems.push(Problem::at_key(
            path.key("url"),
            "an MCP server is a program (\"command\") or an endpoint (\"url\"), not both",
        )),
        _ => {}
    }
    if let Some(argv) = &server.command {
        check_program(argv, &path.key("command"), problems);
        for (field, set) in [
            ("headers", !server.headers.is_empty()),
            ("secret_headers", !server.secret_headers.is_empty()),
        ] {
            if set {
                problems.push(Problem::at_key(
                    path.key(field),
                    format!(
                        "{field:?} is for a server reached at a \"url\"; this one is a program"
                    ),
                ));
            }
        }
    }
    if let Some(url) = &server.url {
        check_url(url, &path.key("url"), problems);
        check_headers(&server.headers, &server.secret_headers, path, problems);
        for (field, set) in [
            ("cwd", server.cwd.is_some()),
            ("env", !server.env.is_empty()),
        ] {
            if set && server.command.is_none() {
                problems.push(Problem::at_key(
                    path.key(field),
                    format!(
                        "{field:?} is for a server started as a program (\"command\"); this one is reached at a \"url\""
                    ),
                ));
            }
        }
    }
    check_env(&server.env, &path.key("env"), problems);
    if let Some(cwd) = &server.cwd {
        check_text(cwd, &path.key("cwd"), problems);
    }
}
