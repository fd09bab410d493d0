//! The graph pane on a small screen: with too few rows for the boxes (an
//! 80×24 terminal leaves the pane eight), the nodes are a list in layer
//! order, each with its state, visits and kind, the selected one marked
//! and kept in view; beside it (under it when narrow) the selected node's
//! edges explained, from the row `PgUp`/`PgDn` scrolled them to.

use super::explain;
use super::plane::status;
use super::state::GraphFold;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// Rows inside the pane below which it draws the list, not the boxes.
pub(crate) const SMALL: u16 = 12;

/// Whether a pane of `page` rows, its border included, is small.
pub(crate) fn is_small(page: usize) -> bool {
    page < usize::from(SMALL) + 2
}

/// The list and the words in `inner`; `scroll` rows of the words skipped
/// (kept within them).
pub(super) fn draw(
    frame: &mut Frame,
    inner: Rect,
    fold: &GraphFold,
    selected: usize,
    scroll: usize,
) {
    let (list, words) = if inner.width >= 60 {
        let [list, _, words] = Layout::horizontal([
            Constraint::Length((inner.width * 2 / 5).min(36)),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(inner);
        (list, words)
    } else {
        let [list, words] =
            Layout::vertical([Constraint::Percentage(50), Constraint::Min(0)]).areas(inner);
        (list, words)
    };
    frame.render_widget(Paragraph::new(node_rows(fold, selected, list)), list);
    let lines = explain::lines(fold, selected, usize::from(words.width));
    let (total, height) = (lines.len(), usize::from(words.height));
    let from = scroll.min(total.saturating_sub(height));
    let mut shown: Vec<Line<'static>> = lines.into_iter().skip(from).take(height).collect();
    // Rows below the last shown: its own row says how many, and the key.
    let below = total.saturating_sub(from + height);
    if below > 0
        && let Some(row) = shown.last_mut()
    {
        let said = format!("… {} more: PgDn", below + 1);
        *row = Line::styled(fit(&said, usize::from(words.width)), theme::dim());
    }
    frame.render_widget(Paragraph::new(shown), words);
}

/// A row per node in layer order, as many as fit around the selected one.
fn node_rows(fold: &GraphFold, selected: usize, area: Rect) -> Vec<Line<'static>> {
    let Some(graph) = &fold.graph else {
        return Vec::new();
    };
    let mut order: Vec<usize> = (0..graph.plan.nodes.len()).collect();
    order.sort_by_key(|&n| graph.layout.place[n]);
    let height = usize::from(area.height);
    let at = order.iter().position(|&n| n == selected).unwrap_or(0);
    let first = at
        .saturating_sub(height / 2)
        .min(order.len().saturating_sub(height));
    let width = usize::from(area.width);
    order
        .iter()
        .skip(first)
        .take(height)
        .map(|&n| {
            let node = &graph.plan.nodes[n];
            let live = &fold.nodes[n];
            let text = fit(
                &format!(
                    "{} {} {} · {}",
                    live.state.glyph(),
                    node.id,
                    status(live, node.max_visits).trim_end(),
                    node.kind
                ),
                width,
            );
            let mut style = live.state.style();
            if n == selected {
                style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            Line::styled(format!("{text:<width$}"), style)
        })
        .collect()
}
