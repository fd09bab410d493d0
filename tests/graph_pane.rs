//! The graph pane on real runs of the shipped review loop on the sim and
//! the virtual clock: the graph mid-run with the loop back to the draft
//! taken and explained with its values, the finished run's path, the keys
//! moving along the graph and Enter opening a node's activations.

use crate::common;
use common::screen::{of_app as screen, text};
use conclave::bus::{Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::{GraphEvent, PatternEvent};
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::Action;
use conclave::tui::panes;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;

async fn review_loop() -> Vec<Arc<Event>> {
    let scenario = common::shipped("graph_review_loop.json");
    let (_, events) = common::run(scenario, LaunchOptions::default()).await;
    events.into_iter().map(Arc::new).collect()
}

fn app_with(events: &[Arc<Event>]) -> App {
    let mut app = App::new(AppOptions::default());
    app.add_from_events(events, Some("scenarios/graph_review_loop.json".into()))
        .expect("events start with run_started");
    app
}

fn graph_pane(app: &App, width: u16, height: u16) -> String {
    let run = app.run().unwrap().view();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            let area = frame.area();
            panes::pattern::draw(frame, area, run.unit, run.state, run.ui, run.now_ms, true)
        })
        .unwrap();
    text(terminal.backend().buffer())
}

/// The events up to the `nth` start of node `id`, that start included.
fn until_start(events: &[Arc<Event>], id: &str, nth: usize) -> Vec<Arc<Event>> {
    let cut = events
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            matches!(&e.kind, EventKind::Pattern(PatternEvent::Graph(GraphEvent::NodeStarted { node, .. })) if node == id)
        })
        .nth(nth - 1)
        .expect("the run starts the node that often")
        .0;
    events[..=cut].to_vec()
}

#[tokio::test(start_paused = true)]
async fn the_review_loop_shows_its_return_to_the_draft_with_the_values() {
    let events = review_loop().await;
    let second_review = until_start(&events, "review", 2);
    let app = app_with(&second_review);
    let pane = graph_pane(&app, 90, 44);
    insta::assert_snapshot!("graph_second_review_90x44", pane);
    assert!(pane.contains("▶ review"), "{pane}");
    assert!(
        pane.contains("review→draft"),
        "the review's out-edges:\n{pane}"
    );
    assert!(pane.contains("taken"), "{pane}");

    let app = app_with(&events);
    insta::assert_snapshot!("graph_finished_120x40", screen(&app, 120, 40));
}

#[tokio::test(start_paused = true)]
async fn keys_move_along_the_graph_and_enter_opens_a_nodes_activations() {
    let events = review_loop().await;
    let mut app = app_with(&events);
    app.update(Action::Focus(2));
    app.update(Action::Top);
    let pane = graph_pane(&app, 90, 44);
    assert!(pane.contains("· plan"), "g selects the entry:\n{pane}");
    for _ in 0..3 {
        app.update(Action::Down);
    }
    let pane = graph_pane(&app, 90, 44);
    assert!(
        pane.contains("· draft"),
        "three layers down, past the join:\n{pane}"
    );
    app.update(Action::Details);
    let shown = screen(&app, 120, 40);
    assert!(shown.contains("\"activations\""), "{shown}");
    assert!(
        shown.contains("\"visits\": 3"),
        "the draft visited three times:\n{shown}"
    );
}

/// The real binary in a pseudo-terminal: the graph pane live, one step
/// (one activation), node states changing, the review's edges explained.
#[test]
fn the_live_graph_pane_steps_one_activation_and_explains_the_review() {
    use crate::common::pty::Session;
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &["run", "scenarios/graph_review_loop.json", "--paused"],
        home.path(),
    );
    session.wait_text("Graph · 9 nodes · step 0/60");
    session.press("s");
    // The plan ran; the research is ready, held at its step's gate.
    session.wait_for("the plan's activation, and no other", |t| {
        t.contains("step 1/60") && t.contains("✓ plan") && t.contains("◎ research")
    });
    session.press(" ");
    session.wait_text("GRAPH COMPLETED");
    // The pattern pane, the entry, then four layers down to the review
    // (past the research and the join).
    session.press("2g");
    session.press("jjjj");
    session.wait_for("the review's edges with their values", |t| {
        t.contains("review→draft") && t.contains("review→publish") && t.contains(r#"=="approve" ✓"#)
    });
    session.press("q");
    assert!(session.wait_exit().success());
}

/// At 80×24 the pane has eight rows: the nodes are a list with their
/// states, every node in reach, and the selected node's edges beside it,
/// scrolled with PgDn.
#[tokio::test(start_paused = true)]
async fn a_small_screen_lists_the_nodes_and_scrolls_the_edges() {
    let events = review_loop().await;
    let second_review = until_start(&events, "review", 2);
    let mut app = app_with(&second_review);
    let shown = screen(&app, 80, 24);
    insta::assert_snapshot!("graph_second_review_80x24", shown);
    for node in [
        "research", "gather", "draft", "review", "ask", "publish", "done",
    ] {
        assert!(
            shown.contains(&format!(" {node} ")),
            "{node} is listed:\n{shown}"
        );
    }
    assert!(
        shown.contains("▶ review running ×2"),
        "the running review:\n{shown}"
    );
    assert!(
        shown.contains("review→draft  verdict="),
        "its out-edges beside the list:\n{shown}"
    );
    assert!(!shown.contains("┌agent"), "no boxes:\n{shown}");
    // The page keys scroll the words, not the selection, in a small pane.
    app.update(Action::Focus(2));
    app.update(Action::PageDown);
    let paged = screen(&app, 80, 24);
    assert!(paged.contains("· review (following)"), "{paged}");
    app.update(Action::Up);
    let up = screen(&app, 80, 24);
    assert!(up.contains("· draft─") || up.contains("· draft "), "{up}");
}
