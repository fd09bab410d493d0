//! Two runs side by side: `conclave compare A B --headless` on recordings
//! the binary made, its errors, the side-by-side view the dashboard draws
//! when a pinned run is compared with another, and the comparisons of every
//! pattern's runs with a flag off and on.

use crate::common;

use common::cli::{conclave, result};
use conclave::bus::{Event, Hub};
use conclave::compare::{self, Comparison, Side};
use conclave::engine::LaunchOptions;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::effect::Effect;
use conclave::tui::keymap::Action;
use conclave::tui::view;
use conclave::tui::view_state::Overlay;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Record `scenarios/<file>` headless with `flags` into `dir/<name>`.
fn record(dir: &Path, file: &str, flags: &[&str], name: &str) -> PathBuf {
    let path = dir.join(name);
    let scenario = format!("scenarios/{file}");
    let mut args = vec!["run", scenario.as_str(), "--headless"];
    for flag in flags {
        args.extend(["--flag", flag]);
    }
    let recording = path.to_str().unwrap().to_string();
    args.extend(["--record", recording.as_str()]);
    let output = conclave(&args);
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(3),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    path
}

/// `checkout_v2_launch` recorded with the legal analyst off (a) and on (b).
fn legal_off_and_on(dir: &Path) -> (PathBuf, PathBuf) {
    (
        record(
            dir,
            "checkout_v2_launch.json",
            &["legal_analyst=off"],
            "a.jsonl",
        ),
        record(
            dir,
            "checkout_v2_launch.json",
            &["legal_analyst=on"],
            "b.jsonl",
        ),
    )
}

fn compare_headless(a: &Path, b: &Path) -> std::process::Output {
    conclave(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--headless",
    ])
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_legal_analysts_first_contribution_is_where_the_runs_diverge() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = legal_off_and_on(dir.path());
    let output = compare_headless(&a, &b);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let doc = result(&output);

    let divergence = &doc["first_divergence"];
    assert_eq!(divergence["b"]["kind"], "contribution_requested");
    assert_eq!(
        divergence["b"]["description"],
        "round 1 · legal_analyst asked"
    );
    assert_eq!(
        divergence["a"]["kind"], "round_finished",
        "A closes round 1 there"
    );
    assert_eq!(divergence["a"]["seq"], divergence["b"]["seq"]);

    let agents = doc["alignment"]["rounds"]["agents"].as_array().unwrap();
    let legal = agents
        .iter()
        .find(|r| r["agent"] == "legal_analyst")
        .unwrap();
    assert_eq!(legal["only_in"], "b");
    assert!(legal["a"].as_array().unwrap().iter().all(Value::is_null));
    assert_eq!(legal["b"][0]["stance"], "caution");
    for row in agents.iter().filter(|r| r["agent"] != "legal_analyst") {
        assert!(row["only_in"].is_null(), "{row}");
        assert_eq!(row["a"], row["b"], "the others said the same: {row}");
    }

    let differences = doc["differences"].as_array().unwrap();
    let find = |what: &str| differences.iter().find(|d| d["what"] == what);
    let flag = find("flags.legal_analyst").expect("the flag differs");
    assert_eq!(
        (&flag["a"], &flag["b"]),
        (&Value::Bool(false), &Value::Bool(true))
    );
    let calls = find("tools.model.calls").expect("the model calls differ");
    assert_eq!(
        (calls["a"].as_u64(), calls["b"].as_u64()),
        (Some(7), Some(9))
    );
    assert!(find("rounds.1.legal_analyst").is_some());
    assert!(
        find("rounds.1.conflicts").is_some(),
        "legal adds a divergence"
    );
    assert!(find("seed").is_none() && find("decision").is_none());
    assert_eq!(doc["aligned"], true);
    assert_eq!(doc["identical"], false);
    assert_eq!(doc["a"]["recording"], a.to_str().unwrap());
}

#[test]
fn a_run_compared_with_its_replay_of_the_same_seed_is_identical() {
    let dir = tempfile::tempdir().unwrap();
    let a = record(dir.path(), "vendor_outage.json", &[], "a.jsonl");
    let b = record(dir.path(), "vendor_outage.json", &[], "b.jsonl");
    let doc = result(&compare_headless(&a, &b));
    assert_eq!(doc["identical"], true);
    assert!(doc["first_divergence"].is_null());
    assert_eq!(doc["differences"], Value::Array(vec![]));
}

