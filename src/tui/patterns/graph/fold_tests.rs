//! The fold from the graph's events and the pane drawn from it: states,
//! visits, edges' evaluations with their values, a join's barrier, a
//! map's progress; a prefix of the events folds to the graph as of there
//! (what a replay's cursor shows); Enter's details; the keys' moves.

use super::GraphUnit;
use super::live::NodeState;
use super::selection::GraphView;
use super::state::GraphFold;
use super::{details, explain};
use crate::bus::EventKind;
use crate::patterns::events::{
    ActivationStatus, EdgeCheck, GraphEvent, GraphNodeKind, PatternEvent, PlannedEdge, PlannedNode,
};
use crate::tui::keymap::Action;
use crate::tui::patterns::folding::Fold;
use crate::tui::patterns::unit::{Seen, Unit};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn planned() -> GraphEvent {
    let node = |id: &str, kind, label: &str, max_visits| PlannedNode {
        id: id.into(),
        kind,
        label: label.into(),
        wait: None,
        max_visits,
    };
    let edge = |from: &str, to: &str, when: Option<&str>, default, back| PlannedEdge {
        from: from.into(),
        to: to.into(),
        when: when.map(Into::into),
        default,
        back,
    };
    GraphEvent::GraphPlanned {
        nodes: vec![
            node("plan", GraphNodeKind::Agent, "planner", None),
            node("research", GraphNodeKind::Map, "state.steps", None),
            node("draft", GraphNodeKind::Team, "drafting", Some(3)),
            node("review", GraphNodeKind::Agent, "critic", None),
            node("ask", GraphNodeKind::Human, "Publish anyway?", None),
            node("publish", GraphNodeKind::Tool, "publish_api", None),
            node("done", GraphNodeKind::End, "", None),
        ],
        edges: vec![
            edge("plan", "research", None, false, false),
            edge("research", "draft", None, false, false),
            edge("draft", "review", None, false, false),
            edge(
                "review",
                "publish",
                Some(r#"verdict=="approve""#),
                false,
                false,
            ),
            edge(
                "review",
                "draft",
                Some(r#"verdict=="revise" and visits(draft)<3"#),
                false,
                true,
            ),
            edge("review", "ask", None, true, false),
            edge("ask", "publish", Some(r#"answer=="publish""#), false, false),
            edge("ask", "done", None, true, false),
            edge("publish", "done", None, false, false),
        ],
        max_steps: 60,
    }
}

fn started(node: &str, visit: u32, step: u32) -> GraphEvent {
    GraphEvent::NodeStarted {
        node: node.into(),
        visit,
        step,
        input: r#"{"steps":["a","b"]}"#.into(),
        team: None,
        read: None,
    }
}

fn finished(node: &str, visit: u32, step: u32, output: &str) -> GraphEvent {
    GraphEvent::NodeFinished {
        node: node.into(),
        visit,
        step,
        status: ActivationStatus::Ok,
        output: output.into(),
        answer: None,
        error: None,
        tokens: 420,
        cost_usd: 0.0021,
    }
}

fn evaluated(from: &str, to: &str, checks: &[(&str, bool)], taken: bool) -> GraphEvent {
    GraphEvent::EdgeEvaluated {
        from: from.into(),
        to: to.into(),
        checks: checks
            .iter()
            .map(|(said, held)| EdgeCheck {
                said: (*said).into(),
                held: *held,
            })
            .collect(),
        taken,
        visits: None,
        max_visits: None,
    }
}

/// Plan, research (a map of four), draft, a review that sends the draft
/// back, the second draft and review under way.
fn run() -> Vec<GraphEvent> {
    let mut revise = evaluated(
        "review",
        "draft",
        &[(r#"verdict=="revise""#, true), ("visits(draft)=2<3", true)],
        true,
    );
    if let GraphEvent::EdgeEvaluated {
        visits, max_visits, ..
    } = &mut revise
    {
        *visits = Some(2);
        *max_visits = Some(3);
    }
    vec![
        planned(),
        started("plan", 1, 1),
        finished("plan", 1, 1, r#"{"steps":["a","b","c","d"]}"#),
        GraphEvent::StateWritten {
            node: "plan".into(),
            key: "steps".into(),
            merge: "replace".into(),
            value: r#"["a","b","c","d"]"#.into(),
        },
        evaluated("plan", "research", &[], true),
        started("research", 1, 2),
        GraphEvent::MapProgress {
            node: "research".into(),
            done: 3,
            failed: 1,
            running: 0,
            of: 4,
        },
        finished("research", 1, 2, "[]"),
        evaluated("research", "draft", &[], true),
        started("draft", 1, 3),
        finished("draft", 1, 3, r#""first draft""#),
        evaluated("draft", "review", &[], true),
        started("review", 1, 4),
        finished("review", 1, 4, r#"{"verdict":"revise"}"#),
        evaluated(
            "review",
            "publish",
            &[(r#"verdict=="revise"≠"approve""#, false)],
            false,
        ),
        revise,
        evaluated("review", "ask", &[], false),
        GraphEvent::NodeSkipped { node: "ask".into() },
        started("draft", 2, 5),
        finished("draft", 2, 5, r#""second draft""#),
        evaluated("draft", "review", &[], true),
        started("review", 2, 6),
    ]
}

fn fold(events: &[GraphEvent]) -> GraphFold {
    let mut fold = GraphFold::default();
    for (i, event) in events.iter().enumerate() {
        fold.apply(
            &EventKind::Pattern(PatternEvent::Graph(event.clone())),
            i as u64 * 100,
        );
    }
    fold
}

fn state(fold: &GraphFold, id: &str) -> NodeState {
    let n = fold.graph.as_ref().unwrap().plan.node(id).unwrap();
    fold.nodes[n].state
}

fn screen(fold: &GraphFold, view: &GraphView, size: (u16, u16)) -> String {
    let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    terminal
        .draw(|frame| {
            let seen = Seen {
                now_ms: 0,
                live: true,
                outcome: None,
                focused: true,
                calling: &[],
                spent: &Default::default(),
            };
            GraphUnit.draw(frame, frame.area(), fold, view, seen);
        })
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            let line: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect();
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_fold_follows_the_run_node_by_node() {
    let events = run();
    let fold = fold(&events);
    assert_eq!(state(&fold, "plan"), NodeState::Done);
    assert_eq!(state(&fold, "review"), NodeState::Running);
    assert_eq!(state(&fold, "ask"), NodeState::Skipped);
    assert_eq!(state(&fold, "publish"), NodeState::Waiting);
    let draft = fold.graph.as_ref().unwrap().plan.node("draft").unwrap();
    assert_eq!(fold.nodes[draft].visits, 2);
    assert_eq!(fold.nodes[draft].activations.len(), 2);
    assert_eq!(fold.steps, 6);
    assert_eq!(
        fold.last_started,
        fold.graph.as_ref().unwrap().plan.node("review")
    );
    // A prefix folds to the graph as of there: the first review running,
    // the draft done once, nothing evaluated out of the review.
    let early = self::fold(&events[..13]);
    assert_eq!(state(&early, "review"), NodeState::Running);
    assert_eq!(state(&early, "ask"), NodeState::Waiting);
    assert_eq!(early.nodes[draft].visits, 1);
    // Taken edges make their target ready before it starts.
    let ready = self::fold(&events[..5]);
    assert_eq!(state(&ready, "research"), NodeState::Ready);
}

#[test]
fn the_reviews_edges_are_explained_with_their_values() {
    let fold = fold(&run());
    let review = fold.graph.as_ref().unwrap().plan.node("review").unwrap();
    let lines: Vec<String> = explain::lines(&fold, review, 100)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert_eq!(
        lines[..4],
        [
            "▶ review  agent critic · running · visit 2",
            r#"  review→publish  verdict=="revise"≠"approve" ✗  not taken"#,
            r#"  review→draft  verdict=="revise" ✓  visits(draft)=2<3 ✓  taken, 2/3"#,
            "  review→ask  default  not taken",
        ]
        .map(String::from),
        "{lines:#?}"
    );
}

#[test]
fn a_join_says_what_it_waits_on_until_it_fires() {
    let mut events = run();
    events.push(GraphEvent::JoinWaiting {
        node: "publish".into(),
        rule: "all".into(),
        arrived: vec!["review".into()],
        waiting_on: vec!["publish_b".into()],
    });
    let waiting = fold(&events);
    let review = waiting.graph.as_ref().unwrap().plan.node("review").unwrap();
    let lines: Vec<String> = explain::lines(&waiting, review, 100)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert!(
        lines.contains(&"publish 1/2: waiting on publish_b".to_string()),
        "{lines:#?}"
    );
    events.push(GraphEvent::JoinFired {
        node: "publish".into(),
        arrived: vec!["review".into(), "publish_b".into()],
    });
    let fired = fold(&events);
    assert_eq!(state(&fired, "publish"), NodeState::Ready);
    let lines: Vec<String> = explain::lines(&fired, review, 100)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert!(
        !lines.iter().any(|l| l.contains("waiting on")),
        "{lines:#?}"
    );
}

#[test]
fn the_pane_draws_the_graph_over_the_selected_nodes_edges() {
    let fold = fold(&run());
    let text = screen(&fold, &GraphView::default(), (72, 40));
    insta::assert_snapshot!("pane_second_review", text);
    assert!(text.contains("step 6/60"), "{text}");
    assert!(text.contains("review (following)"), "{text}");
}

#[test]
fn model_text_is_cleaned_before_it_is_drawn() {
    let mut events = run();
    events.push(GraphEvent::HumanAsked {
        node: "ask".into(),
        step: 7,
        question: "Publish\u{1b}]52;c;aGk=\u{7} anyway?\u{1b}[2J".into(),
        options: vec!["publish".into()],
    });
    let fold = fold(&events);
    let text = screen(&fold, &GraphView::default(), (72, 40));
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(text.contains("ask asks: Publish anyway?"), "{text}");
}

#[test]
fn enter_opens_a_nodes_activations() {
    let fold = fold(&run());
    let draft = fold.graph.as_ref().unwrap().plan.node("draft").unwrap();
    let json = details::node(&fold, draft).unwrap();
    let activations = json["activations"].as_array().unwrap();
    assert_eq!(activations.len(), 2);
    assert_eq!(activations[1]["output"], "second draft");
    assert_eq!(activations[1]["tokens"], 420);
    assert_eq!(activations[0]["input"]["steps"][1], "b");
    assert_eq!(
        json["team"]["runs"], 0,
        "no run of its team was announced: Enter shows these details"
    );
    let plan = fold.graph.as_ref().unwrap().plan.node("plan").unwrap();
    let json = details::node(&fold, plan).unwrap();
    assert_eq!(json["activations"][0]["wrote"]["steps"][3], "d");
}

#[test]
fn keys_move_the_selection_along_the_graph() {
    let fold = fold(&run());
    let plan = &fold.graph.as_ref().unwrap().plan;
    let id = |view: &GraphView| plan.nodes[view.selected(&fold).unwrap()].id.clone();
    let mut view = GraphView::default();
    assert_eq!(id(&view), "review", "follows the node started last");
    view.navigate(Action::Down, &fold, 20);
    assert_eq!(id(&view), "ask", "down to the nearest successor");
    view.navigate(Action::Down, &fold, 20);
    assert_eq!(id(&view), "publish");
    view.navigate(Action::Up, &fold, 20);
    assert_eq!(id(&view), "ask", "up to the nearest predecessor");
    view.navigate(Action::Up, &fold, 20);
    assert_eq!(id(&view), "review");
    view.navigate(Action::Top, &fold, 20);
    assert_eq!(id(&view), "plan");
    view.navigate(Action::Bottom, &fold, 20);
    assert_eq!(id(&view), "done");
    view.navigate(Action::Follow, &fold, 20);
    assert_eq!(id(&view), "review", "G follows the run again");
    use super::geometry::Zoom;
    assert_eq!(view.zoom(&fold), Zoom::Boxes);
    view.navigate(Action::ZoomOut, &fold, 20);
    assert_eq!(view.zoom(&fold), Zoom::Compact);
    view.navigate(Action::Show, &fold, 20);
    assert_eq!(view.zoom(&fold), Zoom::Boxes);
}
