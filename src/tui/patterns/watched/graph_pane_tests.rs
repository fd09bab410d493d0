//! A watched run's graph in the whole dashboard at 160×48 and 80×24:
//! drawn at the top of the watched pane, the list below it still
//! scrolling to its last row (the graph's reading is `graph_tests`').

use super::graph::graph_of;
use super::graph_tests::{captured, forest_of, react_spans};
use super::pane_tests::{pane, span, told_of};
use crate::span::Span;
use crate::tui::app::App;
use crate::tui::app::tests::{app_with, press, screen_of};
use crate::watch::forest::Forest;
use crossterm::event::KeyCode;

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
