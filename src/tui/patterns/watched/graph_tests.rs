//! A watched run's graph: the LangGraph fixture's spans (captured from
//! the real packages, `tests/fixtures/watch/`) read as their graph, nodes
//! and visits; a node in which no model was called is a tool node; the
//! graph drawn at the top of the watched pane in the whole dashboard at
//! 160×48 and 80×24, the list below it still scrolling to its last row;
//! the graph made again only after a span that may name a node, and
//! never for a run whose spans name none.

use super::graph::graph_of;
use super::pane_tests::{pane, span, told_of};
use super::state::WatchedRun;
use crate::bus::Event;
use crate::tui::app::App;
use crate::tui::app::tests::{app_with, press, screen_of};
use crate::tui::patterns::folding::Fold;
use crate::watch::forest::Forest;
use crate::watch::span::{Span, spans_of};
use crossterm::event::KeyCode;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use std::path::Path;
use std::sync::Arc;

/// Every span of a captured set, in arrival order.
fn captured(set: &str) -> Vec<Span> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/watch")
        .join(set);
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let mut spans = Vec::new();
    for request in index["requests"].as_array().unwrap() {
        assert!(
            request["content_encoding"].is_null(),
            "{set} is not gzipped"
        );
        let body = std::fs::read(dir.join(request["file"].as_str().unwrap())).unwrap();
        let decoded: ExportTraceServiceRequest = prost::Message::decode(&body[..]).unwrap();
        spans.extend(spans_of(&decoded));
    }
    spans
}

fn forest_of(spans: &[Span]) -> Forest {
    let mut forest = Forest::new(1000);
    for span in spans {
        forest.insert(span.clone());
    }
    forest
}

/// The graph's nodes, each with its kind.
fn kinds(forest: &Forest) -> Vec<(String, String)> {
    let fold = graph_of(forest).expect("the spans name their nodes");
    let graph = fold.graph.as_ref().unwrap();
    graph
        .plan
        .nodes
        .iter()
        .map(|n| (n.id.clone(), n.kind.clone()))
        .collect()
}

/// LangGraph's spans of one node activation: the node's own span, named
/// as the node, and `inner` spans under it (name, OpenInference kind).
fn activation(id: u64, node: &str, ns: &str, ms: (u64, u64), inner: &[(&str, &str)]) -> Vec<Span> {
    let metadata = format!(
        r#"{{"langgraph_node": "{node}", "langgraph_step": 1, "langgraph_checkpoint_ns": "{ns}"}}"#
    );
    let mut spans: Vec<Span> = inner
        .iter()
        .enumerate()
        .map(|(i, (name, kind))| {
            let mut attrs = vec![
                ("openinference.span.kind", *kind),
                ("metadata", metadata.as_str()),
            ];
            if *kind == "LLM" {
                attrs.extend([
                    ("llm.token_count.prompt", "100"),
                    ("llm.token_count.completion", "10"),
                ]);
            }
            span(
                id + 1 + i as u64,
                Some(id),
                name,
                (ms.0 + 1, ms.1 - 1),
                &attrs,
            )
        })
        .collect();
    spans.push(span(
        id,
        Some(1),
        node,
        ms,
        &[
            ("openinference.span.kind", "CHAIN"),
            ("metadata", metadata.as_str()),
        ],
    ));
    spans
}

/// A ReAct graph's run (LangGraph's `create_react_agent`): `agent` calls
/// the model, `tools` runs a search and a handoff tool that OpenInference
/// marks AGENT by its name, `agent` answers.
fn react_spans() -> Vec<Span> {
    let mut spans = activation(10, "agent", "agent:a1", (0, 400), &[("ChatModel", "LLM")]);
    spans.extend(activation(
        20,
        "tools",
        "tools:t1",
        (400, 800),
        &[
            ("web_search", "TOOL"),
            ("transfer_to_writer_agent", "AGENT"),
        ],
    ));
    spans.extend(activation(
        30,
        "agent",
        "agent:a2",
        (800, 1200),
        &[("ChatModel", "LLM")],
    ));
    spans.push(span(1, None, "LangGraph", (0, 1200), &[]));
    spans
}

#[test]
fn a_langgraph_runs_nodes_are_its_graph_with_each_visit() {
    let forest = forest_of(&captured("langgraph_openinference"));
    let fold = graph_of(&forest).expect("LangGraph's spans name their nodes");
    let graph = fold.graph.as_ref().unwrap();
    let path: Vec<&str> = fold
        .path
        .iter()
        .map(|n| graph.plan.nodes[*n].id.as_str())
        .collect();
    assert_eq!(
        path,
        [
            "supervisor",
            "research_agent",
            "supervisor",
            "writer_agent",
            "supervisor"
        ]
    );
    assert_eq!(fold.steps, 5);
    assert_eq!(fold.nodes[0].visits, 3);
    // Each called a model: each an agent, its box's rule the kind alone.
    let agent = |n: &str| (n.to_string(), "agent".to_string());
    assert_eq!(
        kinds(&forest),
        [
            agent("supervisor"),
            agent("research_agent"),
            agent("writer_agent")
        ]
    );
    assert!(graph.plan.nodes.iter().all(|n| n.label.is_empty()));
}

