//! Trust before execution: a scenario that starts programs runs them only
//! when the user allows it. Headless, without --allow-exec it exits 2
//! naming the first program and starts nothing; an allowance covers the
//! file where it is and as it is and every program and script it runs as
//! they are, so an edited file, the same file in another folder, or a
//! program or script rewritten since asks again, and says what changed.
//! In the dashboard, the launch waits on a confirmation that lists every
//! program, the files it runs and every address off this machine.

use crate::common;

use common::real::{Sandbox, stderr, toolbox};
use conclave::trust::TrustStore;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::view;
use conclave::tui::view_state::Overlay;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
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

/// The allowances remembered in the sandbox, each the JSON listing what it
/// covers.
fn allowances(sandbox: &Sandbox) -> Vec<Value> {
    let dir = sandbox.state().join("conclave/trust");
    trust_entries(sandbox)
        .iter()
        .filter(|name| dir.join(name).is_file())
        .map(|name| {
            serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
        })
        .collect()
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
fn an_allowance_is_remembered_for_the_file_and_an_edit_asks_again() {
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
    let entries = allowances(&sandbox);
    assert_eq!(entries.len(), 1, "one allowance: {entries:?}");
    let entry = &entries[0];
    let canonical = std::fs::canonicalize(&path).unwrap();
    assert_eq!(entry["scenario"], canonical.to_str().unwrap(), "{entry}");
    assert_eq!(entry["sha256"], sha.as_str(), "the file's SHA-256");
    assert_eq!(
        entry["files"][0]["content"], "conclave",
        "the toolbox is the running conclave: {entry}"
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
    // Read as if from /srv/ops, so that what the programs are found to be
    // is the same on every machine: ./audit.sh is not there.
    let scenario = Arc::new(
        conclave::scenario::parse_from(&text, Path::new("/srv/ops/ops_tools.json")).unwrap(),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut app = App::new(AppOptions {
        trust: TrustStore::at(dir.path().to_path_buf()),
        ..AppOptions::default()
    });
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

/// A folder `name` in the sandbox holding `s.json`, whose one worker runs
/// `argv` in that folder, and `tool.sh`, a worker that leaves `ran` in the
/// folder it runs in; `variant` changes its bytes, not what it does.
fn folder(sandbox: &Sandbox, name: &str, argv: &[&str], variant: &str) -> PathBuf {
    let dir = sandbox.path(name);
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = json!({
        "name": "tool", "pattern": "orchestrator", "goal": "Run the tool.",
        "context": {"report_date": "2026-03-20", "region": "US"},
        "workers": {"tool_worker": {"command": {"argv": argv}}},
        "provider": {"kind": "sim", "final_answer": "Done."}
    });
    std::fs::write(
        dir.join("s.json"),
        serde_json::to_string_pretty(&scenario).unwrap(),
    )
    .unwrap();
    write_tool(&dir, variant);
    dir
}

fn write_tool(dir: &Path, variant: &str) {
    let tool = dir.join("tool.sh");
    std::fs::write(
        &tool,
        format!("#!/bin/sh\n# {variant}\ncat > /dev/null\ntouch ran\necho '{{\"done\": true}}'\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `conclave run DIR/s.json --headless`, with `--allow-exec` when `allow`.
fn run_in(sandbox: &Sandbox, dir: &Path, allow: bool) -> std::process::Output {
    let file = dir.join("s.json");
    let mut args = vec!["run", file.to_str().unwrap(), "--headless"];
    if allow {
        args.push("--allow-exec");
    }
    sandbox.run(&args)
}

/// The run was refused before anything started: exit 2, no result, the
/// engine's refusal, and the tool never ran.
fn assert_refused(out: &std::process::Output, dir: &Path) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "no result: {err}");
    assert!(
        err.contains("workers.tool_worker.command") && err.contains("--allow-exec"),
        "the refusal: {err}"
    );
    assert!(!dir.join("ran").exists(), "the program never started");
    err
}

#[test]
fn the_same_scenario_in_another_folder_is_not_allowed_by_the_first_folders_allowance() {
    let sandbox = Sandbox::new();
    let first = folder(&sandbox, "first", &["./tool.sh"], "first");
    let allowed = run_in(&sandbox, &first, true);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert!(first.join("ran").exists(), "allowed, the tool ran");

    // Byte for byte the same scenario, next to another tool.sh.
    let second = folder(&sandbox, "second", &["./tool.sh"], "second");
    assert_eq!(
        std::fs::read(first.join("s.json")).unwrap(),
        std::fs::read(second.join("s.json")).unwrap()
    );
    let err = assert_refused(&run_in(&sandbox, &second, false), &second);
    let tool = std::fs::canonicalize(second.join("tool.sh")).unwrap();
    assert!(
        err.contains(&format!("{} (sha256 ", tool.display())),
        "names what an allowance would cover: {err}"
    );
}

/// A tool started as the program itself and one handed to an interpreter:
/// rewritten after the allowance, either asks again, does not run, and
/// the refusal names it as changed.
#[test]
fn a_program_or_script_rewritten_after_the_allowance_asks_again_and_does_not_run() {
    for argv in [&["./tool.sh"][..], &["sh", "tool.sh"]] {
        let sandbox = Sandbox::new();
        let dir = folder(&sandbox, "ops", argv, "as allowed");
        let allowed = run_in(&sandbox, &dir, true);
        assert_eq!(
            allowed.status.code(),
            Some(0),
            "{argv:?}: {}",
            stderr(&allowed)
        );
        std::fs::remove_file(dir.join("ran")).unwrap();

        write_tool(&dir, "rewritten");
        let err = assert_refused(&run_in(&sandbox, &dir, false), &dir);
        let tool = std::fs::canonicalize(dir.join("tool.sh")).unwrap();
        assert!(
            err.contains(&format!("{} changed since you allowed it", tool.display())),
            "{argv:?}: names what changed: {err}"
        );
    }
}

/// A program that appends to the data file its first argument names: the
/// allowance covers the program and the script an interpreter is given,
/// never the file they write, so the run allowed once runs again without
/// asking, whatever the file holds now; a rewritten program still asks.
#[test]
fn a_data_file_the_program_writes_is_not_covered_but_the_program_is() {
    for argv in [
        &["./writer.sh", "data.log"][..],
        &["sh", "writer.sh", "data.log"],
    ] {
        let sandbox = Sandbox::new();
        let dir = folder(&sandbox, "ops", argv, "as allowed");
        write_writer(&dir, "as allowed");
        let allowed = run_in(&sandbox, &dir, true);
        assert_eq!(
            allowed.status.code(),
            Some(0),
            "{argv:?}: {}",
            stderr(&allowed)
        );
        let lines =
            || std::fs::read_to_string(dir.join("data.log")).map_or(0, |text| text.lines().count());
        let mut written = lines();
        assert!(written > 0, "{argv:?}: the allowed run wrote its data");
        for again in 1..=2 {
            let out = run_in(&sandbox, &dir, false);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{argv:?}, run {again} without --allow-exec: {}",
                stderr(&out)
            );
            assert!(lines() > written, "{argv:?}: run {again} wrote its data");
            written = lines();
        }

        write_writer(&dir, "rewritten");
        let out = run_in(&sandbox, &dir, false);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        let writer = std::fs::canonicalize(dir.join("writer.sh")).unwrap();
        assert!(
            err.contains(&format!(
                "{} changed since you allowed it",
                writer.display()
            )),
            "{argv:?}: names what changed: {err}"
        );
        assert!(
            !err.contains("data.log"),
            "{argv:?}: the data is no program: {err}"
        );
        assert_eq!(lines(), written, "{argv:?}: refused, it never ran");
    }
}

/// `writer.sh`, a worker that appends a line to the file its first
/// argument names; `variant` changes its bytes, not what it does.
fn write_writer(dir: &Path, variant: &str) {
    let writer = dir.join("writer.sh");
    std::fs::write(
        &writer,
        format!("#!/bin/sh\n# {variant}\ncat > /dev/null\necho \"run $$\" >> \"$1\"\necho '{{\"done\": true}}'\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&writer, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn unchanged_the_allowance_holds_from_any_path_to_the_file() {
    let sandbox = Sandbox::new();
    let dir = folder(&sandbox, "ops", &["sh", "tool.sh"], "as allowed");
    let allowed = run_in(&sandbox, &dir, true);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    std::fs::remove_file(dir.join("ran")).unwrap();

    // The same file reached through a link to its folder, the tool's
    // bytes written again as they were: still allowed, and it runs.
    std::os::unix::fs::symlink(&dir, sandbox.path("link")).unwrap();
    write_tool(&dir, "as allowed");
    let again = sandbox.run(&["run", "link/s.json", "--headless"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(dir.join("ran").exists(), "the allowed tool ran");
    assert_eq!(allowances(&sandbox).len(), 1, "nothing new to remember");
}

#[test]
fn a_sweep_whose_program_changed_since_its_allowance_starts_nothing_and_says_what_changed() {
    let sandbox = Sandbox::new();
    let dir = folder(&sandbox, "ops", &["./tool.sh"], "as allowed");
    let file = dir.join("s.json");
    let file = file.to_str().unwrap();
    let sweep = |allow: bool| {
        let mut args = vec!["sweep", file, "--seeds", "1..3", "--headless"];
        if allow {
            args.push("--allow-exec");
        }
        sandbox.run(&args)
    };
    let allowed = sweep(true);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    std::fs::remove_file(dir.join("ran")).unwrap();

    write_tool(&dir, "rewritten");
    let err = assert_refused(&sweep(false), &dir);
    assert!(
        err.contains("tool.sh changed since you allowed it"),
        "{err}"
    );
}

/// A fork runs the scenario its recording holds, which no file holds:
/// `--allow-exec` lets its programs run for that fork alone, and it says
/// so, rather than blaming a missing state folder.
#[test]
fn a_forks_allowance_is_for_that_run_alone_and_says_why() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("ran");
    let path = sandbox.write("marks.json", &marking(&marker));
    let file = path.to_str().unwrap();
    let recording = sandbox.path("marks.jsonl");
    let recording = recording.to_str().unwrap();
    let recorded = sandbox.run(&[
        "run",
        file,
        "--headless",
        "--allow-exec",
        "--record",
        recording,
    ]);
    assert_eq!(recorded.status.code(), Some(0), "{}", stderr(&recorded));
    std::fs::remove_file(&marker).unwrap();

    let forked = sandbox.run(&[
        "fork",
        recording,
        "--at",
        "wave 1",
        "--headless",
        "--allow-exec",
    ]);
    let said = stderr(&forked);
    assert_eq!(forked.status.code(), Some(0), "{said}");
    assert!(
        !said.contains("no folder to remember it in"),
        "the state folder is there: {said}"
    );
    assert!(
        said.contains("the allowance is for this run alone"),
        "{said}"
    );
}
