//! Collaboration's part of the dashboard: the round table of agents ×
//! rounds (`state`), its selected cell, which follows the newest
//! contribution until moved, the keys that move it across rounds, and its
//! drawing (`view`).

pub(crate) mod state;
mod view;

use super::unit::{Seen, Unit};
use crate::bus::RunStarted;
use crate::tui::keymap::{Action, Scope, UnitKeys};
use crate::tui::state::outcome::Outcome;
use crate::tui::text::fit;
use crate::tui::{theme, widgets};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use serde_json::{Value, json};
use state::{Cell, RoundTable};

pub(crate) struct RoundTableUnit;

impl Unit for RoundTableUnit {
    type Fold = RoundTable;
    type Selection = TableView;

    fn seat(&self, started: &RunStarted) -> RoundTable {
        RoundTable::seated(started)
    }

    fn gate_word(&self) -> &'static str {
        "round"
    }

    fn keys(&self) -> Option<Scope> {
        Some(Scope::Unit(UnitKeys::RoundTable))
    }

    fn navigate(&self, selection: &mut TableView, action: Action, table: &RoundTable) {
        selection.navigate(action, table);
    }

    fn wanted_height(&self, table: &RoundTable) -> u16 {
        view::wanted_height(table)
    }

    fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        table: &RoundTable,
        selection: &TableView,
        seen: Seen,
    ) {
        view::draw(frame, area, table, selection, seen);
    }

    fn details(&self, table: &RoundTable, selection: &TableView) -> Option<Value> {
        let (row, column) = selection.selection(table);
        let role = table.roles.get(row).cloned().unwrap_or_default();
        let round = table.rounds.get(column).map_or(0, |c| c.round);
        match table.cell(row, column)? {
            Cell::Accepted(c) => Some(json!({
                "round": round, "agent": role, "stance": c.stance, "summary": c.summary,
                "confidence": c.confidence, "actions": c.actions,
            })),
            Cell::Rejected { reason, raw } => Some(json!({
                "round": round, "agent": role, "rejected": reason, "raw": raw,
            })),
            Cell::Waiting => None,
        }
    }

    fn headline(&self, _table: &RoundTable, outcome: &Outcome) -> Line<'static> {
        match outcome.summary.decision {
            Some(decision) => Line::styled(
                fit(&decision.as_str().replace('_', " ").to_uppercase(), 40),
                theme::decision(decision),
            ),
            None => widgets::no_decision(outcome.status),
        }
    }

    fn tally(&self, table: &RoundTable, outcome: &Outcome) -> Vec<Line<'static>> {
        let rounds = outcome
            .summary
            .counts
            .rounds
            .map_or(table.rounds.len(), |n| n as usize);
        vec![Line::from(vec![
            Span::styled("rounds      ", theme::dim()),
            Span::raw(rounds.to_string()),
        ])]
    }
}

/// The round table's selected cell; it follows the newest contribution
/// until the user moves it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TableView {
    pub(crate) row: usize,
    pub(crate) column: usize,
    pub(crate) follow: bool,
}

impl Default for TableView {
    fn default() -> Self {
        TableView {
            row: 0,
            column: 0,
            follow: true,
        }
    }
}

impl TableView {
    /// (row, column) of the selected cell.
    pub(crate) fn selection(&self, table: &RoundTable) -> (usize, usize) {
        if self.follow {
            let Some(column) = table.rounds.len().checked_sub(1) else {
                return (0, 0);
            };
            let row = table.rounds[column]
                .cells
                .iter()
                .rposition(|c| matches!(c, Some(Cell::Accepted(_) | Cell::Rejected { .. })))
                .unwrap_or(0);
            return (row, column);
        }
        (
            self.row.min(table.roles.len().saturating_sub(1)),
            self.column.min(table.rounds.len().saturating_sub(1)),
        )
    }

    fn navigate(&mut self, action: Action, table: &RoundTable) {
        let (row, column) = self.selection(table);
        let rows = table.roles.len().saturating_sub(1);
        let columns = table.rounds.len().saturating_sub(1);
        let (row, column) = match action {
            Action::Up => (row.saturating_sub(1), column),
            Action::Down => ((row + 1).min(rows), column),
            Action::Left => (row, column.saturating_sub(1)),
            Action::Right => (row, (column + 1).min(columns)),
            _ => return,
        };
        *self = TableView {
            row,
            column,
            follow: false,
        };
    }
}
