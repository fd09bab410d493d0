//! A fork from a graph node with its recorded output changed: the review
//! loop's first review flipped from "revise" to "approve" goes straight to
//! publish, and the comparison of parent and fork shows where the two
//! paths part. The built binary, as a user runs it, on the sim.

use crate::common;

use common::cli::{conclave, result};
use common::real::stderr;
use serde_json::Value;
use std::path::Path;

const REVIEW_LOOP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/scenarios/graph_review_loop.json"
);

/// The review loop recorded into `dir`.
fn recorded(dir: &Path) -> String {
    let recording = dir.join("parent.jsonl").display().to_string();
    let ran = conclave(&["run", REVIEW_LOOP, "--headless", "--record", &recording]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    recording
}

fn path_of(document: &Value) -> Vec<String> {
    document["path"]
        .as_array()
        .expect("a graph result has its path")
        .iter()
        .map(|node| node.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_fork_with_the_first_review_approved_publishes_at_once_and_compare_shows_the_other_path() {
    let dir = tempfile::tempdir().unwrap();
    let parent = recorded(dir.path());
    let fork = dir.path().join("fork.jsonl").display().to_string();
    let forked = conclave(&[
        "fork",
        &parent,
        "--at",
        "step 7",
        "--output",
        "review:/verdict=approve",
        "--headless",
        "--record",
        &fork,
    ]);
    assert_eq!(forked.status.code(), Some(0), "{}", stderr(&forked));
    let document = result(&forked);
    assert_eq!(
        path_of(&document),
        [
            "plan", "research", "risks", "gather", "draft", "review", "publish", "done"
        ]
    );
    assert_eq!(document["state"]["verdict"], "approve");

    let compared = conclave(&["compare", &parent, &fork, "--headless"]);
    assert_eq!(compared.status.code(), Some(0), "{}", stderr(&compared));
    let comparison: Value = serde_json::from_slice(&compared.stdout).unwrap();
    // Each run's stop as its own result writes it.
    assert_eq!(comparison["a"]["stop_reason"], "completed");
    assert_eq!(comparison["b"]["stop_reason"], "completed");
    let differences = comparison["differences"].as_array().unwrap();
    let routes = differences
        .iter()
        .find(|d| d["what"] == "routes.review")
        .expect("the review's choices differ");
    assert_eq!(
        routes["a"],
        serde_json::json!(["draft", "draft", "publish"])
    );
    assert_eq!(routes["b"], serde_json::json!(["publish"]));
    let started = std::fs::read_to_string(&fork).unwrap();
    let first: Value = serde_json::from_str(started.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["forked_from"]["edited"],
        serde_json::json!(["review:/verdict=\"approve\""])
    );
}

/// `compare` words each graph run's stop as its result does: a finished
/// run `completed` (never `success`), a stalled one by its reason.
#[test]
fn compare_words_a_graph_runs_stop_as_its_result_does() {
    let dir = tempfile::tempdir().unwrap();
    let done = recorded(dir.path());
    let stalled = dir.path().join("stalled.jsonl").display().to_string();
    let file = REVIEW_LOOP.replace("graph_review_loop", "graph_stalled_join");
    let ran = conclave(&["run", &file, "--headless", "--record", &stalled]);
    assert_eq!(
        ran.status.code(),
        Some(3),
        "a stopped run: {}",
        stderr(&ran)
    );
    let compared = conclave(&["compare", &done, &stalled, "--headless"]);
    assert_eq!(compared.status.code(), Some(0), "{}", stderr(&compared));
    let comparison: Value = serde_json::from_slice(&compared.stdout).unwrap();
    let reason = comparison["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["what"] == "stop_reason")
        .expect("the stops differ");
    assert_eq!(
        (&reason["a"], &reason["b"]),
        (
            &serde_json::json!("completed"),
            &serde_json::json!("stalled:merge<price")
        )
    );
}

#[test]
fn an_edit_the_recording_cannot_serve_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let parent = recorded(dir.path());
    for (edit, said) in [
        ("publish:/ok=true", "no answer of \"publish\""),
        (
            "review:/nowhere/deep=1",
            "/nowhere/deep: the output has no object there",
        ),
        ("review/verdict=approve", "expected NODE:/POINTER=VALUE"),
    ] {
        let forked = conclave(&[
            "fork",
            &parent,
            "--at",
            "step 7",
            "--output",
            edit,
            "--headless",
        ]);
        assert_eq!(forked.status.code(), Some(2), "{edit}: {}", stderr(&forked));
        let words = stderr(&forked);
        assert!(words.contains(said), "{edit}: {words}");
        assert!(forked.stdout.is_empty(), "{edit}: nothing runs");
    }
}

/// A recording is a file anyone may edit: a fork of one whose scenario no
/// longer holds (an edge to a node that is not there) exits 2 naming the
/// place, as loading the scenario would, and runs nothing.
#[test]
fn a_fork_of_a_recording_whose_scenario_was_edited_to_break_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let parent = recorded(dir.path());
    let text = std::fs::read_to_string(&parent).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut first: Value = serde_json::from_str(&lines[0]).unwrap();
    first["scenario"]["graph"]["edges"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"from": "plan", "to": "nowhere"}));
    lines[0] = first.to_string();
    let edited = dir.path().join("edited.jsonl");
    std::fs::write(&edited, lines.join("\n") + "\n").unwrap();
    let forked = conclave(&[
        "fork",
        edited.to_str().unwrap(),
        "--at",
        "step 2",
        "--headless",
    ]);
    assert_eq!(forked.status.code(), Some(2), "{}", stderr(&forked));
    let words = stderr(&forked);
    assert!(
        words.contains("its scenario does not hold: graph.edges[12].to"),
        "{words}"
    );
    assert!(
        !words.contains("panicked") && !words.contains("crashed"),
        "{words}"
    );
    assert!(forked.stdout.is_empty());
}

