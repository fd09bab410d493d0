//! Real workers end to end: the built binary runs scenarios whose workers
//! are a loopback HTTP server these tests start and programs cargo built
//! (`conclave toolbox`). What they answer reaches the result; what they do
//! wrong (error statuses, answers that are not a JSON object, a closed
//! connection, a program that dies or hangs) fails the call as 001 says,
//! and nothing a run started outlives it.

use crate::common;

use common::loopback::{Body, Loopback, Reply};
use common::real::{Sandbox, of_type, pids_in, recording, stderr, survivors, toolbox};
use serde_json::{Value, json};
use std::time::Duration;

const DATE: &str = "2026-03-20";

/// An orchestrator scenario over `workers`, whose planner plans `tasks`
/// (`(id, worker, critical)`) with `args`.
fn orchestrator(workers: Value, tasks: &[(&str, &str, bool)], args: &Value) -> Value {
    let tasks: Vec<Value> = tasks
        .iter()
        .map(|(id, worker, critical)| {
            json!({"id": id, "worker": worker, "args": args, "critical": critical})
        })
        .collect();
    json!({
        "name": "real_workers", "pattern": "orchestrator",
        "goal": "Prepare the pricing and inventory report.",
        "context": {"report_date": DATE, "region": "US"},
        "budget": {"max_tasks": 8, "max_dispatches": 16, "max_retries_per_task": 0},
        "workers": workers,
        "provider": {"kind": "sim", "plan": {"kind": "plan", "tasks": tasks},
                     "final_answer": "Report ready."}
    })
}

fn us() -> Value {
    json!({"report_date": DATE, "region": "US"})
}

#[test]
fn an_http_and_a_command_worker_answer_for_real_and_the_server_sees_the_planners_args() {
    let pricing = json!({"price_index": 1.04, "active_promotions": 2});
    let answer = pricing.clone();
    let server = Loopback::serve(move |_, _| Reply::json(200, &answer));
    let sandbox = Sandbox::new();
    // An arg no simulated worker would take goes through as the planner
    // wrote it.
    let args = json!({"report_date": DATE, "region": "US", "currency": "USD"});
    let scenario = sandbox.write(
        "report.json",
        &orchestrator(
            json!({
                "pricing_worker": {"description": "Prices", "http": {"url": format!("{}/pricing", server.base_url)}},
                "inventory_worker": {"description": "Stock", "command": {"argv": toolbox(&["inventory"])}}
            }),
            &[("t1", "pricing_worker", true), ("t2", "inventory_worker", true)],
            &args,
        ),
    );
    let out = sandbox.run(&[
        "run",
        scenario.to_str().unwrap(),
        "--headless",
        "--allow-exec",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "ok");
    assert_eq!(
        result["aggregate"]["pricing"], pricing,
        "the endpoint's answer"
    );
    assert_eq!(
        result["aggregate"]["inventory"]["out_of_stock_skus"],
        json!(["SKU-9033"]),
        "the program's answer"
    );
    assert_eq!(
        result["aggregate"]["inventory"]["source"],
        "conclave toolbox inventory"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0].head.starts_with("POST /v1/pricing "),
        "{}",
        requests[0].head
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&requests[0].body).unwrap(),
        args,
        "the planner's args, as they are"
    );
    assert_eq!(
        requests[0].header("content-type").as_deref(),
        Some("application/json")
    );
}

