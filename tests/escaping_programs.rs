//! Nothing a program starts survives it, however it escapes: the built
//! binary runs scenarios whose command workers and stdio MCP server are
//! shell scripts that leave a real `sleep 90` behind in a new session
//! (`setsid`) or a new process group, one of them holding the program's
//! stdout. The call still answers with the program's output, and the
//! sleep is gone after the run (looked for through /proc, on Linux).

#![cfg(target_os = "linux")]

use crate::common;

use common::real::{Sandbox, alive, of_type, pids_in, recording, stderr};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const DEMO: &str = env!("CARGO_BIN_EXE_conclave-mcp-demo");

/// Write the shell script `name` in the sandbox, executable.
fn script(sandbox: &Sandbox, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = sandbox.path(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// An orchestrator scenario with one command worker running `argv`, its
/// call allowed `timeout` seconds.
fn one_program(argv: Value, timeout: f64) -> Value {
    json!({
        "name": "escaping_programs", "pattern": "orchestrator",
        "goal": "Ask the program.",
        "context": {},
        "budget": {"max_tasks": 2, "max_dispatches": 2, "max_retries_per_task": 0,
                   "task_timeout_seconds": timeout},
        "workers": {"tool_worker": {"description": "A program", "command": {"argv": argv}}},
        "provider": {"kind": "sim", "plan": {"kind": "plan", "tasks": [
            {"id": "t1", "worker": "tool_worker", "args": {"q": 1}, "critical": true}]},
            "final_answer": "Done."}
    })
}

/// Run `scenario` headless with --allow-exec and a recording; the output,
/// the events and how long it took.
fn run(sandbox: &Sandbox, scenario: &Value) -> (std::process::Output, Vec<Value>, Duration) {
    let path = sandbox.write("scenario.json", scenario);
    let record = sandbox.path("run.jsonl");
    let started = Instant::now();
    let out = sandbox.run(&[
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--allow-exec",
        "--record",
        record.to_str().unwrap(),
    ]);
    let took = started.elapsed();
    (out, recording(&record), took)
}

/// Whether `pid` still runs after up to `limit` (polled: a real process
/// is being killed and reaped by another).
fn still_runs_after(pid: i32, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while alive(pid) {
        if Instant::now() >= until {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The task's answer, checked to be the program's and not a timeout.
fn assert_answered(out: &std::process::Output, events: &[Value]) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    let finished = of_type(events, "task_finished");
    assert_eq!(finished.len(), 1, "{finished:#?}");
    assert_eq!(finished[0]["status"], "done", "{finished:#?}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        result
            .to_string()
            .contains("\"answer\":\"from the program\""),
        "the program's own answer: {result}"
    );
}

#[test]
fn a_program_that_leaves_a_new_session_holding_its_stdout_answers_and_leaves_nothing() {
    let sandbox = Sandbox::new();
    // `setsid` leaves the program's group and session; the sleep keeps
    // the program's stdout open for 90 s.
    script(
        &sandbox,
        "escape.sh",
        "setsid sleep 90 &\necho $! > escaped.pid\ncat > /dev/null\necho '{\"answer\": \"from the program\"}'\n",
    );
    let (out, events, took) = run(&sandbox, &one_program(json!(["./escape.sh"]), 30.0));
    assert_answered(&out, &events);
    assert!(
        took < Duration::from_secs(20),
        "the call did not wait for the sleep: {took:?}"
    );
    let pids = pids_in(&sandbox.path("escaped.pid"), 1, Duration::from_secs(5));
    assert_eq!(pids.len(), 1, "the script wrote the sleep's pid");
    assert!(
        !still_runs_after(pids[0], Duration::from_secs(10)),
        "the sleep in its own session is gone after the run"
    );
}

#[test]
fn a_program_whose_child_moves_to_a_new_process_group_leaves_nothing() {
    let sandbox = Sandbox::new();
    // The child makes a process group of its own and lets go of the pipes,
    // so the program's group is empty once the program has exited.
    script(
        &sandbox,
        "moved.sh",
        concat!(
            "perl -e 'setpgrp(0, 0); open(my $f, \">\", \"moved.pid\"); print $f \"$$\\n\"; close($f); sleep 90' > /dev/null 2>&1 < /dev/null &\n",
            // The program answers once its child has left its group.
            "while [ ! -s moved.pid ]; do sleep 0.05; done\n",
            "cat > /dev/null\necho '{\"answer\": \"from the program\"}'\n"
        ),
    );
    let (out, events, _) = run(&sandbox, &one_program(json!(["./moved.sh"]), 30.0));
    assert_answered(&out, &events);
    let pids = pids_in(&sandbox.path("moved.pid"), 1, Duration::from_secs(5));
    assert_eq!(pids.len(), 1, "the script wrote the child's pid");
    assert!(
        !still_runs_after(pids[0], Duration::from_secs(10)),
        "the child in its own group is gone after the run"
    );
}

#[test]
fn a_child_left_holding_stdout_in_the_programs_group_does_not_hold_the_call() {
    let sandbox = Sandbox::new();
    script(
        &sandbox,
        "held.sh",
        "sleep 90 &\necho $! > held.pid\ncat > /dev/null\necho '{\"answer\": \"from the program\"}'\n",
    );
    let (out, events, took) = run(&sandbox, &one_program(json!(["./held.sh"]), 30.0));
    assert_answered(&out, &events);
    assert!(took < Duration::from_secs(20), "{took:?}");
    let pids = pids_in(&sandbox.path("held.pid"), 1, Duration::from_secs(5));
    assert_eq!(pids.len(), 1);
    assert!(!still_runs_after(pids[0], Duration::from_secs(10)));
}

#[test]
fn an_mcp_server_that_starts_a_process_in_a_new_session_leaves_nothing() {
    let sandbox = Sandbox::new();
    script(
        &sandbox,
        "server.sh",
        &format!(
            "setsid sleep 90 > /dev/null 2>&1 < /dev/null &\necho $! > escaped.pid\nexec '{DEMO}'\n"
        ),
    );
    let scenario = common::real::lookup_through("escaping_server");
    let (out, events, _) = run(&sandbox, &scenario);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let finished = of_type(&events, "task_finished");
    assert_eq!(finished[0]["status"], "done", "{finished:#?}");
    let pids = pids_in(&sandbox.path("escaped.pid"), 1, Duration::from_secs(5));
    assert_eq!(pids.len(), 1, "the server wrote the sleep's pid");
    assert!(
        !still_runs_after(pids[0], Duration::from_secs(10)),
        "the sleep the server left in its own session is gone after the run"
    );
}

#[test]
fn a_conclave_killed_outright_leaves_none_of_its_programs_behind() {
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("pids");
    let mut argv = vec![common::real::CONCLAVE.to_string()];
    argv.extend(
        ["toolbox", "misbehave", "hang", "--child", "--pid-file"]
            .iter()
            .map(|s| s.to_string()),
    );
    argv.push(pid_file.display().to_string());
    let mut scenario = one_program(json!(argv), 600.0);
    scenario["budget"]["max_seconds"] = json!(600);
    let path = sandbox.write("hang.json", &scenario);
    let mut child = sandbox.start_run(&path);
    let pids = pids_in(&pid_file, 2, Duration::from_secs(10));
    assert_eq!(pids.len(), 2, "the program and its child started");
    // SIGKILL: Conclave gets no chance to end anything itself.
    child.kill().unwrap();
    child.wait().unwrap();
    for pid in pids {
        assert!(
            !still_runs_after(pid, Duration::from_secs(10)),
            "{pid} is gone after Conclave was killed"
        );
    }
}
