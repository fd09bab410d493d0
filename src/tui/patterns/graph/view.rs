//! The graph pane: a title with the graph's size, the step and the zoom;
//! the graph drawn in layers around the selected node; under it, the
//! selected node's out-edges as last evaluated, the waiting joins, the
//! maps under way and a question asked. A small pane draws the nodes as
//! a list instead (`small`).

use super::explain;
use super::plane;
use super::selection::GraphView;
use super::small;
use super::state::GraphFold;
use crate::tui::keymap::PaneId;
use crate::tui::patterns::seen::Seen;
use crate::tui::theme;
use crate::tui::widgets::block;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// Rows the words under the graph may take at most, and the least height
/// left to the graph before they are given any.
const WORDS: usize = 6;
const LEAST_GRAPH: u16 = 8;

pub(super) fn wanted_height(fold: &GraphFold) -> u16 {
    let Some(graph) = &fold.graph else {
        return 6;
    };
    let rows = graph.layout.layers.len() * 7 + WORDS + 2;
    u16::try_from(rows).unwrap_or(u16::MAX)
}

pub(super) fn draw(frame: &mut Frame, area: Rect, fold: &GraphFold, view: &GraphView, seen: Seen) {
    let zoom = view.zoom(fold);
    let selected = view.selected(fold);
    let title = title(fold, view, selected);
    let block = block(PaneId::Pattern, &title, seen.focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let Some(selected) = selected.filter(|_| fold.graph.is_some()) else {
        let waiting = Line::styled("Waiting for the run to plan its graph.", theme::dim());
        frame.render_widget(Paragraph::new(waiting), inner);
        return;
    };
    if inner.height < small::SMALL {
        small::draw(frame, inner, fold, selected, view.words_scroll);
        return;
    }
    let mut words = explain::lines(fold, selected, usize::from(inner.width));
    let room = usize::from(inner.height.saturating_sub(LEAST_GRAPH));
    words.truncate(WORDS.min(room));
    let under = u16::try_from(words.len()).unwrap_or(0);
    let graph = Rect {
        height: inner.height - under,
        ..inner
    };
    plane::draw(frame.buffer_mut(), graph, fold, Some(selected), zoom);
    if under > 0 {
        let below = Rect {
            y: graph.y + graph.height,
            height: under,
            ..inner
        };
        frame.render_widget(ratatui::widgets::Clear, below);
        frame.render_widget(Paragraph::new(words), below);
    }
}

fn title(fold: &GraphFold, view: &GraphView, selected: Option<usize>) -> String {
    let Some(graph) = &fold.graph else {
        return "Graph".to_string();
    };
    let mut title = format!(
        "Graph · {} nodes · step {}/{} · {}",
        graph.plan.nodes.len(),
        fold.steps,
        fold.max_steps,
        view.zoom(fold).word()
    );
    if let Some(n) = selected {
        let id = crate::tui::text::fit(&graph.plan.nodes[n].id, 24);
        title.push_str(&format!(" · {id}"));
        if view.node.is_none() && !fold.ended {
            title.push_str(" (following)");
        }
    }
    title
}