#[test]
fn get_sends_the_args_as_a_query_and_headers_as_written() {
    let server = Loopback::serve(|_, _| Reply::json(200, &json!({"ok": true})));
    let sandbox = Sandbox::new();
    let scenario = sandbox.write(
        "get.json",
        &orchestrator(
            json!({"pricing_worker": {"http": {
                "url": format!("{}/pricing", server.base_url), "method": "GET",
                "headers": {"X-Env": "test"},
                "secret_headers": {"Authorization": "env:PRICING_TOKEN"}}}}),
            &[("t1", "pricing_worker", true)],
            &us(),
        ),
    );
    let out = sandbox.run_with(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--headless",
            "--record",
            "run.jsonl",
        ],
        &[("PRICING_TOKEN", "Bearer s3cr3t-pricing-token")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = &server.requests()[0];
    assert!(
        request
            .head
            .starts_with("GET /v1/pricing?report_date=2026-03-20&region=US "),
        "{}",
        request.head
    );
    assert_eq!(request.header("x-env").as_deref(), Some("test"));
    assert_eq!(
        request.header("authorization").as_deref(),
        Some("Bearer s3cr3t-pricing-token")
    );
    let written = std::fs::read_to_string(sandbox.path("run.jsonl")).unwrap();
    assert!(
        !written.contains("s3cr3t-pricing-token"),
        "the secret is never written"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("s3cr3t"));
}

#[test]
fn an_unset_secret_variable_stops_the_launch_and_names_it() {
    let sandbox = Sandbox::new();
    let scenario = sandbox.write(
        "secret.json",
        &orchestrator(
            json!({"pricing_worker": {"http": {"url": "http://127.0.0.1:9/pricing",
                "secret_headers": {"Authorization": "env:CONCLAVE_TEST_UNSET_TOKEN"}}}}),
            &[("t1", "pricing_worker", true)],
            &us(),
        ),
    );
    let out = sandbox.run(&["run", scenario.to_str().unwrap(), "--headless"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("secret.json:")
            && err.contains("workers.pricing_worker.http.secret_headers.Authorization")
            && err.contains("CONCLAVE_TEST_UNSET_TOKEN is not set"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn an_error_status_fails_the_call_with_the_status_in_its_event() {
    let server = Loopback::serve(|_, _| {
        Reply::json(
            503,
            &json!({"error": "pricing database \u{1b}[31mdown\u{1b}[0m"}),
        )
    });
    let sandbox = Sandbox::new();
    let scenario = sandbox.write(
        "down.json",
        &orchestrator(
            json!({"pricing_worker": {"http": {"url": format!("{}/pricing", server.base_url)}}}),
            &[("t1", "pricing_worker", true)],
            &us(),
        ),
    );
    let out = sandbox.run(&[
        "run",
        scenario.to_str().unwrap(),
        "--headless",
        "--record",
        "down.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["stop_reason"], "critical_task_failed");
    assert_eq!(
        result["failed_critical"][0]["stop_reason"],
        "worker_error:pricing_worker"
    );
    let events = recording(&sandbox.path("down.jsonl"));
    let call = of_type(&events, "call_finished")
        .into_iter()
        .find(|e| e["tool"] == "pricing_worker")
        .expect("the call's event");
    assert_eq!(call["outcome"], "error");
    assert_eq!(call["http_status"], 503);
    let words = call["error"].as_str().unwrap();
    assert!(
        words.starts_with("HTTP 503: {\"error\":\"pricing database"),
        "{words}"
    );
    assert!(!words.contains('\u{1b}'), "cleaned: {words:?}");
}

#[test]
fn answers_that_are_not_a_json_object_stop_with_worker_bad_result() {
    let server = Loopback::serve(|request, _| {
        let path = request
            .head
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string();
        match path.as_str() {
            "/v1/text" => Reply::text(200, "<html>not json</html>"),
            "/v1/list" => Reply::json(200, &json!([1, 2, 3])),
            "/v1/huge" => Reply::json(200, &json!({"blob": "x".repeat(64 * 1024)})),
            _ => Reply::json(200, &json!({"fine": true})),
        }
    });
    let sandbox = Sandbox::new();
    let http = |path: &str| json!({"http": {"url": format!("{}/{path}", server.base_url)}});
    let scenario = sandbox.write(
        "malformed.json",
        &orchestrator(
            json!({"text_worker": http("text"), "list_worker": http("list"),
                   "huge_worker": http("huge"), "fine_worker": http("fine")}),
            &[
                ("t1", "text_worker", false),
                ("t2", "list_worker", false),
                ("t3", "huge_worker", false),
                ("t4", "fine_worker", false),
            ],
            &us(),
        ),
    );
    let out = sandbox.run_with(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--headless",
            "--record",
            "m.jsonl",
        ],
        &[("CONCLAVE_MAX_BODY_BYTES", "4096")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: Vec<(&str, &str)> = result["aggregate"]["failed_tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["worker"].as_str().unwrap(),
                t["stop_reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        failed,
        [
            ("text_worker", "worker_bad_result:text_worker"),
            ("list_worker", "worker_bad_result:list_worker"),
            ("huge_worker", "worker_bad_result:huge_worker"),
        ]
    );
    assert_eq!(result["aggregate"]["fine"], json!({"fine": true}));
    let events = recording(&sandbox.path("m.jsonl"));
    let words = |tool: &str| -> String {
        of_type(&events, "call_finished")
            .into_iter()
            .find(|e| e["tool"] == tool)
            .and_then(|e| e["error"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        words("text_worker").starts_with("the answer is not JSON"),
        "{}",
        words("text_worker")
    );
    assert_eq!(
        words("list_worker"),
        "the answer is a list; expected a JSON object"
    );
    assert!(
        words("huge_worker").contains("larger than 4096 bytes"),
        "{}",
        words("huge_worker")
    );
}

#[test]
fn a_server_that_closes_the_connection_fails_the_call() {
    let server = Loopback::serve(|_, _| Reply::new(200, Body::HangUp));
    let sandbox = Sandbox::new();
    let scenario = sandbox.write(
        "closed.json",
        &orchestrator(
            json!({"pricing_worker": {"http": {"url": format!("{}/pricing", server.base_url)}}}),
            &[("t1", "pricing_worker", true)],
            &us(),
        ),
    );
    let out = sandbox.run(&[
        "run",
        scenario.to_str().unwrap(),
        "--headless",
        "--record",
        "c.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        result["failed_critical"][0]["stop_reason"],
        "worker_error:pricing_worker"
    );
    let events = recording(&sandbox.path("c.jsonl"));
    let call = of_type(&events, "call_finished")
        .into_iter()
        .find(|e| e["tool"] == "pricing_worker")
        .unwrap();
    assert!(call.get("http_status").is_none(), "no status came");
    assert!(
        call["error"].as_str().is_some_and(|w| !w.is_empty()),
        "{call}"
    );
}

#[test]
fn programs_that_answer_wrong_or_die_mid_call_fail_their_calls() {
    let sandbox = Sandbox::new();
    let program = |how: &[&str]| {
        let mut tool = vec!["misbehave"];
        tool.extend_from_slice(how);
        json!({"command": {"argv": toolbox(&tool)}})
    };
    let scenario = sandbox.write(
        "programs.json",
        &orchestrator(
            json!({"garbage_worker": program(&["garbage"]), "list_worker": program(&["list"]),
                   "huge_worker": program(&["huge", "--bytes", "100000"]),
                   "dying_worker": program(&["exit"])}),
            &[
                ("t1", "garbage_worker", false),
                ("t2", "list_worker", false),
                ("t3", "huge_worker", false),
                ("t4", "dying_worker", false),
            ],
            &us(),
        ),
    );
    let out = sandbox.run_with(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--headless",
            "--allow-exec",
            "--record",
            "p.jsonl",
        ],
        &[("CONCLAVE_MAX_BODY_BYTES", "4096")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reasons: Vec<&str> = result["aggregate"]["failed_tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["stop_reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        [
            "worker_bad_result:garbage_worker",
            "worker_bad_result:list_worker",
            "worker_bad_result:huge_worker",
            "worker_error:dying_worker",
        ]
    );
    let events = recording(&sandbox.path("p.jsonl"));
    let dying = of_type(&events, "call_finished")
        .into_iter()
        .find(|e| e["tool"] == "dying_worker")
        .unwrap();
    assert_eq!(
        dying["error"],
        "exited with status 1: connecting to the pricing database | fatal: the connection was reset mid-query",
        "the last lines of stderr"
    );
}

#[test]
fn a_hanging_program_is_killed_at_its_timeout_with_everything_it_started() {
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("pids");
    let mut scenario = orchestrator(
        json!({"stuck_worker": {"command": {"argv": toolbox(&[
            "misbehave", "hang", "--child", "--pid-file", pid_file.to_str().unwrap()])}}}),
        &[("t1", "stuck_worker", true)],
        &us(),
    );
    scenario["budget"]["task_timeout_seconds"] = json!(1.5);
    let path = sandbox.write("hang.json", &scenario);
    let out = sandbox.run(&["run", path.to_str().unwrap(), "--headless", "--allow-exec"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["failed_critical"][0]["stop_reason"], "task_timeout");
    let pids = pids_in(&pid_file, 2, Duration::from_secs(5));
    assert_eq!(pids.len(), 2, "the program and the child it started");
    assert_eq!(
        survivors(&pids, Duration::from_secs(5)),
        Vec::<i32>::new(),
        "no process of the program's group is left"
    );
}

#[test]
fn a_signal_ends_a_headless_run_and_every_program_it_started() {
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("pids");
    let mut scenario = orchestrator(
        json!({"stuck_worker": {"command": {"argv": toolbox(&[
            "misbehave", "hang", "--child", "--pid-file", pid_file.to_str().unwrap()])}}}),
        &[("t1", "stuck_worker", true)],
        &us(),
    );
    scenario["budget"]["task_timeout_seconds"] = json!(600);
    scenario["budget"]["max_seconds"] = json!(600);
    let path = sandbox.write("hang.json", &scenario);
    let mut child = sandbox.start_run(&path);
    let pids = pids_in(&pid_file, 2, Duration::from_secs(10));
    assert_eq!(pids.len(), 2, "the program started");
    // SAFETY: signalling the child this test started.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "128 + SIGTERM");
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["stop_reason"], "cancelled", "{result}");
    assert_eq!(survivors(&pids, Duration::from_secs(5)), Vec::<i32>::new());
}

#[test]
fn real_workers_refuse_the_virtual_clock() {
    let sandbox = Sandbox::new();
    let path = sandbox.write(
        "clock.json",
        &orchestrator(
            json!({"pricing_worker": {"http": {"url": "http://127.0.0.1:9/pricing"}}}),
            &[("t1", "pricing_worker", true)],
            &us(),
        ),
    );
    let out = sandbox.run(&[
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--clock",
        "virtual",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("real workers, which run on the real clock"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_program_and_its_folder_are_found_relative_to_the_scenario_file() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.path("tools")).unwrap();
    std::fs::create_dir_all(sandbox.path("work")).unwrap();
    std::os::unix::fs::symlink(common::real::CONCLAVE, sandbox.path("tools/conclave-tool"))
        .unwrap();
    let scenario = orchestrator(
        json!({"echo_worker": {"command": {
            "argv": ["./tools/conclave-tool", "toolbox", "echo", "--touch", "ran-here"],
            "cwd": "work"}}}),
        &[("t1", "echo_worker", true)],
        &us(),
    );
    let path = sandbox.write("relative.json", &scenario);
    // Run from elsewhere: the paths follow the file, not the shell.
    let out = sandbox
        .command(
            &["run", path.to_str().unwrap(), "--headless", "--allow-exec"],
            &[],
        )
        .current_dir("/")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        sandbox.path("work/ran-here").exists(),
        "the program ran in work/"
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["aggregate"]["echo"]["received"], us());

    let mut missing = scenario.clone();
    missing["workers"]["echo_worker"]["command"]["argv"][0] = json!("./tools/absent");
    let path = sandbox.write("missing.json", &missing);
    let out = sandbox.run(&["run", path.to_str().unwrap(), "--headless", "--allow-exec"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("missing.json:")
            && err.contains("workers.echo_worker.command.argv")
            && err.contains("tools/absent does not exist"),
        "{err}"
    );
}