/// What the comparison `doc` lists as different, in order.
fn differing(doc: &Value) -> Vec<&str> {
    doc["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["what"].as_str().unwrap())
        .collect()
}

#[test]
fn runs_that_differ_in_their_wall_time_alone_are_identical() {
    let dir = tempfile::tempdir().unwrap();
    let a = record(dir.path(), "vendor_outage.json", &[], "a.jsonl");
    // The same run, finished 7 ms later, as a run on the real clock may.
    let b = dir.path().join("b.jsonl");
    let text = std::fs::read_to_string(&a).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut last: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(last["type"], "run_finished");
    last["t_ms"] = (last["t_ms"].as_u64().unwrap() + 7).into();
    *lines.last_mut().unwrap() = last.to_string();
    std::fs::write(&b, lines.join("\n") + "\n").unwrap();
    let doc = result(&compare_headless(&a, &b));
    let whats = differing(&doc);
    assert_eq!(whats, ["duration_ms"], "{doc:#}");
    assert_eq!(
        doc["identical"], true,
        "wall time is no divergence: {doc:#}"
    );
}

#[test]
fn another_seed_changes_the_times_and_nothing_that_happened() {
    let dir = tempfile::tempdir().unwrap();
    let a = record(dir.path(), "checkout_v2_launch.json", &[], "a.jsonl");
    let path = dir.path().join("b.jsonl");
    let output = conclave(&[
        "run",
        "scenarios/checkout_v2_launch.json",
        "--headless",
        "--seed",
        "99",
        "--record",
        path.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let doc = result(&compare_headless(&a, &path));
    let whats = differing(&doc);
    assert_eq!(whats, ["seed", "duration_ms"], "{doc:#}");
    assert!(
        doc["first_divergence"].is_null(),
        "latencies are not a divergence"
    );
}

#[test]
fn runs_of_different_scenarios_compare_at_the_summary_level() {
    let dir = tempfile::tempdir().unwrap();
    let a = record(dir.path(), "checkout_v2_launch.json", &[], "a.jsonl");
    let b = record(dir.path(), "morning_ops_report.json", &[], "b.jsonl");
    let doc = result(&compare_headless(&a, &b));
    assert_eq!(doc["aligned"], false);
    assert!(doc["alignment"].is_null() && doc["first_divergence"].is_null());
    let notes = doc["notes"].as_array().unwrap();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("different patterns (collaboration and orchestrator)"),
        "{notes:?}"
    );
    let whats = differing(&doc);
    for what in ["scenario", "pattern", "decision", "health", "counts.rounds"] {
        assert!(whats.contains(&what), "{what} in {whats:?}");
    }
}

#[test]
fn files_that_cannot_be_compared_are_named_with_the_place_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = legal_off_and_on(dir.path());

    let missing = dir.path().join("missing.jsonl");
    let output = compare_headless(&a, &missing);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(
        stderr(&output).contains("missing.jsonl: cannot read the recording"),
        "{}",
        stderr(&output)
    );

    let garbage = dir.path().join("garbage.jsonl");
    std::fs::write(&garbage, "not json\n{\"also\": \"not an event\"}\n").unwrap();
    let output = compare_headless(&garbage, &a);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("garbage.jsonl:1: not JSON"),
        "{}",
        stderr(&output)
    );

    // A recording whose first line is lost has no start to compare from.
    let headless = dir.path().join("headless.jsonl");
    let text = std::fs::read_to_string(&a).unwrap();
    std::fs::write(&headless, text.split_once('\n').unwrap().1).unwrap();
    let output = compare_headless(&a, &headless);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("headless.jsonl: the events do not start with the run's start (seq 2)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_damaged_line_is_reported_and_the_rest_is_compared() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = legal_off_and_on(dir.path());
    let mut lines: Vec<String> = std::fs::read_to_string(&b)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines[29] = "{\"run\": 1, \"seq\": 30, \"t_ms\"".into();
    let damaged = dir.path().join("damaged.jsonl");
    std::fs::write(&damaged, lines.join("\n") + "\n").unwrap();
    let output = compare_headless(&a, &damaged);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("damaged.jsonl:30: not JSON"),
        "{}",
        stderr(&output)
    );
    let doc = result(&output);
    assert_eq!(
        doc["first_divergence"]["b"]["description"],
        "round 1 · legal_analyst asked"
    );
}