/// The screen's words, borders left out, one space between them.
fn words(text: &str) -> String {
    text.replace(['│', '║'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// In the dashboard: a replay stepped past the first review, the review
/// selected, `x` offers its verdict to change; flipped to "approve", the
/// fork publishes at once and the comparison opens on the other path.
#[test]
fn a_fork_from_the_review_node_with_its_verdict_flipped_compares_the_other_path() {
    use crate::common::pty::Session;
    let home = tempfile::tempdir().unwrap();
    let parent = recorded(home.path());
    let mut session = Session::start(&["replay", &parent], home.path());
    session.wait_text("Replay at event 1");
    // The first gate, then six activations: the plan, the research, the
    // risks, the join, the draft and the first review.
    session.press("s");
    session.wait_text("step 0/12");
    for shown in 1..=6 {
        session.press("s");
        session.wait_text(&format!("step {shown}/12"));
    }
    // The graph pane, its entry, and four layers down to the review.
    session.press("2g");
    session.press("jjjj");
    session.wait_for("the review selected", |t| {
        words(t).contains("▶ review") || words(t).contains("✓ review agent critic")
    });
    session.press("x");
    session.wait_text("Fork at step 7");
    session.wait_for("the review's output offered", |t| {
        words(t).contains(r#"edit review:/verdict="revise""#)
    });
    // Down past the goal and the model to the output; "revise" (with
    // its closing quote) rubbed out and "approve" typed.
    session.press("\x1b[B");
    session.press("\x1b[B");
    for _ in 0.."revise\"".len() {
        session.press("\x7f");
    }
    session.press("approve\"");
    session.wait_for("the verdict flipped", |t| {
        words(t).contains(r#"edit review:/verdict="approve""#)
    });
    session.press("\r");
    session.wait_text("First divergence");
    session.wait_for("each run's choices at the review", |t| {
        let text = words(t);
        text.contains("→ draft, → draft, → publish") && text.contains("→ publish")
    });
    let forks = common::pty::recordings(home.path());
    assert_eq!(forks.len(), 1, "the fork is recorded like any run");
    let fork = std::fs::read_to_string(&forks[0]).unwrap();
    assert!(
        fork.contains(r#""edited":["review:/verdict=\"approve\""]"#),
        "{fork}"
    );
    session.press("\x1b");
    session.wait_for("the comparison closed", |t| !t.contains("First divergence"));
    session.press("q");
    assert!(session.wait_exit().success());
}

fn events(recording: &str) -> Vec<Value> {
    common::recorded(recording)
}

#[test]
fn a_fork_on_the_real_clock_serves_its_parallel_calls_in_its_parents_order_and_times() {
    // As the dashboard forks: on the real clock. Served at once, research's
    // map items and risks would end before their siblings start, and the
    // comparison would find a divergence where nothing changed.
    let dir = tempfile::tempdir().unwrap();
    let parent = recorded(dir.path());
    let fork = dir.path().join("fork.jsonl").display().to_string();
    let forked = conclave(&[
        "fork",
        &parent,
        "--at",
        "step 11",
        "--clock",
        "real",
        "--headless",
        "--record",
        &fork,
    ]);
    assert_eq!(forked.status.code(), Some(0), "{}", stderr(&forked));
    let compared = conclave(&["compare", &parent, &fork, "--headless"]);
    let document = result(&compared);
    assert_eq!(document["first_divergence"], Value::Null, "{document}");
    assert_eq!(document["identical"], true, "{document}");
    // The served part kept its parent's times: the fork went live when
    // its parent reached the gate, not a moment after it started.
    let gate = events(&parent)
        .into_iter()
        .find(|e| e["type"] == "node_started" && e["step"] == 11)
        .unwrap();
    let live = events(&fork)
        .into_iter()
        .find(|e| e["type"] == "went_live")
        .unwrap();
    assert!(
        live["t_ms"].as_u64() >= gate["t_ms"].as_u64(),
        "{live} {gate}"
    );
    let wrong = conclave(&["fork", &parent, "--at", "step 11", "--clock", "real"]);
    assert_eq!(wrong.status.code(), Some(2), "--clock needs --headless");
    assert!(stderr(&wrong).contains("--headless"), "{}", stderr(&wrong));
}