#[test]
fn a_node_in_which_no_model_was_called_is_a_tool_node() {
    let forest = forest_of(&react_spans());
    let node = |n: &str, kind: &str| (n.to_string(), kind.to_string());
    // Its handoff tool's span reads AGENT; the node called no model.
    assert_eq!(
        kinds(&forest),
        [node("agent", "agent"), node("tools", "tool")]
    );
    let fold = graph_of(&forest).unwrap();
    assert_eq!(fold.steps, 3);
}

#[test]
fn a_run_whose_spans_name_no_graph_has_none_and_never_makes_one() {
    let spans = captured("autogen");
    assert!(graph_of(&forest_of(&spans)).is_none());
    let run = folded(&told_of(spans));
    assert_eq!(run.graph_made(), None, "no span may name a node");
    assert!(run.graph().is_none());
}

fn folded(events: &[Arc<Event>]) -> WatchedRun {
    let mut run = WatchedRun::default();
    for event in events {
        run.apply(&event.kind, event.t_ms);
    }
    run
}

#[test]
fn the_graph_kept_as_spans_arrive_is_the_graph_made_from_the_whole_forest() {
    for set in [
        "langgraph_openinference",
        "langgraph_supervisor_openinference",
        "openai_agents_openinference",
        "crewai_event_listener",
    ] {
        let run = folded(&told_of(captured(set)));
        let whole = graph_of(&run.forest);
        assert!(whole.is_some(), "{set} names its nodes");
        assert_eq!(run.graph(), whole.as_ref(), "{set}");
    }
}

/// `spans`' `span_arrived` events, as the watch tells them.
fn arrived(spans: Vec<Span>) -> Vec<Arc<Event>> {
    told_of(spans)
        .into_iter()
        .filter(|e| matches!(e.kind, crate::bus::EventKind::SpanArrived { .. }))
        .collect()
}

#[test]
fn the_graph_is_made_again_only_after_a_span_that_may_name_a_node() {
    let mut spans = react_spans();
    let root = spans.pop().unwrap();
    let mut run = folded(&told_of(spans));
    assert_eq!(run.graph_made(), Some(false));
    assert_eq!(run.graph().map(|g| g.steps), Some(3));
    assert_eq!(run.graph_made(), Some(true));
    // A span that names no node (the root) keeps the graph made.
    for event in arrived(vec![root]) {
        run.apply(&event.kind, event.t_ms);
    }
    assert_eq!(run.graph_made(), Some(true));
    // One that does is read into it when next wanted.
    for event in arrived(activation(40, "tools", "tools:t2", (1200, 1300), &[])) {
        run.apply(&event.kind, event.t_ms);
    }
    assert_eq!(run.graph_made(), Some(false));
    assert_eq!(run.graph().map(|g| g.steps), Some(4));
}

fn key(app: &mut App, code: KeyCode) {
    press(app, code);
}

/// The pattern pane's rows at `size` with the list scrolled by `keys`,
/// and whether its bottom border (the span tree's heading) says rows lie
/// below.
fn drawn(app: &mut App, size: (u16, u16), keys: &[KeyCode]) -> (Vec<String>, bool) {
    for code in keys {
        key(app, *code);
    }
    let screen = screen_of(app, size.0, size.1);
    let more = screen
        .lines()
        .find(|l| l.contains("└ Span tree ·"))
        .is_some_and(|l| l.contains("…more ("));
    (pane(&screen, "Watched agents:"), more)
}

/// The LangGraph fixture in the dashboard at `size`: the graph's nodes at
/// the top of the pattern pane on every page, the list below reaching
/// the span tree's last row by pages and by `End`.
fn langgraph_in_the_dashboard_at(size: (u16, u16)) {
    let mut app = app_with(&told_of(captured("langgraph_openinference")));
    let (top, _) = drawn(&mut app, size, &[KeyCode::Char('2'), KeyCode::Char('g')]);
    let text = top.join("\n");
    assert!(top[0].contains("Graph · 3 nodes · 5 steps · "), "{text}");
    for node in ["supervisor", "research_agent", "writer_agent"] {
        assert!(top.iter().any(|r| r.contains(node)), "{node}:\n{text}");
    }
    assert!(text.contains("done ×3"), "{text}");
    let graph_rows = top
        .iter()
        .position(|r| r.contains(" turn"))
        .unwrap_or_else(|| panic!("no list under the graph:\n{text}"));
    assert!(graph_rows <= top.len() / 2, "{text}");
    // By pages to the end: the graph stays, the list moves under it.
    let mut seen: Vec<String> = Vec::new();
    let mut pages = 0;
    loop {
        let (rows, more) = drawn(&mut app, size, &[]);
        assert_eq!(rows[..graph_rows], top[..graph_rows], "the graph moved");
        seen.extend(rows[graph_rows..].iter().cloned());
        if !more {
            break;
        }
        pages += 1;
        assert!(pages < 100, "never at the list's end:\n{}", rows.join("\n"));
        key(&mut app, KeyCode::PageDown);
    }
    let (end, more) = drawn(&mut app, size, &[]);
    let (by_end, _) = drawn(&mut app, size, &[KeyCode::Char('g'), KeyCode::End]);
    assert!(!more);
    assert_eq!(by_end, end, "End and the last page differ");
    let seen = seen.join("\n");
    for row in [
        "research_agent 2 turns · 1 tool call",
        "─→ research_agent",
        "web_search",
        "Span tree · 33 spans",
        "ChatModel",
    ] {
        assert!(seen.contains(row), "{row}:\n{seen}");
    }
    // The tree's last row (the root's last child's last) is the pane's last.
    assert!(
        end.last().unwrap().contains("└─◆ route"),
        "{}",
        end.join("\n")
    );
}