#[test]
fn completions_and_the_man_page_print_what_shells_and_man_read() {
    let bash = conclave(&["completions", "bash"]);
    assert_eq!(bash.status.code(), Some(0));
    let bash = String::from_utf8(bash.stdout).unwrap();
    assert!(bash.contains("complete -F _conclave"), "{bash}");
    assert!(bash.contains("compare"), "the new command completes");
    let zsh = String::from_utf8(conclave(&["completions", "zsh"]).stdout).unwrap();
    assert!(zsh.starts_with("#compdef conclave"), "{zsh}");
    let fish = String::from_utf8(conclave(&["completions", "fish"]).stdout).unwrap();
    assert!(
        fish.contains("complete -c conclave") && fish.contains("compare"),
        "{fish}"
    );
    let refused = conclave(&["completions", "tcsh"]);
    assert_eq!(refused.status.code(), Some(2));

    let man = conclave(&["man"]);
    assert_eq!(man.status.code(), Some(0));
    let man = String::from_utf8(man.stdout).unwrap();
    assert!(man.starts_with(".TH conclave 1"), "{man}");
    for needle in [
        ".SH COMMANDS",
        "conclave compare [OPTIONS] <A> <B>",
        ".SH \"EXIT STATUS\"",
        ".SH KEYS",
        ".SS \"Sweep (S)\"",
        "pause/resume",
        "OTEL_EXPORTER_OTLP_TIMEOUT",
        "CONCLAVE_THEME",
        "NO_COLOR",
        "OPENAI_MODEL",
    ] {
        assert!(man.contains(needle), "{needle} in {man}");
    }
    // Where groff is installed, the page renders without a warning.
    let groff = std::process::Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    if let Ok(mut groff) = groff {
        use std::io::Write;
        groff
            .stdin
            .take()
            .unwrap()
            .write_all(man.as_bytes())
            .unwrap();
        let rendered = groff.wait_with_output().unwrap();
        assert!(rendered.status.success());
        assert_eq!(String::from_utf8_lossy(&rendered.stderr), "", "groff warns");
        let text = String::from_utf8_lossy(&rendered.stdout);
        assert!(text.contains("EXIT STATUS"), "{text}");
        assert!(
            text.contains("conclave compare [OPTIONS] <A> <B>"),
            "{text}"
        );
    }
}

/// Every event of `file` run in-process with `flags`, as run `run`.
async fn events(file: &str, flags: &[(&str, bool)], run: u32) -> Vec<Arc<Event>> {
    let flags = flags.iter().map(|(n, on)| (n.to_string(), *on)).collect();
    let (_, events) = common::run(
        common::shipped(file),
        LaunchOptions {
            flags,
            ..LaunchOptions::default()
        },
    )
    .await;
    events
        .into_iter()
        .map(|mut e| {
            e.run = run;
            Arc::new(e)
        })
        .collect()
}

