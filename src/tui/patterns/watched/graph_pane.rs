//! A watched run's graph at the top of its pane, where its spans tell one
//! (`graph.rs`), in at most half the pane's rows: the graph pattern's
//! boxes and arrows when the whole graph fits there and each node's name
//! fits its box, else a row per node in layer order (its state, name,
//! visits and kind), several to a row when the nodes outnumber the rows.
//! Its heading names the route the run took. Nothing in it is selected
//! and no key acts on it: the pane's keys scroll the list below it.

use super::state::WatchedRun;
use crate::sanitize::clean;
use crate::tui::patterns::graph::GraphFold;
use crate::tui::patterns::graph::geometry::{Geometry, Zoom};
use crate::tui::patterns::graph::plane;
use crate::tui::text::{fit, tail};
use crate::tui::theme;
use crate::words::plural;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

/// Columns inside a node's box (the graph pattern's boxes are 20 wide):
/// a name that does not fit beside its state's glyph is not boxed.
const BOX_INNER: usize = 18;
/// Columns between two nodes sharing a row.
const GAP: usize = 2;
/// The latest steps of the route the heading names at most.
const ROUTE_STEPS: usize = 40;

/// The rows the graph takes at the top of a pane `inner` rows tall inside
/// its border: its boxes and heading where they fit in half of them,
/// else its heading and a row per node, in at most half of them; none
/// when the run's spans tell no graph. The pane's list gets the rest (a
/// page of it is what remains).
pub(crate) fn height(run: &WatchedRun, inner: u16) -> u16 {
    let Some(fold) = run.graph() else {
        return 0;
    };
    let half = inner / 2;
    let boxes = boxes_height(fold);
    if boxes <= half {
        boxes
    } else {
        half.min(list_height(fold))
    }
}

/// The rows the graph would take with room for its boxes.
pub(crate) fn wanted(run: &WatchedRun) -> u16 {
    run.graph().map_or(0, boxes_height)
}

fn boxes_height(fold: &GraphFold) -> u16 {
    let Some(graph) = &fold.graph else {
        return 0;
    };
    let (_, rows) = Geometry::new(&graph.layout, Zoom::Boxes).size();
    u16::try_from(rows + 1).unwrap_or(u16::MAX)
}

fn list_height(fold: &GraphFold) -> u16 {
    let nodes = fold.graph.as_ref().map_or(0, |g| g.plan.nodes.len());
    u16::try_from(nodes + 1).unwrap_or(u16::MAX)
}

/// The graph in `area` (as tall as `height` said): the heading, then the
/// boxes where they fit whole, else the nodes' rows.
pub(crate) fn draw(frame: &mut Frame, area: Rect, run: &WatchedRun) {
    let Some(fold) = run.graph() else {
        return;
    };
    let Some(graph) = &fold.graph else {
        return;
    };
    if area.height == 0 || area.width == 0 {
        return;
    }
    let (plane_width, plane_height) = Geometry::new(&graph.layout, Zoom::Boxes).size();
    let boxes = plane_height < u32::from(area.height)
        && plane_width <= u32::from(area.width)
        && graph
            .plan
            .nodes
            .iter()
            .all(|n| clean(&n.id).width() + 2 <= BOX_INNER);
    let width = usize::from(area.width);
    frame.render_widget(
        Paragraph::new(heading(fold, width)),
        Rect { height: 1, ..area },
    );
    let body = Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    };
    if body.height == 0 {
        return;
    }
    if boxes {
        plane::draw(frame.buffer_mut(), body, fold, None, Zoom::Boxes);
    } else {
        let rows = node_rows(fold, width, usize::from(body.height));
        frame.render_widget(Paragraph::new(rows), body);
    }
}

/// `Graph · 3 nodes · 5 steps · supervisor → research_agent → …`: the
/// route's latest steps, as many as the width holds.
fn heading(fold: &GraphFold, width: usize) -> Line<'static> {
    let Some(graph) = &fold.graph else {
        return Line::default();
    };
    let words = format!(
        "Graph · {} · {}",
        plural(graph.plan.nodes.len() as u64, "node"),
        plural(u64::from(fold.steps), "step")
    );
    let words = fit(&words, width);
    let room = width.saturating_sub(words.width() + 3);
    let skipped = fold.path.len().saturating_sub(ROUTE_STEPS);
    let mut route: Vec<&str> = fold
        .path
        .iter()
        .skip(skipped)
        .map(|n| graph.plan.nodes[*n].id.as_str())
        .collect();
    if skipped > 0 {
        route.insert(0, "…");
    }
    let mut spans = vec![Span::styled(words, theme::bold())];
    if room > 0 && !route.is_empty() {
        spans.push(Span::styled(" · ", theme::dim()));
        spans.push(Span::styled(tail(&route.join(" → "), room), theme::dim()));
    }
    Line::from(spans)
}

/// The nodes in layer order, `✓ supervisor done ×3 · agent`, in `rows`
/// rows `width` wide: one a row when they fit, else several to a row;
/// when even so they do not, the last row counts those left.
pub(super) fn node_rows(fold: &GraphFold, width: usize, rows: usize) -> Vec<Line<'static>> {
    let Some(graph) = &fold.graph else {
        return Vec::new();
    };
    let mut order: Vec<usize> = (0..graph.plan.nodes.len()).collect();
    order.sort_by_key(|&n| graph.layout.place[n]);
    let nodes: Vec<(String, Style)> = order
        .iter()
        .map(|&n| {
            let node = &graph.plan.nodes[n];
            let live = &fold.nodes[n];
            let words = format!(
                "{} {} {} · {}",
                live.state.glyph(),
                node.id,
                plane::status(live, node.max_visits).trim_end(),
                node.kind
            );
            (fit(&words, width), live.state.style())
        })
        .collect();
    if nodes.len() <= rows {
        return nodes
            .into_iter()
            .map(|(text, style)| Line::styled(text, style))
            .collect();
    }
    // Several to a row, in order, each row as full as the width allows.
    let mut lines: Vec<Vec<(String, Style)>> = vec![Vec::new()];
    let mut used = 0;
    for (text, style) in nodes.iter().cloned() {
        let w = text.width();
        if used > 0 && used + GAP + w > width {
            lines.push(Vec::new());
            used = 0;
        }
        used += if used > 0 { GAP } else { 0 } + w;
        if let Some(line) = lines.last_mut() {
            line.push((text, style));
        }
    }
    if lines.len() > rows {
        lines.truncate(rows.max(1));
        let shown: usize = lines.iter().map(Vec::len).sum();
        let more = |n: usize| format!("+{n} more");
        let mut left = nodes.len() - shown;
        if let Some(last) = lines.last_mut() {
            // Room on the last row for the count of those not shown.
            while !last.is_empty() && row_width(last) + GAP + more(left).width() > width {
                last.pop();
                left += 1;
            }
            last.push((fit(&more(left), width), theme::dim()));
        }
    }
    lines
        .into_iter()
        .map(|row| {
            let mut spans = Vec::new();
            for (i, (text, style)) in row.into_iter().enumerate() {
                if i > 0 {
                    spans.push(Span::raw(" ".repeat(GAP)));
                }
                spans.push(Span::styled(text, style));
            }
            Line::from(spans)
        })
        .collect()
}

/// Columns a row of nodes takes, the gaps between them included.
fn row_width(row: &[(String, Style)]) -> usize {
    let texts: usize = row.iter().map(|(t, _)| t.width()).sum();
    texts + GAP * row.len().saturating_sub(1)
}
