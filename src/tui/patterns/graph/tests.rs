//! The graph pane's layout and drawing on four graphs: the issue's review
//! loop, a join of three, a cycle and a wide graph of 200 nodes scrolled
//! to its middle, snapshotted as drawn into ratatui's TestBackend.

use super::geometry::{Geometry, Zoom};
use super::layout::Slot;
use super::live::{Barrier, EdgeEval, MapProgress, NodeState};
use super::plan::{NamedEdge, Plan, PlanNode};
use super::plane;
use super::state::GraphFold;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;

pub(super) fn node(id: &str, kind: &str, label: &str) -> PlanNode {
    PlanNode {
        id: id.into(),
        kind: kind.into(),
        label: label.into(),
        wait: None,
        max_visits: None,
    }
}

pub(super) fn edge<'a>(from: &'a str, to: &'a str) -> NamedEdge<'a> {
    NamedEdge {
        from,
        to,
        when: None,
        default: false,
        back: false,
    }
}

/// The issue's scenario: plan, a map of research, a draft–review loop,
/// a person asked, publish, done.
pub(super) fn review_loop() -> Plan {
    let mut draft = node("draft", "team", "drafting");
    draft.max_visits = Some(3);
    let nodes = vec![
        node("plan", "agent", "planner"),
        node("research", "map", "state.steps"),
        draft,
        node("review", "agent", "critic"),
        node("ask", "human", "Publish anyway?"),
        node("publish", "tool", "publish_api"),
        node("done", "end", ""),
    ];
    let when = |from, to, when: &str| NamedEdge {
        when: Some(when.into()),
        ..edge(from, to)
    };
    let edges = vec![
        edge("plan", "research"),
        edge("research", "draft"),
        edge("draft", "review"),
        when("review", "publish", r#"verdict=="approve""#),
        NamedEdge {
            back: true,
            ..when(
                "review",
                "draft",
                r#"verdict=="revise" and visits(draft)<3"#,
            )
        },
        NamedEdge {
            default: true,
            ..edge("review", "ask")
        },
        when("ask", "publish", r#"answer=="publish""#),
        NamedEdge {
            default: true,
            ..edge("ask", "done")
        },
        edge("publish", "done"),
    ];
    Plan::new(nodes, edges)
}

fn join_of_three() -> Plan {
    let mut merge = node("merge", "join", "all");
    merge.wait = Some("all".into());
    let nodes = vec![
        node("start", "agent", "planner"),
        node("a", "agent", "a"),
        node("b", "agent", "b"),
        node("c", "agent", "c"),
        merge,
        node("end", "end", ""),
    ];
    let edges = vec![
        edge("start", "a"),
        edge("start", "b"),
        edge("start", "c"),
        edge("a", "merge"),
        edge("b", "merge"),
        edge("c", "merge"),
        edge("merge", "end"),
    ];
    Plan::new(nodes, edges)
}

fn cycle() -> Plan {
    let mut write = node("write", "agent", "writer");
    write.max_visits = Some(4);
    let nodes = vec![
        write,
        node("check", "agent", "checker"),
        node("fix", "agent", "fixer"),
        node("end", "end", ""),
    ];
    let edges = vec![
        edge("write", "check"),
        edge("check", "fix"),
        NamedEdge {
            back: true,
            ..edge("fix", "write")
        },
        edge("check", "end"),
    ];
    Plan::new(nodes, edges)
}

/// A start, `wide` nodes side by side and a join of them all: 200 nodes
/// with `wide` 197.
pub(super) fn wide(wide: usize) -> Plan {
    let ids: Vec<String> = (0..wide).map(|i| format!("w{i:03}")).collect();
    let mut nodes = vec![node("start", "agent", "planner")];
    nodes.extend(ids.iter().map(|id| node(id, "agent", "worker")));
    nodes.push(node("gather", "join", "all"));
    nodes.push(node("end", "end", ""));
    let mut edges: Vec<NamedEdge> = ids.iter().map(|id| edge("start", id)).collect();
    edges.extend(ids.iter().map(|id| edge(id, "gather")));
    edges.push(edge("gather", "end"));
    Plan::new(nodes, edges)
}

use crate::tui::buffer_text::text;

fn drawn(fold: &GraphFold, selected: Option<usize>, zoom: Zoom, size: (u16, u16)) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    terminal
        .draw(|frame| {
            let area = frame.area();
            plane::draw(frame.buffer_mut(), area, fold, selected, zoom);
        })
        .unwrap();
    terminal.backend().buffer().clone()
}

fn set(fold: &mut GraphFold, id: &str, state: NodeState, visits: u32) {
    let n = fold.graph.as_ref().unwrap().plan.node(id).unwrap();
    fold.nodes[n].state = state;
    fold.nodes[n].visits = visits;
}

fn taken(fold: &mut GraphFold, from: &str, to: &str, taken: bool) {
    let e = fold.graph.as_ref().unwrap().plan.edge(from, to).unwrap();
    fold.edges[e] = Some(EdgeEval {
        taken,
        ..EdgeEval::default()
    });
}

/// The review loop in its second review: the draft revised once.
pub(super) fn second_review() -> GraphFold {
    let mut fold = GraphFold::planned(review_loop(), 60);
    set(&mut fold, "plan", NodeState::Done, 1);
    set(&mut fold, "research", NodeState::Done, 1);
    fold.nodes[1].map = Some(MapProgress {
        done: 3,
        failed: 1,
        running: 0,
        of: 4,
    });
    set(&mut fold, "draft", NodeState::Done, 2);
    set(&mut fold, "review", NodeState::Running, 2);
    for (from, to) in [
        ("plan", "research"),
        ("research", "draft"),
        ("draft", "review"),
    ] {
        taken(&mut fold, from, to, true);
    }
    taken(&mut fold, "review", "publish", false);
    taken(&mut fold, "review", "draft", true);
    fold
}

#[test]
fn the_review_loop_is_laid_out_in_layers_with_its_loop_returning_up() {
    let graph = GraphFold::planned(review_loop(), 60).graph.unwrap();
    let layers: Vec<Vec<String>> = graph
        .layout
        .layers
        .iter()
        .map(|l| {
            l.iter()
                .map(|s| match s {
                    Slot::Node(n) => graph.plan.nodes[*n].id.clone(),
                    Slot::Pass(e) => format!("|{}", graph.plan.nodes[graph.plan.edges[*e].to].id),
                })
                .collect()
        })
        .collect();
    assert_eq!(
        layers,
        [
            vec!["plan"],
            vec!["research"],
            vec!["draft"],
            vec!["review"],
            vec!["ask", "|publish"],
            vec!["|done", "publish"],
            vec!["done"],
        ],
        "longest paths: publish under ask, the edges from review and ask pass through, \
         each layer ordered by where its predecessors stand"
    );
    assert_eq!(graph.layout.back.len(), 1, "review→draft returns up");
    let buffer = drawn(&second_review(), Some(3), Zoom::Boxes, (60, 36));
    insta::assert_snapshot!("review_loop_boxes", text(&buffer));
    let buffer = drawn(&second_review(), Some(3), Zoom::Compact, (60, 30));
    insta::assert_snapshot!("review_loop_compact", text(&buffer));
}

#[test]
fn each_state_has_its_own_colour_and_glyph() {
    let fold = second_review();
    let buffer = drawn(&fold, Some(3), Zoom::Compact, (60, 30));
    let screen = text(&buffer);
    let find = |needle: &str| {
        screen
            .lines()
            .enumerate()
            .find_map(|(y, l)| {
                l.find(needle)
                    .map(|x| (l[..x].chars().count() as u16, y as u16))
            })
            .unwrap_or_else(|| panic!("{needle} not drawn:\n{screen}"))
    };
    for (needle, colour) in [
        ("✓ plan", Color::Green),
        ("▶ review", Color::Yellow),
        ("○ ask", Color::DarkGray),
    ] {
        let at = find(needle);
        assert_eq!(buffer[at].fg, colour, "{needle}");
    }
    let mut glyphs: Vec<char> = [
        NodeState::Waiting,
        NodeState::Ready,
        NodeState::Running,
        NodeState::Done,
        NodeState::Skipped,
        NodeState::Failed,
    ]
    .iter()
    .map(|s| s.glyph())
    .collect();
    glyphs.dedup();
    assert_eq!(glyphs.len(), 6, "no two states share a glyph");
}

#[test]
fn a_join_of_three_gathers_its_inputs_under_one_arrowhead() {
    let mut fold = GraphFold::planned(join_of_three(), 20);
    set(&mut fold, "start", NodeState::Done, 1);
    set(&mut fold, "a", NodeState::Done, 1);
    set(&mut fold, "b", NodeState::Skipped, 0);
    set(&mut fold, "c", NodeState::Running, 1);
    let merge = fold.graph.as_ref().unwrap().plan.node("merge").unwrap();
    fold.nodes[merge].join = Some(Barrier {
        rule: "all".into(),
        arrived: vec!["a".into()],
        waiting_on: vec!["b".into(), "c".into()],
        fired: false,
    });
    let buffer = drawn(&fold, None, Zoom::Boxes, (70, 24));
    insta::assert_snapshot!("join_of_three", text(&buffer));
}

#[test]
fn a_cycle_returns_up_its_lane_to_the_node_it_closes_on() {
    let mut fold = GraphFold::planned(cycle(), 20);
    set(&mut fold, "write", NodeState::Ready, 2);
    set(&mut fold, "check", NodeState::Done, 1);
    set(&mut fold, "fix", NodeState::Failed, 1);
    let graph = fold.graph.clone().unwrap();
    assert!(
        graph.layout.top_gap,
        "a gap above the first layer for the return"
    );
    let buffer = drawn(&fold, None, Zoom::Boxes, (50, 24));
    insta::assert_snapshot!("cycle", text(&buffer));
}

#[test]
fn a_wide_graph_scrolls_to_the_selected_node_and_draws_only_what_shows() {
    let fold = GraphFold::planned(wide(197), 400);
    let graph = fold.graph.clone().unwrap();
    assert_eq!(graph.plan.nodes.len(), 200);
    let middle = graph.plan.node("w100").unwrap();
    let buffer = drawn(&fold, Some(middle), Zoom::Compact, (80, 12));
    let screen = text(&buffer);
    assert!(screen.contains("w100"), "{screen}");
    assert!(
        !screen.contains("w000"),
        "scrolled away from the left:\n{screen}"
    );
    insta::assert_snapshot!("wide_compact_scrolled", screen);
    let geometry = Geometry::new(&graph.layout, Zoom::Compact);
    assert_eq!(geometry.slots_in(1, 1400, 1480).len(), 6);
}