async fn compared(file: &str, a: &[(&str, bool)], b: &[(&str, bool)]) -> Comparison {
    let (a, b) = (events(file, a, 1).await, events(file, b, 2).await);
    compare::compare(
        Side::new("a", &a).unwrap(),
        Side::new("b", &b).unwrap(),
        conclave::patterns::compare_rules,
    )
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        let line: String = (0..width).map(|x| buffer[(x, y)].symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[tokio::test(start_paused = true)]
async fn the_dashboard_compares_the_selected_run_with_the_pinned_one() {
    let mut app = App::new(AppOptions::default());
    let off = events("checkout_v2_launch.json", &[("legal_analyst", false)], 1).await;
    let on = events("checkout_v2_launch.json", &[("legal_analyst", true)], 2).await;
    app.add_from_events(&off, None).unwrap();
    app.add_from_events(&on, None).unwrap();

    let compared = app.update(Action::Compare);
    conclave::tui::world::settle(&mut app, compared);
    assert!(app.overlay.is_none());
    assert_eq!(app.notice.as_deref(), Some("no run pinned"));

    app.update(Action::PrevRun);
    app.update(Action::Pin);
    assert_eq!(app.runs.pinned(), Some(0));
    let compared = app.update(Action::Compare);
    conclave::tui::world::settle(&mut app, compared);
    assert_eq!(
        app.notice.as_deref(),
        Some("this run is the pinned one: select another to compare")
    );
    app.update(Action::Pin);
    assert_eq!(app.runs.pinned(), None, "p again unpins");
    app.update(Action::Pin);
    app.update(Action::NextRun);
    let compared = app.update(Action::Compare);
    conclave::tui::world::settle(&mut app, compared);
    let Some(Overlay::Compare { comparison, .. }) = &app.overlay else {
        panic!("the comparison opens: {:?}", app.notice);
    };
    assert_eq!(comparison.a.recording, "run 1 (checkout_v2_launch)");
    assert_eq!(comparison.b.recording, "run 2 (checkout_v2_launch)");
    insta::assert_snapshot!("compare_legal_off_on_120x40", screen(&app, 120, 40));
    insta::assert_snapshot!("compare_legal_off_on_80x24", screen(&app, 80, 24));
}

fn whats(comparison: &Comparison) -> Vec<&str> {
    comparison
        .differences
        .iter()
        .map(|d| d.what.as_str())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn orchestrator_runs_align_their_task_outcomes() {
    let comparison = compared(
        "morning_ops_report.json",
        &[("inventory_runtime", true)],
        &[("inventory_runtime", false)],
    )
    .await;
    let doc = serde_json::to_value(&comparison).unwrap();
    let tasks = doc["alignment"]["tasks"]["tasks"]
        .as_array()
        .expect("tasks aligned");
    let t3 = tasks.iter().find(|t| t["task"] == "t3").unwrap();
    assert_eq!(t3["a"]["state"], "done");
    assert_eq!(t3["b"]["state"], "failed");
    assert_eq!(t3["b"]["stop_reason"], "worker_denied:inventory_worker");
    let whats = whats(&comparison);
    for what in [
        "stop_reason",
        "health",
        "tasks.t3.state",
        "tasks.t3.stop_reason",
    ] {
        assert!(whats.contains(&what), "{what} in {whats:?}");
    }
    assert!(
        !whats.iter().any(|w| w.starts_with("tasks.t1")),
        "t1 ran alike"
    );
    let divergence = comparison.first_divergence.clone().unwrap();
    assert!(
        divergence
            .b
            .unwrap()
            .description
            .contains("worker_denied:inventory_worker")
    );
}

#[tokio::test(start_paused = true)]
async fn swarm_runs_align_their_chains_turns_and_transfers() {
    let comparison = compared(
        "support_swarm.json",
        &[("refunds_desk", true)],
        &[("refunds_desk", false)],
    )
    .await;
    let doc = serde_json::to_value(&comparison).unwrap();
    let chain = &doc["alignment"]["chain"];
    assert_eq!(chain["chain_a"], json!(["triage", "billing", "refunds"]));
    assert_eq!(chain["chain_b"], json!(["triage", "billing"]));
    let refused = &chain["handoffs"][1]["b"];
    assert_eq!(refused["accepted"], false);
    assert_eq!(refused["reason"], "agent_denied:refunds");
    let divergence = comparison.first_divergence.clone().unwrap();
    assert_eq!(divergence.a.unwrap().kind, "handoff_accepted");
    assert_eq!(divergence.b.unwrap().kind, "handoff_rejected");
    assert!(whats(&comparison).contains(&"final_agent"));
}

#[tokio::test(start_paused = true)]
async fn coordinator_runs_align_their_member_calls() {
    let comparison = compared(
        "launch_coordinator.json",
        &[("legal_review", true)],
        &[("legal_review", false)],
    )
    .await;
    let doc = serde_json::to_value(&comparison).unwrap();
    let members = doc["alignment"]["chain"]["members"]
        .as_array()
        .expect("chains aligned");
    assert!(!members.is_empty());
    assert!(
        members.iter().any(|m| m["a"] != m["b"]),
        "the legal reviewer's call differs: {members:?}"
    );
    assert!(comparison.first_divergence.is_some());
}

#[tokio::test(start_paused = true)]
async fn research_runs_align_their_steps_and_sources() {
    let comparison = compared(
        "payments_research_locked_down.json",
        &[("vendor_reads", false)],
        &[("vendor_reads", true)],
    )
    .await;
    let doc = serde_json::to_value(&comparison).unwrap();
    let research = &doc["alignment"]["research"];
    let vendor = research["sources"]
        .as_array()
        .expect("research aligned")
        .iter()
        .find(|s| s["url"].as_str().unwrap().contains("vendor.example.com"))
        .unwrap();
    assert_eq!(vendor["a"]["fate"], "denied");
    assert_eq!(vendor["b"]["fate"], "read");
    let synthesis = research["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["phase"] == "synthesize")
        .unwrap();
    assert_eq!(
        (synthesis["a"].is_null(), synthesis["b"].is_null()),
        (true, false)
    );
    let divergence = comparison.first_divergence.clone().unwrap();
    assert_eq!(divergence.a.unwrap().kind, "source_denied");
}

#[tokio::test(start_paused = true)]
async fn a_breaker_switched_off_shows_in_the_calls_retries_and_rejections() {
    let comparison = compared("vendor_outage.json", &[], &[("breakers", false)]).await;
    let whats = whats(&comparison);
    // Both runs are partial: one without the tools safe mode skipped, the
    // other with its enrichment tasks failed.
    let json = serde_json::to_value(&comparison).unwrap();
    assert_eq!(
        (&json["a"]["partial"], &json["b"]["partial"]),
        (&json!(true), &json!(true))
    );
    for what in [
        "flags.breakers",
        "degraded",
        "tools.enrichment_worker.calls",
        "tools.enrichment_worker.rejected",
        "tools.enrichment_worker.retries",
    ] {
        assert!(whats.contains(&what), "{what} in {whats:?}");
    }
    let divergence = comparison.first_divergence.clone().unwrap();
    assert_eq!(divergence.a.unwrap().kind, "breaker_transition");
}

/// The dashboard with the checkout run, legal off (run 1, pinned) and on
/// (run 2, selected), side by side.
async fn comparing_app() -> App {
    let mut app = App::new(AppOptions::default());
    let off = events("checkout_v2_launch.json", &[("legal_analyst", false)], 1).await;
    let on = events("checkout_v2_launch.json", &[("legal_analyst", true)], 2).await;
    app.add_from_events(&off, None).unwrap();
    app.runs.pin(0);
    app.add_from_events(&on, None).unwrap();
    let compared = app.update(Action::Compare);
    conclave::tui::world::settle(&mut app, compared);
    app
}

/// Press `code` and carry out what it decided as the dashboard's loop
/// does; returns what it decided.
fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    let effects = app.key(KeyEvent::new(code, KeyModifiers::NONE));
    let mut world = common::world(Hub::new(16));
    common::carry(&mut world, app, effects.clone());
    effects
}

fn type_path(app: &mut App, path: &Path) {
    for _ in 0..200 {
        press(app, KeyCode::Backspace);
    }
    for c in path.to_str().unwrap().chars() {
        press(app, KeyCode::Char(c));
    }
}

/// The text a copy put on the clipboard, from its OSC 52 sequence.
fn copied(effects: &[Effect]) -> String {
    use base64::Engine;
    let Some(Effect::Copy(sequence)) = effects.last() else {
        panic!("a copy was sent: {effects:?}");
    };
    let payload = sequence
        .strip_prefix("\u{1b}]52;c;")
        .and_then(|s| s.strip_suffix('\u{07}'))
        .expect("an OSC 52 sequence");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    String::from_utf8(bytes).unwrap()
}

#[tokio::test(start_paused = true)]
async fn y_copies_the_comparison_and_w_writes_it_as_markdown_or_json() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = comparing_app().await;

    let copy = press(&mut app, KeyCode::Char('y'));
    let json: Value = serde_json::from_str(&copied(&copy)).unwrap();
    assert_eq!(
        json["first_divergence"]["b"]["description"],
        "round 1 · legal_analyst asked"
    );
    let notice = app.notice.clone().unwrap();
    assert_eq!(notice, format!("copied {} bytes", copied(&copy).len()));

    press(&mut app, KeyCode::Char('w'));
    let Some(Overlay::Export(prompt)) = &app.overlay else {
        panic!("w asks for a path");
    };
    assert_eq!(
        prompt.path,
        "conclave-compare-run_1__checkout_v2_launch_-vs-run_2__checkout_v2_launch_.json"
    );
    let md = dir.path().join("legal.md");
    type_path(&mut app, &md);
    press(&mut app, KeyCode::Enter);
    let written = std::fs::read_to_string(&md).unwrap();
    assert!(written.starts_with("# Comparison: run 1"), "{written}");
    assert!(
        written.contains("| legal_analyst (B only) | — | — | caution 0.66 | caution 0.70 | ≠ |"),
        "{written}"
    );
    assert!(
        written.contains(
            "- B: seq 18 at 1517 ms, `contribution_requested`: round 1 · legal_analyst asked"
        ),
        "{written}"
    );
    assert_eq!(
        app.notice.as_deref(),
        Some(format!("wrote {} bytes to {}", written.len(), md.display()).as_str())
    );
    assert!(
        matches!(app.overlay, Some(Overlay::Compare { .. })),
        "back to the comparison"
    );

    press(&mut app, KeyCode::Char('w'));
    let json_path = dir.path().join("legal.json");
    type_path(&mut app, &json_path);
    press(&mut app, KeyCode::Enter);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(doc, json, "the file holds what the copy held");

    press(&mut app, KeyCode::Char('w'));
    let nowhere = dir.path().join("no-such-folder").join("x.json");
    type_path(&mut app, &nowhere);
    press(&mut app, KeyCode::Enter);
    let notice = app.notice.clone().unwrap();
    assert!(
        notice.starts_with(&format!("cannot write {}: the folder", nowhere.display())),
        "{notice}"
    );

    press(&mut app, KeyCode::Char('w'));
    press(&mut app, KeyCode::Esc);
    assert!(
        matches!(app.overlay, Some(Overlay::Compare { .. })),
        "Esc cancels the prompt only"
    );
    press(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
}

#[tokio::test(start_paused = true)]
async fn y_copies_the_answer_or_the_selected_item_and_w_writes_the_result_or_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = comparing_app().await;
    app.update(Action::Close);

    app.update(Action::Focus(4));
    let copy = press(&mut app, KeyCode::Char('y'));
    assert!(copied(&copy).starts_with("Checkout v2, US, 2026-03-02: GO WITH CAUTION."));

    app.update(Action::Focus(2));
    let copy = press(&mut app, KeyCode::Char('y'));
    let selected: Value = serde_json::from_str(&copied(&copy)).unwrap();
    assert!(
        selected.is_object(),
        "the selected contribution's JSON: {selected}"
    );

    app.update(Action::Focus(4));
    press(&mut app, KeyCode::Char('w'));
    let Some(Overlay::Export(prompt)) = &app.overlay else {
        panic!("w asks for a path");
    };
    assert_eq!(prompt.path, "conclave-checkout_v2_launch-run2-result.json");
    let result_md = dir.path().join("result.md");
    type_path(&mut app, &result_md);
    press(&mut app, KeyCode::Enter);
    let written = std::fs::read_to_string(&result_md).unwrap();
    assert!(written.contains("- decision: go_with_caution"), "{written}");
    assert!(
        written.contains("## Answer\n\nCheckout v2, US"),
        "{written}"
    );

    // The log as filtered: only legal's events.
    app.update(Action::Focus(3));
    app.update(Action::Filter);
    for c in "legal".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('w'));
    let log = dir.path().join("log.json");
    type_path(&mut app, &log);
    press(&mut app, KeyCode::Enter);
    let events: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert!(!events.is_empty());
    assert!(
        events.iter().all(|e| e.to_string().contains("legal")),
        "{events:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn r_after_a_flag_changed_keeps_the_old_run_pinned_beside_the_new_one() {
    let hub = Hub::new(1 << 16);
    let mut bus = hub.subscribe();
    let mut world = common::world(hub);
    let mut app = App::new(AppOptions::default());
    let effects = app.launch(common::shipped("checkout_v2_launch.json"), None);
    common::carry(&mut world, &mut app, effects);
    while app.run().unwrap().is_live() {
        match bus.next().await {
            conclave::bus::Delivery::Event(event) => app.apply(event),
            other => panic!("{other:?}"),
        }
    }

    // The same flags: a restart replaces the run.
    let effects = app.update(Action::Restart);
    assert!(matches!(
        effects[..],
        [conclave::tui::effect::Effect::Restart { old: 1, .. }]
    ));

    // Legal turned on after the run: the old run stays, pinned.
    app.update(Action::Flags);
    app.update(Action::Toggle);
    app.update(Action::Close);
    let effects = app.update(Action::Restart);
    common::carry(&mut world, &mut app, effects);
    assert_eq!(app.runs.len(), 2);
    assert_eq!(app.runs.pinned(), Some(0));
    assert_eq!(app.runs.selected, 1);
    assert_eq!(
        app.notice.as_deref(),
        Some("run 1 kept and pinned: c compares it with the new run")
    );
    while app.run().unwrap().is_live() {
        match bus.next().await {
            conclave::bus::Delivery::Event(event) => app.apply(event),
            other => panic!("{other:?}"),
        }
    }
    let compared = app.update(Action::Compare);
    conclave::tui::world::settle(&mut app, compared);
    let Some(Overlay::Compare { comparison, .. }) = &app.overlay else {
        panic!("c compares: {:?}", app.notice);
    };
    let divergence = comparison.first_divergence.as_ref().unwrap();
    assert_eq!(
        divergence.b.as_ref().unwrap().description,
        "round 1 · legal_analyst asked"
    );
    for handle in world.take_handles() {
        handle.finish().await.unwrap();
    }
}

#[test]
fn conclave_compare_opens_the_two_recordings_side_by_side_and_copies_and_writes() {
    use base64::Engine;
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = legal_off_and_on(dir.path());
    let mut session = common::pty::Session::start(
        &["compare", a.to_str().unwrap(), b.to_str().unwrap()],
        dir.path(),
    );
    let legal_row = |text: &str| {
        text.lines()
            .find(|l| l.contains("legal_analyst") && l.contains("only in B"))
            .map(String::from)
    };
    session.wait_for("legal's row, on B's side only", |t| legal_row(t).is_some());
    let text = session.text();
    assert!(text.contains("round 1 · legal_analyst asked"), "{text}");
    let legal = legal_row(&text).unwrap();
    assert!(legal.contains("caution 0.66"), "{legal}");

    // y: the comparison's JSON goes to the clipboard through the terminal.
    session.press("y");
    session.wait_text("copied ");
    let raw = String::from_utf8_lossy(&session.raw.lock().unwrap()).into_owned();
    let start = raw.find("\u{1b}]52;c;").expect("an OSC 52 sequence") + 7;
    let end = start + raw[start..].find('\u{07}').unwrap();
    let copied = base64::engine::general_purpose::STANDARD
        .decode(&raw[start..end])
        .unwrap();
    let doc: Value = serde_json::from_slice(&copied).unwrap();
    assert_eq!(
        doc["first_divergence"]["b"]["kind"],
        "contribution_requested"
    );

    // w: a path prompt with a default; typed over, Enter writes there.
    session.press("w");
    session.wait_text("Write the compare");
    session.press(&"\u{7f}".repeat(120));
    let out = dir.path().join("cmp.md");
    session.press(out.to_str().unwrap());
    session.press("\r");
    session.wait_text("wrote ");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("(B only)"), "{written}");

    // Esc shows the two replays, A pinned.
    session.press("\u{1b}");
    session.wait_for("the runs bar", |t| t.contains("◆1"));
    session.press("q");
    assert!(session.wait_exit().success());
}

/// `checkout_v2_launch` with the legal analyst off, driven as a person
/// would: paused from the start, one round stepped, then (when
/// `flag_on`) the legal analyst switched on before round 2, and resumed.
async fn controlled_events(flag_on: bool, run: u32) -> Vec<Arc<Event>> {
    let (handle, mut sub) = common::launch(
        common::shipped("checkout_v2_launch.json"),
        LaunchOptions {
            flags: vec![("legal_analyst".into(), false)],
            start_paused: true,
            ..LaunchOptions::default()
        },
    );
    let controller = handle.controller.clone();
    controller.step().unwrap();
    // Round 1 runs on the virtual clock and the run halts before round 2.
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    if flag_on {
        controller.set_flag("legal_analyst", true).unwrap();
    }
    controller.resume().unwrap();
    handle.finish().await.unwrap();
    common::drain(&mut sub)
        .into_iter()
        .map(|mut e| {
            e.run = run;
            Arc::new(e)
        })
        .collect()
}

fn control_kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["kind"].as_str().unwrap()).collect()
}

