//! A program scenario launched from the dashboard (docs/launch.md), in a
//! pseudo-terminal: picked in the picker, its output shown in the log,
//! stopped with `x` `y` (its whole process group, a child that ignores
//! SIGINT too), launched again with `n`, and quitting with it running
//! asks first and leaves nothing running. The program is the system's
//! `sh`: no framework.

use crate::common::pty::{COLS, LIMIT, ROWS, Session, recordings};
use std::path::Path;
use std::time::{Duration, Instant};

/// Prints a line on each stream, leaves a child that ignores SIGINT (a
/// non-interactive shell's background job does), writes both pids, and
/// waits: only a stop ends it.
const APP: &str = r#"{
  "name": "echo_program",
  "pattern": "program",
  "title": "Echo program",
  "command": ["sh", "-c", "echo hello from the program; echo warned on stderr >&2; sleep 600 & echo $! >> pids; echo $$ >> pids; wait"],
  "stop_grace_ms": 500,
  "max_seconds": 300
}"#;

/// The pids the program's runs wrote, once `n` of them are there.
fn pids(dir: &Path, n: usize) -> Vec<u32> {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(dir.join("pids")).unwrap_or_default();
        let pids: Vec<u32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        if pids.len() >= n {
            return pids;
        }
        assert!(start.elapsed() < LIMIT, "the program wrote {pids:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether process `pid` still runs (a zombie does not).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .next()?
                .to_string();
            Some(state != "Z")
        })
        .unwrap_or(false)
}

fn wait_gone(pids: &[u32]) {
    let start = Instant::now();
    while pids.iter().any(|pid| running(*pid)) {
        assert!(
            start.elapsed() < LIMIT,
            "still running: {:?}",
            pids.iter().filter(|p| running(**p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_program_launched_from_the_picker_shows_its_output_and_stops_with_x_y() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let scenarios = home.path().join("scenarios");
    std::fs::create_dir(&scenarios).unwrap();
    std::fs::write(scenarios.join("app.json"), APP).unwrap();
    let mut session = Session::start_in(home.path(), &[], state.path(), &[], (COLS, ROWS));
    session.wait_text("Launch the program: sh -c");
    session.press("\r");
    session.wait_text("hello from the program");
    session.wait_text("warned on stderr");
    let first = pids(&scenarios, 2);
    assert!(first.iter().all(|pid| running(*pid)), "{first:?}");
    session.press("x");
    session.wait_text("Stop the program?");
    // Any key but `y` keeps it running.
    session.press("n");
    session.wait_for("the question closed", |t| !t.contains("Stop the program?"));
    assert!(first.iter().all(|pid| running(*pid)), "kept: {first:?}");
    session.press("x");
    session.wait_text("Stop the program?");
    session.press("y");
    wait_gone(&first);
    session.wait_text("STOPPED");
    let recorded = recordings(state.path());
    assert!(
        recorded
            .iter()
            .any(|p| p.to_string_lossy().contains("launch-")),
        "the launch is recorded: {recorded:?}"
    );
    // `n` launches it again; quitting while it runs asks first.
    session.press("n");
    session.wait_text("Launch the program: sh -c");
    session.press("\r");
    let second: Vec<u32> = pids(&scenarios, 4)[2..].to_vec();
    session.wait_for("the second run's output", |t| {
        t.contains("hello from the program") && t.contains("RUNNING")
    });
    session.press("q");
    session.wait_text("Quit?");
    session.wait_text("echo_program");
    assert!(
        second.iter().all(|pid| running(*pid)),
        "asked first: {second:?}"
    );
    session.press("y");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");
    wait_gone(&second);
}

/// `conclave run app.json` opens the dashboard on the program at once,
/// with the seed given: its output shown, stopped with `x` `y`, its group
/// gone, and the dashboard quits without asking once nothing runs.
#[test]
fn run_of_a_program_scenario_opens_the_dashboard_with_it_running() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let app = APP.replace("hello from the program", "seed=$CONCLAVE_SEED");
    std::fs::write(home.path().join("app.json"), app).unwrap();
    let args = ["run", "app.json", "--seed", "42"];
    let mut session = Session::start_in(home.path(), &args, state.path(), &[], (COLS, ROWS));
    session.wait_text("seed=42");
    let pids = pids(home.path(), 2);
    assert!(pids.iter().all(|pid| running(*pid)), "{pids:?}");
    session.press("x");
    session.wait_text("Stop the program?");
    session.press("y");
    wait_gone(&pids);
    session.wait_text("STOPPED");
    session.press("q");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");
}

/// A program scenario whose program cannot start is said on the command
/// line, exit 2, before any screen opens; so is `--record FILE`, which
/// only a headless launch takes.
#[test]
fn run_of_a_program_that_cannot_start_says_so_before_the_screen_opens() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app.json");
    std::fs::write(
        &app,
        "{\"name\": \"gone\", \"pattern\": \"program\",\n \"command\": [\"no-such-program-here\"]}",
    )
    .unwrap();
    let out = crate::common::cli::conclave(&["run", app.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("app.json:2:") && said.contains("cannot find the program"),
        "{said}"
    );
    let out = crate::common::cli::conclave(&["run", app.to_str().unwrap(), "--record", "x.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("--record FILE is for --headless"), "{said}");
}
