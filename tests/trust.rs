//! Trust before execution: a scenario that starts programs runs them only
//! when the user allows it. Headless, without --allow-exec it exits 2
//! naming the first program and starts nothing; an allowance is
//! remembered for the file's exact content, so an edited file asks again.
//! In the dashboard, the launch waits on a confirmation that lists every
//! program and every address off this machine.

mod common;

use common::real::{Sandbox, stderr, toolbox};
use conclave::bus::Hub;
use conclave::trust::TrustStore;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::view;
use conclave::tui::view_state::Overlay;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// A scenario whose one worker is a program that leaves `marker` behind
/// when it runs.
fn marking(marker: &Path) -> Value {
    json!({
        "name": "marks", "pattern": "orchestrator", "goal": "Run the marker.",
        "context": {"report_date": "2026-03-20", "region": "US"},
        "workers": {"marker_worker": {"command": {"argv": toolbox(&[
            "echo", "--touch", marker.to_str().unwrap()])}}},
        "provider": {"kind": "sim", "final_answer": "Done."}
    })
}

fn trust_entries(sandbox: &Sandbox) -> Vec<String> {
    std::fs::read_dir(sandbox.state().join("conclave/trust"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn without_allow_exec_a_headless_run_starts_nothing_and_names_the_program() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("ran");
    let path = sandbox.write("marks.json", &marking(&marker));
    let out = sandbox.run(&["run", path.to_str().unwrap(), "--headless"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no result: nothing ran");
    let err = stderr(&out);
    assert!(
        err.contains("marks.json:") && err.contains("workers.marker_worker.command"),
        "placed in the file: {err}"
    );
    assert!(
        err.contains(env!("CARGO_BIN_EXE_conclave")),
        "names the program: {err}"
    );
    assert!(err.contains("--allow-exec"), "says how to allow it: {err}");
    assert!(!marker.exists(), "the program never started");
    assert!(trust_entries(&sandbox).is_empty(), "nothing remembered");
}

#[test]
fn an_allowance_is_remembered_for_the_exact_file_and_an_edit_asks_again() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("ran");
    let path = sandbox.write("marks.json", &marking(&marker));
    let file = path.to_str().unwrap();

    let allowed = sandbox.run(&["run", file, "--headless", "--allow-exec"]);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert!(marker.exists(), "allowed, the program ran");
    let sha = {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(std::fs::read(&path).unwrap());
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    assert_eq!(
        trust_entries(&sandbox),
        [sha],
        "remembered by the file's SHA-256"
    );

    std::fs::remove_file(&marker).unwrap();
    let remembered = sandbox.run(&["run", file, "--headless"]);
    assert_eq!(remembered.status.code(), Some(0), "{}", stderr(&remembered));
    assert!(marker.exists(), "the same file runs without asking");

    std::fs::remove_file(&marker).unwrap();
    let mut edited = marking(&marker);
    edited["goal"] = json!("Run the marker again.");
    sandbox.write("marks.json", &edited);
    let asked = sandbox.run(&["run", file, "--headless"]);
    assert_eq!(asked.status.code(), Some(2), "an edited file asks again");
    assert!(!marker.exists(), "and starts nothing");
}

#[test]
fn the_dashboard_asks_before_it_runs_programs() {
    let text = json!({
        "name": "ops_tools", "pattern": "orchestrator", "goal": "Report.", "context": {},
        "workers": {
            "inventory_worker": {"command": {"argv": ["conclave", "toolbox", "inventory"], "cwd": "/srv/ops"}},
            "audit_worker": {"command": {"argv": ["./audit.sh", "--since", "last week"], "cwd": "/srv/ops/bin"}},
            "pricing_worker": {"http": {"url": "https://pricing.example.com/v2/prices"}},
            "local_worker": {"http": {"url": "http://127.0.0.1:8787/pricing"}}
        },
        "provider": {"kind": "sim"}
    })
    .to_string();
    let scenario = Arc::new(conclave::scenario::parse(&text, "ops_tools.json").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let mut app = App::new(
        Hub::new(16),
        AppOptions {
            trust: TrustStore::at(dir.path().to_path_buf()),
            ..AppOptions::default()
        },
    );
    app.launch(scenario, Some("scenarios/ops_tools.json".into()));
    assert!(matches!(app.overlay, Some(Overlay::Trust(_))));
    assert!(app.run().is_none(), "nothing runs before the answer");
    for (width, height) in [(80, 24), (120, 32)] {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal.draw(|frame| view::draw(frame, &app)).unwrap();
        let buffer = terminal.backend().buffer();
        let mut screen = String::new();
        for y in 0..height {
            let line: String = (0..width).map(|x| buffer[(x, y)].symbol()).collect();
            screen.push_str(line.trim_end());
            screen.push('\n');
        }
        insta::assert_snapshot!(format!("trust_overlay_{width}x{height}"), screen);
    }
}
