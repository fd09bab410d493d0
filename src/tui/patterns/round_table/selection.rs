//! The round table's selected cell: it follows the newest contribution
//! until the user moves it (`G` follows again); a search goes round the
//! table a round at a time, matching the agent or what it said.

use super::state::{Cell, RoundTable};
use crate::tui::keymap::Action;
use crate::tui::search;
use crate::tui::selection::Find;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TableView {
    pub(crate) row: usize,
    pub(crate) column: usize,
    pub(crate) follow: bool,
    /// The text the table highlights, once searched for.
    pub(crate) search: Option<String>,
}

impl Default for TableView {
    fn default() -> Self {
        TableView {
            row: 0,
            column: 0,
            follow: true,
            search: None,
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

    /// Apply a key; `page` is how many agents the grid shows.
    pub(super) fn navigate(&mut self, action: Action, table: &RoundTable, page: usize) {
        let (row, column) = self.selection(table);
        let rows = table.roles.len().saturating_sub(1);
        let columns = table.rounds.len().saturating_sub(1);
        let (row, column) = match action {
            Action::Up => (row.saturating_sub(1), column),
            Action::Down => ((row + 1).min(rows), column),
            Action::PageUp => (row.saturating_sub(page.max(1)), column),
            Action::PageDown => ((row + page.max(1)).min(rows), column),
            Action::Left => (row, column.saturating_sub(1)),
            Action::Right => (row, (column + 1).min(columns)),
            Action::Top => (0, column),
            Action::Bottom => (rows, column),
            Action::Follow => {
                self.follow = true;
                return;
            }
            Action::Close => {
                self.search = None;
                return;
            }
            _ => return,
        };
        self.row = row;
        self.column = column;
        self.follow = false;
    }

    /// Select a cell whose agent or contribution matches `query`, round
    /// by round; whether one did.
    pub(super) fn find(&mut self, query: &str, how: Find, table: &RoundTable) -> bool {
        if query.is_empty() {
            self.search = None;
            return false;
        }
        self.search = Some(query.to_string());
        let roles = table.roles.len();
        let cells = roles * table.rounds.len();
        if cells == 0 {
            return false;
        }
        let (row, column) = self.selection(table);
        let from = column * roles + row;
        let order: Vec<usize> = match how {
            Find::Here => (0..cells).map(|i| (from + i) % cells).collect(),
            Find::Next => (1..=cells).map(|i| (from + i) % cells).collect(),
            Find::Previous => (1..=cells).map(|i| (from + cells - i) % cells).collect(),
        };
        let hit = order.into_iter().find(|at| {
            let (row, column) = (at % roles, at / roles);
            table.cell(row, column).is_some_and(|cell| {
                search::contains(&table.roles[row], query) || search::contains(&said(cell), query)
            })
        });
        let Some(at) = hit else {
            return false;
        };
        self.row = at % roles;
        self.column = at / roles;
        self.follow = false;
        true
    }
}

/// What an agent said in a cell, as searched.
fn said(cell: &Cell) -> String {
    match cell {
        Cell::Waiting => String::new(),
        Cell::Accepted(c) => format!("{} {}", c.summary, c.actions.join(" ")),
        Cell::Rejected { reason, .. } => reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::state::{Contribution, RoundColumn};
    use super::*;
    use crate::patterns::events::Stance;
    use std::sync::Arc;

    fn said_in_round(round: u32, summaries: &[&str]) -> Arc<RoundColumn> {
        Arc::new(RoundColumn {
            round,
            speakers: Vec::new(),
            cells: summaries
                .iter()
                .map(|s| {
                    Some(Cell::Accepted(Contribution {
                        stance: Stance::Go,
                        confidence: 0.5,
                        summary: s.to_string(),
                        actions: Vec::new(),
                    }))
                })
                .collect(),
            conflicts: Vec::new(),
            decision: None,
            person: None,
            escalated: false,
            finished: true,
        })
    }

    fn table() -> RoundTable {
        RoundTable {
            roles: vec!["demand".into(), "risk".into(), "legal".into()],
            rounds: vec![
                said_in_round(1, &["fine", "fraud spike", "ok"]),
                said_in_round(2, &["fine", "still fraud", "ok"]),
            ],
            max_rounds: 3,
            earlier_rounds: 0,
            asked: None,
        }
    }

    #[test]
    fn the_table_follows_until_moved_and_g_follows_again() {
        let table = table();
        let mut view = TableView::default();
        assert_eq!(view.selection(&table), (2, 1), "the newest contribution");
        view.navigate(Action::Top, &table, 2);
        assert_eq!(view.selection(&table), (0, 1));
        view.navigate(Action::PageDown, &table, 2);
        assert_eq!(view.selection(&table), (2, 1));
        view.navigate(Action::Left, &table, 2);
        assert_eq!(view.selection(&table), (2, 0));
        assert!(!view.follow);
        view.navigate(Action::Follow, &table, 2);
        assert_eq!(view.selection(&table), (2, 1));
    }

    #[test]
    fn a_search_goes_round_the_table_a_round_at_a_time() {
        let table = table();
        let mut view = TableView::default();
        assert!(view.find("fraud", Find::Next, &table));
        assert_eq!(view.selection(&table), (1, 0), "round the end to round 1");
        assert!(view.find("fraud", Find::Next, &table));
        assert_eq!(view.selection(&table), (1, 1));
        assert!(view.find("LEGAL", Find::Here, &table));
        assert_eq!(view.selection(&table), (2, 1));
        assert!(!view.find("budget", Find::Next, &table));
        assert_eq!(view.search.as_deref(), Some("budget"));
        view.navigate(Action::Close, &table, 2);
        assert_eq!(view.search, None);
    }
}
