//! A watched run's part of the dashboard (`conclave watch`, and replay
//! and compare of its recordings): the chain of agents, handoffs and
//! tool calls the watch told of the run's spans, drawn as a swarm's
//! chain is, beside the span tree only a watched run has. The keys move
//! through the span tree; `Enter` shows the selected span whole.

pub(crate) mod state;

use super::chain::SwarmUnit;
use super::chain::swarm;
use super::unit::{Seen, Unit};
use crate::bus::RunStarted;
use crate::sanitize::clean;
use crate::tui::keymap::Action;
use crate::tui::selection::{Find, ListView, Shown};
use crate::tui::state::outcome::Outcome;
use crate::tui::theme;
use crate::tui::watched::tree::TreeRow;
use crate::tui::watched::tree_pane;
use crate::watch::span::span_hex;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders};
use serde_json::{Value, json};
use state::WatchedRun;

/// A run of another framework, read from its spans.
pub(crate) struct WatchedUnit;

/// The span tree's rows, and the list the keys move through.
fn shown(run: &WatchedRun) -> (&[TreeRow], Shown) {
    let rows = run.rows();
    let shown = Shown::all(rows.len(), None);
    (rows, shown)
}

impl Unit for WatchedUnit {
    type Fold = WatchedRun;
    type Selection = ListView;

    fn seat(&self, _started: &RunStarted) -> WatchedRun {
        WatchedRun::default()
    }

    fn gate_word(&self) -> &'static str {
        "turn"
    }

    fn navigate(&self, selection: &mut ListView, action: Action, run: &WatchedRun, page: usize) {
        let (_, shown) = shown(run);
        selection.navigate(action, &shown, page, &[]);
    }

    fn find(
        &self,
        selection: &mut ListView,
        query: &str,
        how: Find,
        run: &WatchedRun,
        page: usize,
    ) -> bool {
        let (rows, shown) = shown(run);
        selection.find(query, how, &shown, page, |i| {
            rows.get(i)
                .and_then(|row| run.forest.get(row.id)?.span.as_ref())
                .map(|span| span.name.clone())
                .unwrap_or_default()
        })
    }

    fn query(&self, selection: &ListView) -> Option<String> {
        selection.search.clone()
    }

    fn wanted_height(&self, run: &WatchedRun) -> u16 {
        let tree = u16::try_from(run.forest.len()).unwrap_or(u16::MAX);
        SwarmUnit
            .wanted_height(&run.chain)
            .max(tree.saturating_add(2))
    }

    fn draw(&self, frame: &mut Frame, area: Rect, run: &WatchedRun, list: &ListView, seen: Seen) {
        let direction = if area.width >= 100 {
            Direction::Horizontal
        } else {
            Direction::Vertical
        };
        let [chain, tree] = Layout::default()
            .direction(direction)
            .constraints([Constraint::Percentage(55), Constraint::Percentage(45)])
            .areas(area);
        let agents = run.agents();
        let named = if agents.is_empty() {
            "none yet".to_string()
        } else {
            clean(&agents.join(", ")).into_owned()
        };
        let title = format!(
            "Watched agents: {named} · {} · {}",
            crate::words::plural(run.chain.counted, "handoff"),
            crate::words::plural(run.spend.model_calls, "model call")
        );
        swarm::draw_titled(frame, chain, &run.chain, &ListView::default(), seen, &title);
        let (rows, shown) = shown(run);
        let mut title = format!(
            " Span tree · {} · ↑↓ Enter ",
            crate::words::plural(run.forest.len() as u64, "span")
        );
        if run.failed > 0 {
            title.push_str(&format!("· {} failed ", run.failed));
        }
        let block = Block::default().borders(Borders::ALL).title(title);
        let inner = block.inner(tree);
        let height = usize::from(inner.height);
        let first = list.first(&shown, height);
        tree_pane::draw(frame, tree, (&run.forest, rows), first, block);
        if seen.focused
            && let Some(row) = list.row(&shown)
            && row >= first
            && row < first + height
        {
            let y = inner.y + u16::try_from(row - first).unwrap_or(0);
            let line = Rect::new(inner.x, y, inner.width, 1);
            frame
                .buffer_mut()
                .set_style(line, theme::dim().add_modifier(Modifier::REVERSED));
        }
    }

    /// The selected span whole: its ids, times, attributes and events.
    fn details(&self, run: &WatchedRun, selection: &ListView) -> Option<Value> {
        let (rows, shown) = shown(run);
        let row = rows.get(selection.item(&shown)?)?;
        let node = run.forest.get(row.id)?;
        let Some(span) = &node.span else {
            return Some(json!({
                "span_id": span_hex(row.id),
                "not_arrived": "its children named it; it has not ended yet",
            }));
        };
        let mut value = serde_json::to_value(span).ok()?;
        value["ms"] = json!(span.ms());
        Some(value)
    }

    /// The run's model calls, tokens and cost, and where the cost came
    /// from.
    fn headline(&self, run: &WatchedRun, _outcome: &Outcome) -> Line<'static> {
        let spend = &run.spend;
        let mut words = format!(
            "WATCHED · {} · {}/{} tok",
            crate::words::plural(spend.model_calls, "model call"),
            spend.input,
            spend.output
        );
        match (spend.cost_usd, spend.cost_from()) {
            (Some(cost), Some(from)) => {
                words.push_str(&format!(" · ${cost:.4} (from {from})"));
            }
            _ => words.push_str(" · cost unknown"),
        }
        Line::styled(words, theme::headline(theme::GO))
    }

    /// The chain and the transfers, then the spans and their failures.
    fn tally(&self, run: &WatchedRun, outcome: &Outcome) -> Vec<Line<'static>> {
        let mut lines = SwarmUnit.tally(&run.chain, outcome);
        if run.spend.unpriced > 0 {
            lines.push(Line::raw(format!(
                "unpriced    {}",
                crate::words::plural(run.spend.unpriced, "model call")
            )));
        }
        let mut spans = format!("spans       {}", run.forest.len());
        if run.failed > 0 {
            spans.push_str(&format!(", {} failed", run.failed));
        }
        if run.forest.dropped > 0 {
            spans.push_str(&format!(", {} not kept", run.forest.dropped));
        }
        lines.push(Line::raw(clean(&spans).into_owned()));
        lines
    }

    fn doing(
        &self,
        run: &WatchedRun,
        _calling: &[crate::tui::state::calls::CallInFlight],
    ) -> String {
        format!(
            "Watching: {} so far.",
            crate::words::plural(run.forest.len() as u64, "span")
        )
    }

    fn later(&self) -> &'static str {
        "The run's summary appears here when its spans settle."
    }
}

#[cfg(test)]
mod tests;