/// Write `events` as a recording in `dir`.
fn recorded(dir: &Path, name: &str, events: &[Arc<Event>]) -> PathBuf {
    let text: String = events
        .iter()
        .map(|e| serde_json::to_string(e.as_ref()).unwrap() + "\n")
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test(start_paused = true)]
async fn pauses_steps_and_a_flag_are_not_divergences_the_flags_first_effect_is() {
    let controlled = controlled_events(true, 1).await;
    let plain = events("checkout_v2_launch.json", &[("legal_analyst", false)], 2).await;
    let comparison = compare::compare(
        Side::new("a", &controlled).unwrap(),
        Side::new("b", &plain).unwrap(),
        conclave::patterns::compare_rules,
    );
    let doc = serde_json::to_value(&comparison).unwrap();
    let divergence = &doc["first_divergence"];
    assert_eq!(divergence["a"]["kind"], "contribution_requested", "{doc}");
    assert_eq!(
        divergence["a"]["description"], "round 2 · legal_analyst asked",
        "the flag's first effect, not a pause or a step: {doc}"
    );
    for side in ["a", "b"] {
        let kind = divergence[side]["kind"].as_str().unwrap_or_default();
        assert!(
            !["paused", "resumed", "stepped", "flag_changed"].contains(&kind),
            "{doc}"
        );
    }
    let control = &doc["control"];
    assert_eq!(
        control_kinds(control["a"].as_array().unwrap()),
        ["paused", "stepped", "paused", "flag_changed", "resumed"],
        "{control}"
    );
    assert_eq!(control["b"], serde_json::json!([]));

    // Headless, from the recordings, and in the dashboard: the same.
    let dir = tempfile::tempdir().unwrap();
    let a = recorded(dir.path(), "a.jsonl", &controlled);
    let b = recorded(dir.path(), "b.jsonl", &plain);
    let output = compare_headless(&a, &b);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let headless = result(&output);
    assert_eq!(headless["first_divergence"], doc["first_divergence"]);
    assert_eq!(headless["control"], doc["control"]);

    let mut app = App::new(AppOptions::default());
    app.add_from_events(&controlled, None).unwrap();
    app.add_from_events(&plain, None).unwrap();
    app.update(Action::PrevRun);
    app.update(Action::Pin);
    app.update(Action::NextRun);
    let compared = app.update(Action::Compare);
    conclave::tui::world::settle(&mut app, compared);
    let drawn = screen(&app, 120, 60);
    let divergence_at = drawn.find("First divergence").expect("the divergence");
    let control_at = drawn.find("Control (pauses").expect("the control, apart");
    assert!(divergence_at < control_at, "{drawn}");
    let first = &drawn[divergence_at..control_at];
    assert!(first.contains("legal_analyst asked"), "{drawn}");
    assert!(!first.contains("stepped"), "{drawn}");
    assert!(drawn[control_at..].contains("stepped"), "{drawn}");
}

#[tokio::test(start_paused = true)]
async fn runs_that_differ_only_by_pause_and_step_do_not_diverge() {
    let controlled = controlled_events(false, 1).await;
    let plain = events("checkout_v2_launch.json", &[("legal_analyst", false)], 2).await;
    let comparison = compare::compare(
        Side::new("a", &controlled).unwrap(),
        Side::new("b", &plain).unwrap(),
        conclave::patterns::compare_rules,
    );
    let doc = serde_json::to_value(&comparison).unwrap();
    assert_eq!(doc["first_divergence"], Value::Null, "{doc}");
    assert_eq!(doc["identical"], true, "{doc}");
    assert_eq!(
        control_kinds(doc["control"]["a"].as_array().unwrap()),
        ["paused", "stepped", "paused", "resumed"]
    );
    assert!(
        doc["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("differ only in how they were paused")),
        "{doc}"
    );
}
