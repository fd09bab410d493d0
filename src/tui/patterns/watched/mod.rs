//! A watched run's part of the dashboard (`conclave watch`, and replay
//! and compare of its recordings): the agents, the handoffs and the tool
//! calls the watch told of the run's spans, and the span tree only a
//! watched run has, as one list in its pane (`pane`) that the keys
//! scroll whole to its last row; `Enter` shows the selected row's item
//! whole (a span with its attributes and events). The tree's rows are
//! kept as the spans arrive (`span_rows`), drawn by `tree_pane`. Where
//! the spans tell a graph (`graph`), it stands above the list in at most
//! half the pane (`graph_pane`), and a page of the list is what is left.

pub(crate) mod graph;
mod graph_pane;
pub(crate) mod held;
mod pane;
pub(crate) mod span_rows;
pub(crate) mod state;
pub(crate) mod tree;
pub(crate) mod tree_pane;

use super::unit::{Seen, Unit};
use crate::bus::RunStarted;
use crate::sanitize::clean;
use crate::tui::keymap::{Action, PaneId};
use crate::tui::selection::Find;
use crate::tui::state::outcome::Outcome;
use crate::tui::theme;
use crate::tui::widgets::block;
use held::WatchedView;
use pane::Rows;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use serde_json::Value;
use state::WatchedRun;

/// A run of another framework, read from its spans.
pub(crate) struct WatchedUnit;

impl Unit for WatchedUnit {
    type Fold = WatchedRun;
    type Selection = WatchedView;

    fn seat(&self, _started: &RunStarted) -> WatchedRun {
        WatchedRun::default()
    }

    fn gate_word(&self) -> &'static str {
        "turn"
    }

    fn navigate(&self, view: &mut WatchedView, action: Action, run: &WatchedRun, page: usize) {
        let page = list_page(run, page);
        view.change(run, |list, rows| {
            list.navigate(action, &rows.shown(), page, &[]);
        });
    }

    fn find(
        &self,
        view: &mut WatchedView,
        query: &str,
        how: Find,
        run: &WatchedRun,
        page: usize,
    ) -> bool {
        let page = list_page(run, page);
        let ids = run.tree.ids();
        view.change(run, |list, rows| {
            list.find(query, how, &rows.shown(), page, |i| {
                rows.get(i)
                    .map(|row| pane::text(run, rows, &ids, row))
                    .unwrap_or_default()
            })
        })
    }

    fn query(&self, view: &WatchedView) -> Option<String> {
        view.search()
    }

    fn wanted_height(&self, run: &WatchedRun) -> u16 {
        let rows = Rows::of(run).len().saturating_add(2);
        u16::try_from(rows)
            .unwrap_or(u16::MAX)
            .saturating_add(graph_pane::wanted(run))
    }

    fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        run: &WatchedRun,
        view: &WatchedView,
        seen: Seen,
    ) {
        let rows = Rows::of(run);
        let list = &view.list(run, &rows);
        let named = if rows.agents.is_empty() {
            "none yet".to_string()
        } else {
            clean(&rows.agents.join(", ")).into_owned()
        };
        let mut title = format!(
            "Watched agents: {named} · {} · {}",
            crate::words::plural(run.chain.counted, "handoff"),
            crate::words::plural(run.spend.model_calls, "model call")
        );
        title.push_str(&list.title_words(["", ""]));
        let mut block = block(PaneId::Pattern, &title, seen.focused).title_bottom(Line::styled(
            format!(" {} ", pane::tree_heading(run)),
            theme::dim(),
        ));
        let within = block.inner(area);
        // The graph, where the spans tell one, above the list.
        let graph = graph_pane::height(run, within.height);
        let inner = Rect {
            y: within.y + graph,
            height: within.height - graph,
            ..within
        };
        let shown = rows.shown();
        let height = usize::from(inner.height);
        let first = list.first(&shown, height);
        // What lies below the rows shown, on the border's right.
        let below = rows.len().saturating_sub(first + height);
        if below > 0 {
            let more = format!(" …more ({below}): j/PgDn ");
            block = block.title_bottom(Line::styled(more, theme::dim()).right_aligned());
        }
        frame.render_widget(block, area);
        graph_pane::draw(
            frame,
            Rect {
                height: graph,
                ..within
            },
            run,
        );
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let lines = pane::lines(
            run,
            &rows,
            (list, &shown),
            (first, height, usize::from(inner.width)),
            seen,
        );
        frame.render_widget(Paragraph::new(lines), inner);
    }

    /// The selected row's item whole: an agent's tally, a handoff, a tool
    /// call, a span with its ids, times, attributes and events.
    fn details(&self, run: &WatchedRun, view: &WatchedView) -> Option<Value> {
        let rows = Rows::of(run);
        let row = rows.get(view.list(run, &rows).item(&rows.shown())?)?;
        pane::details(run, &rows, row)
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
        // A run with a failed span is not green: it reads as partial.
        let colour = if run.failed > 0 {
            theme::CAUTION
        } else {
            theme::GO
        };
        Line::styled(words, theme::headline(colour))
    }

    /// Spans that failed (a tool call, a model call): the run finished,
    /// but what depended on them is lacking, so its tab, header and the
    /// attention line say so rather than a plain success.
    fn shortfall(&self, run: &WatchedRun) -> Option<super::unit::Shortfall> {
        (run.failed > 0).then(|| super::unit::Shortfall {
            words: format!("{} failed", crate::words::plural(run.failed, "span")),
            lacking: true,
        })
    }

    /// The chain and the transfers, then the spans and their failures.
    fn tally(&self, run: &WatchedRun, outcome: &Outcome) -> Vec<Line<'static>> {
        let mut lines = super::chain::SwarmUnit.tally(&run.chain, outcome);
        if run.spend.unpriced > 0 {
            lines.push(Line::raw(format!(
                "unpriced    {}",
                crate::words::plural(run.spend.unpriced, "model call")
            )));
        }
        if let Some((_, answer)) = &run.answer {
            let answer = answer.split_whitespace().collect::<Vec<_>>().join(" ");
            lines.push(Line::raw(format!("answer      {}", clean(&answer))));
        }
        let mut spans = format!("spans       {}", run.forest.len());
        if run.failed > 0 {
            spans.push_str(&format!(", {} failed", run.failed));
        }
        if run.not_understood > 0 {
            spans.push_str(&format!(", {} not understood", run.not_understood));
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

/// A page of the pane's list: the pane's rows, less the graph's.
fn list_page(run: &WatchedRun, page: usize) -> usize {
    let rows = u16::try_from(page).unwrap_or(u16::MAX);
    usize::from(rows - graph_pane::height(run, rows)).max(1)
}

#[cfg(test)]
mod agreement_tests;
#[cfg(test)]
mod graph_pane_tests;
#[cfg(test)]
mod graph_tests;
#[cfg(test)]
mod pane_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod tree_tests;