#[test]
fn a_langgraph_run_in_the_dashboard_at_160_by_48_has_its_graph_above_its_list() {
    langgraph_in_the_dashboard_at((160, 48));
    let mut app = app_with(&told_of(captured("langgraph_openinference")));
    key(&mut app, KeyCode::Char('2'));
    insta::assert_snapshot!("watched_langgraph_graph", screen_of(&mut app, 160, 48));
}

#[test]
fn a_langgraph_run_in_the_dashboard_at_80_by_24_has_its_graph_above_its_list() {
    langgraph_in_the_dashboard_at((80, 24));
}

#[test]
fn a_tool_node_is_drawn_as_one_at_both_sizes() {
    for size in [(160, 48), (80, 24)] {
        let mut app = app_with(&told_of(react_spans()));
        let (rows, _) = drawn(&mut app, size, &[KeyCode::Char('2'), KeyCode::Char('g')]);
        let text = rows.join("\n");
        assert!(rows[0].contains("Graph · 2 nodes · 3 steps"), "{text}");
        // Too few rows for its boxes: a row a node, `tools` a tool.
        assert!(rows[1].contains("✓ agent done ×2 · agent"), "{text}");
        assert!(
            rows[2].contains("✓ tools done ×1 · tool"),
            "{size:?}:\n{text}"
        );
        assert!(!text.contains("agent·tools"), "{text}");
        if size == (160, 48) {
            // Zoomed, the pane has room for the boxes: `tools` boxed as a
            // tool, its name whole.
            let (rows, _) = drawn(&mut app, size, &[KeyCode::Char('z')]);
            let text = rows.join("\n");
            assert!(text.contains("┌tool──"), "{text}");
            assert!(text.contains("┌agent──"), "{text}");
            assert!(text.contains("│✓ tools "), "{text}");
            assert!(text.contains("│done ×2 "), "{text}");
            // The list still follows its end under the boxes.
            let last = rows.iter().rposition(|r| !r.trim().is_empty()).unwrap();
            assert!(rows[last].contains("ChatModel"), "{text}");
        }
    }
}

/// A chain of `n` agents OpenInference names as graph nodes
/// (`graph.node.id`, each after the one before by `graph.node.parent_id`).
fn chain_of(n: u64) -> Forest {
    let spans: Vec<Span> = (0..n)
        .map(|a| {
            let name = format!("agent_{a}");
            let before = format!("agent_{}", a.saturating_sub(1));
            let mut attrs = vec![
                ("openinference.span.kind", "AGENT"),
                ("graph.node.id", name.as_str()),
            ];
            if a > 0 {
                attrs.push(("graph.node.parent_id", before.as_str()));
            }
            span(100 + a, Some(1), &name, (a * 100, a * 100 + 90), &attrs)
        })
        .collect();
    forest_of(&spans)
}

#[test]
fn nodes_outnumbering_the_rows_share_them_and_those_left_are_counted() {
    let text = |lines: &[ratatui::text::Line]| -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    };
    let ten = graph_of(&chain_of(10)).unwrap();
    // Ten rows: one a node, in layer order.
    let rows = text(&super::graph_pane::node_rows(&ten, 80, 10));
    assert_eq!(rows.len(), 10);
    assert_eq!(rows[0], "✓ agent_0 done ×1 · agent");
    assert_eq!(rows[9], "✓ agent_9 done ×1 · agent");
    // Four rows of 80 columns: several to a row, every node shown.
    let rows = text(&super::graph_pane::node_rows(&ten, 80, 4));
    assert!(rows.len() <= 4, "{rows:?}");
    let all = rows.join("\n");
    for a in 0..10 {
        assert!(all.contains(&format!("✓ agent_{a} done")), "{a}: {all}");
    }
    assert!(!all.contains("more"), "{all}");
    // Forty in three rows: as many as fit, the last row counting the rest.
    let forty = graph_of(&chain_of(40)).unwrap();
    let rows = text(&super::graph_pane::node_rows(&forty, 80, 3));
    assert_eq!(rows.len(), 3);
    let shown = rows
        .iter()
        .map(|r| r.matches("✓ agent_").count())
        .sum::<usize>();
    let more = format!("+{} more", 40 - shown);
    assert!(rows[2].ends_with(&more), "{rows:?}");
    for row in &rows {
        assert!(
            unicode_width::UnicodeWidthStr::width(row.as_str()) <= 80,
            "{row}"
        );
    }
}
