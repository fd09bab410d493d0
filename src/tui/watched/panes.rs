//! A watched run's panes, each numbered and framed as the dashboard's
//! are and each scrolled by the screen's state: [1] the agents, their
//! handoffs and tool calls; [2] the graph, drawn by the graph pattern's
//! own unit where the spans tell one; [3] the span tree; [4] the event
//! log, one line per span in arrival order (its span events below it),
//! following the newest line until scrolled. Only the rows shown are
//! made. Text from spans is cleaned (`fit` cleans) before it is drawn.

use super::chain::Look;
use super::state::{Logged, WatchedRun};
use super::ui::{WatchPane, WatchUi};
use crate::tui::patterns::graph::GraphFold;
use crate::tui::patterns::unit::{Seen, Unit};
use crate::tui::patterns::watched::tree_pane;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets::millis;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

/// Pane `pane`'s frame: its number, its title, its border lit when focused.
fn block(pane: WatchPane, title: &str, ui: &WatchUi) -> Block<'static> {
    Block::bordered()
        .border_style(theme::border(ui.focus == pane))
        .title(Line::from(vec![
            Span::styled(format!("[{}] ", pane.number()), theme::dim()),
            Span::styled(title.to_string(), theme::bold()),
        ]))
}

/// The body of a watched run: the agents on the left, the graph (where
/// there is one) above the span tree on the right.
pub(crate) fn draw_body(frame: &mut Frame, area: Rect, run: &WatchedRun, ui: &WatchUi) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(area);
    draw_agents(frame, left, run, ui);
    let right = match &run.reading.graph {
        Some(graph) => draw_graph(frame, right, graph, ui),
        None => right,
    };
    let tree = block(WatchPane::Tree, "span tree (◆ critical path)", ui);
    let inner = tree.inner(right);
    let rows = &run.reading.tree;
    let first = ui.first_row(WatchPane::Tree, rows.len(), usize::from(inner.height));
    tree_pane::draw(frame, right, (&run.forest, rows), first, tree);
}

fn draw_agents(frame: &mut Frame, area: Rect, run: &WatchedRun, ui: &WatchUi) {
    let block = block(WatchPane::Agents, "agents · handoffs · tools", ui);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = &run.reading.chain;
    let height = usize::from(inner.height);
    let first = ui.first_row(WatchPane::Agents, rows.len(), height);
    let width = usize::from(inner.width);
    let lines: Vec<Line> = rows[first.min(rows.len())..]
        .iter()
        .take(height)
        .map(|row| {
            let style = match row.look {
                Look::Agent => theme::bold(),
                Look::Quiet => theme::dim(),
                Look::Handoff => Style::default().fg(theme::ACCENT),
                Look::Ok => Style::default().fg(theme::GO),
                Look::Failed => theme::error(),
            };
            Line::styled(fit(&row.text, width), style)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The run's graph in the graph pattern's own pane (numbered [2] as the
/// dashboard's pattern pane, which it is), at the top of `area` (at most
/// half of it); the rest of `area` is returned.
fn draw_graph(frame: &mut Frame, area: Rect, graph: &GraphFold, ui: &WatchUi) -> Rect {
    let unit = crate::tui::patterns::graph::GraphUnit;
    let height = unit.wanted_height(graph).min(area.height / 2);
    let [top, rest] =
        Layout::vertical([Constraint::Length(height), Constraint::Min(0)]).areas(area);
    // The pane's page is its inner height, as the dashboard's.
    ui.first_row(
        WatchPane::Graph,
        0,
        usize::from(top.height.saturating_sub(2)),
    );
    let spent = std::collections::BTreeMap::new();
    let seen = Seen {
        now_ms: 0,
        live: false,
        outcome: None,
        focused: ui.focus == WatchPane::Graph,
        calling: &[],
        spent: &spent,
    };
    unit.draw(frame, top, graph, &ui.graph, seen);
    rest
}

/// The event log: the rows shown, from the entry holding the first one.
pub(crate) fn draw_log(frame: &mut Frame, area: Rect, run: &WatchedRun, ui: &WatchUi) {
    let block = block(WatchPane::Log, "event log (one line per span)", ui);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    let first = ui.first_row(WatchPane::Log, run.log_total, height);
    let width = usize::from(inner.width);
    // The entry whose rows hold row `first`, and how many of its rows
    // come before it.
    let entry = run.log_rows.partition_point(|start| *start <= first);
    let entry = entry.saturating_sub(1);
    let skip = first - run.log_rows.get(entry).copied().unwrap_or(0);
    let mut lines = Vec::with_capacity(height + skip);
    for logged in run.log.iter().skip(entry) {
        if lines.len() >= height + skip {
            break;
        }
        let (at_ms, span, kind, under_placeholder) = match logged {
            Logged::Span {
                at_ms,
                span,
                kind,
                under_placeholder,
            } => (*at_ms, *span, *kind, *under_placeholder),
            Logged::Steered { at_ms, said } => {
                let text = format!("+{:>6} ⚑ steered: {said}", millis(*at_ms));
                lines.push(Line::styled(
                    fit(&text, width),
                    Style::default().fg(theme::ACCENT),
                ));
                continue;
            }
        };
        let Some(span) = run.forest.get(span).and_then(|n| n.span.as_ref()) else {
            continue;
        };
        let (glyph, style) = match &span.error {
            Some(_) => ("✗", theme::error()),
            None => ("✓", Style::default()),
        };
        let kind = serde_json::to_value(kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let text = format!(
            "+{:>6} {glyph} {} [{kind}] {}{}",
            millis(at_ms),
            span.name,
            millis(span.ms()),
            if under_placeholder {
                " (parent not arrived)"
            } else {
                ""
            }
        );
        lines.push(Line::styled(fit(&text, width), style));
        for event in &span.events {
            let said = event
                .attrs
                .iter()
                .find(|(k, _)| k == "exception.message")
                .map(|(_, v)| format!(": {}", v.text()))
                .unwrap_or_default();
            let text = format!("         ↳ {}{said}", event.name);
            lines.push(Line::styled(fit(&text, width), theme::dim()));
        }
    }
    let shown: Vec<Line> = lines.into_iter().skip(skip).take(height).collect();
    frame.render_widget(Paragraph::new(shown), inner);
}
