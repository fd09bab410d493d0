//! Real workers in the dashboard, through a pseudo-terminal: launching a
//! scenario that runs programs asks first; `y` runs them and remembers the
//! file; `q` ends the run and every program it started with it.

use crate::common;

use common::pty::Session;
use common::real::{Sandbox, pids_in, survivors, toolbox};
use serde_json::json;
use std::time::Duration;

#[test]
fn the_dashboard_asks_runs_on_y_and_leaves_nothing_behind_on_q() {
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("pids");
    let scenario = json!({
        "name": "stuck", "pattern": "orchestrator", "goal": "Wait for the stuck tool.",
        "context": {"report_date": "2026-03-20", "region": "US"},
        "budget": {"task_timeout_seconds": 600, "max_seconds": 600},
        "workers": {"stuck_worker": {"command": {"argv": toolbox(&[
            "misbehave", "hang", "--child", "--pid-file", pid_file.to_str().unwrap()])}}},
        "provider": {"kind": "sim", "final_answer": "Done."}
    });
    let path = sandbox.write("stuck.json", &scenario);
    let mut session = Session::start(
        &["tui", path.to_str().unwrap(), "--no-record"],
        &sandbox.state(),
    );
    session.wait_text("Run this scenario's programs?");
    let text = session.text();
    assert!(text.contains("misbehave hang --child --pid-file"), "{text}");
    assert!(!pid_file.exists(), "nothing runs before the answer");

    session.press("y");
    let pids = pids_in(&pid_file, 2, Duration::from_secs(30));
    assert_eq!(pids.len(), 2, "the program and its child run once allowed");
    session.wait_text("stuck_worker");
    // One allowance: an entry named by its key (the folder beside it
    // maps each file to its last allowance).
    let trusted = std::fs::read_dir(sandbox.state().join("conclave/trust"))
        .unwrap()
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().is_file()))
        .count();
    assert_eq!(trusted, 1, "the allowance is remembered");

    // The run is live: q asks, y quits and cancels it.
    session.press("q");
    session.wait_text("y quits");
    session.press("y");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");
    assert_eq!(
        survivors(&pids, Duration::from_secs(5)),
        Vec::<i32>::new(),
        "q leaves no process of the run behind"
    );
}
