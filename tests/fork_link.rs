//! A fork names its parent wherever it is shown: `replay --headless` says
//! which recording, run and gate it was forked from, and `compare
//! --headless` gives each side's `forked_from`; a fork served up to its
//! gate and changed nothing does what its parent did.

use crate::common;
use crate::sweep_from::recorded;

use common::cli::{conclave, result};
use common::real::stderr;
use serde_json::json;

#[test]
fn replay_and_compare_name_a_forks_parent() {
    let dir = tempfile::tempdir().unwrap();
    let parent = recorded(dir.path());
    let parent_file = parent.to_str().unwrap();
    let fork = dir.path().join("fork.jsonl");
    let fork_file = fork.to_str().unwrap();
    let out = conclave(&[
        "fork",
        parent_file,
        "--at",
        "round 2",
        "--record",
        fork_file,
        "--headless",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let replayed = conclave(&["replay", fork_file, "--headless"]);
    assert_eq!(replayed.status.code(), Some(0), "{}", stderr(&replayed));
    let said = stderr(&replayed);
    let first = said.lines().next().unwrap_or_default();
    assert_eq!(first, format!("forked from {parent_file} run 1 at round 2"));
    let plain = conclave(&["replay", parent_file, "--headless"]);
    assert!(
        !stderr(&plain).contains("forked from"),
        "{}",
        stderr(&plain)
    );

    let compared = conclave(&["compare", parent_file, fork_file, "--headless"]);
    assert_eq!(compared.status.code(), Some(0), "{}", stderr(&compared));
    let document = result(&compared);
    assert!(document["a"].get("forked_from").is_none(), "{document}");
    assert_eq!(
        document["b"]["forked_from"],
        json!({"file": parent_file, "run": 1, "gate": "round 2"})
    );
    // Served up to the gate and live from it with nothing changed: the
    // same run, though its result's usage says what was served.
    assert_eq!(
        document["first_divergence"],
        serde_json::Value::Null,
        "{document}"
    );
    assert_eq!(document["identical"], true, "{document}");
}

#[test]
fn the_dashboards_replay_header_names_a_forks_parent() {
    use conclave::tui::app::{App, AppOptions};
    use conclave::tui::keymap::Action;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    let dir = tempfile::tempdir().unwrap();
    let parent = recorded(dir.path());
    let fork = dir.path().join("fork.jsonl");
    let out = conclave(&[
        "fork",
        parent.to_str().unwrap(),
        "--at",
        "round 2",
        "--flag",
        "legal_analyst=on",
        "--record",
        fork.to_str().unwrap(),
        "--headless",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let header = |path: &std::path::Path| {
        let mut app = App::new(AppOptions::default());
        conclave::tui::world::open_replay(&mut app, path).unwrap();
        app.playback(Action::End);
        let mut terminal = Terminal::new(TestBackend::new(240, 40)).unwrap();
        terminal
            .draw(|f| conclave::tui::view::draw(f, &app))
            .unwrap();
        let buffer = terminal.backend().buffer().clone();
        (0..buffer.area.width)
            .map(|x| buffer[(x, 0)].symbol())
            .collect::<String>()
    };
    let shown = header(&fork);
    assert!(
        shown.contains("⏵ replay of fork.jsonl · forked from checkout.jsonl run 1 at round 2"),
        "{shown}"
    );
    assert!(!header(&parent).contains("forked from"));
}
