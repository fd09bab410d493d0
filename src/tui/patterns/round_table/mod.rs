//! Collaboration's part of the dashboard: the round table of agents ×
//! rounds (`state`), its selected cell, which follows the newest
//! contribution until moved, the keys that move it across rounds, and its
//! drawing (`view`, with the selected contribution under the grid in
//! `detail`).

mod asks;
mod colours;
mod detail;
pub(crate) mod log;
pub(crate) mod selection;
pub(crate) mod state;
mod view;

pub(crate) use selection::TableView;

use super::unit::{Seen, Unit};
use crate::bus::RunStarted;
use crate::patterns::collaboration::figures::{DECISION, ROUNDS};
use crate::patterns::events::Decision;
use crate::scenario::Scenario;
use crate::tui::keymap::{Action, Scope, UnitKeys};
use crate::tui::selection::Find;
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

    fn question_lines(&self, table: &RoundTable, width: usize) -> Option<Vec<Line<'static>>> {
        table.asked.as_ref().map(|asked| asks::lines(asked, width))
    }

    /// The gate is before each round: none is ahead once the last round
    /// the budget allows has started.
    fn gate_ahead(&self, table: &RoundTable) -> bool {
        table
            .rounds
            .last()
            .is_none_or(|column| column.round < table.max_rounds)
    }

    fn keys(&self, _scenario: &Scenario) -> Option<Scope> {
        Some(Scope::Unit(UnitKeys::RoundTable))
    }

    fn navigate(&self, selection: &mut TableView, action: Action, table: &RoundTable, page: usize) {
        selection.navigate(action, table, view::visible_roles(table, page));
    }

    fn find(
        &self,
        selection: &mut TableView,
        query: &str,
        how: Find,
        table: &RoundTable,
        _page: usize,
    ) -> bool {
        selection.find(query, how, table)
    }

    fn query(&self, selection: &TableView) -> Option<String> {
        selection.search.clone()
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
        match outcome.summary.read::<Decision>(DECISION) {
            Some(decision) => {
                let mut words = decision.as_str().replace('_', " ").to_uppercase();
                if outcome.shown.decided_by_human {
                    words.push_str(" · decided by a person");
                }
                Line::styled(fit(&words, 60), colours::decision(decision))
            }
            None => widgets::no_decision(outcome.status, "NO DECISION"),
        }
    }

    fn tally(&self, table: &RoundTable, outcome: &Outcome) -> Vec<Line<'static>> {
        let rounds = outcome
            .summary
            .counts
            .get(ROUNDS)
            .map_or(table.earlier_rounds + table.rounds.len(), |n| n as usize);
        vec![Line::from(vec![
            Span::styled("rounds      ", theme::dim()),
            Span::raw(rounds.to_string()),
        ])]
    }
}
