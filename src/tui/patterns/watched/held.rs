//! The watched pane's selection held on its item while a live run grows.
//! Rows come in above a picked row as spans arrive: an agent that started
//! earlier, a span whose place in the tree is higher up, a handoff or
//! tool call before the tree. A row number would then point at another
//! item; the selection holds the agent, handoff, tool call or span the
//! user picked instead, and finds its row again as the run stands.

use super::pane::{Row, Rows};
use super::state::WatchedRun;
use crate::span::SpanId;
use crate::tui::selection::ListView;

/// The pane's list, and the item its pick holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct WatchedView {
    list: ListView,
    held: Option<Held>,
}

/// An item of the pane's list by what it is, not by its row.
#[derive(Clone, Debug, PartialEq)]
enum Held {
    Agent(String),
    Earlier,
    /// The run's `n`th handoff or tool call, counting those the chain
    /// let go.
    Handoff(usize),
    Call(usize),
    Tree,
    Span(SpanId),
}

impl WatchedView {
    /// A view whose pick starts on item `item`.
    #[cfg(test)]
    pub(crate) fn at(item: usize) -> WatchedView {
        WatchedView {
            list: ListView::at(item),
            held: None,
        }
    }

    /// The list as the run stands now: its pick on the held item's row.
    pub(crate) fn list(&self, run: &WatchedRun, rows: &Rows) -> ListView {
        let mut list = self.list.clone();
        if let Some(item) = self.held.as_ref().and_then(|held| held.row(run, rows)) {
            list.repoint(item);
        }
        list
    }

    /// Change the list with `change` (a key, a search), from where the
    /// held item is now; then hold the item picked.
    pub(crate) fn change<T>(
        &mut self,
        run: &WatchedRun,
        change: impl FnOnce(&mut ListView, &Rows) -> T,
    ) -> T {
        let rows = Rows::of(run);
        self.list = self.list(run, &rows);
        let changed = change(&mut self.list, &rows);
        self.held = match self.list.follows() {
            true => None,
            false => self
                .list
                .item(&rows.shown())
                .and_then(|item| rows.get(item))
                .and_then(|row| Held::of(run, &rows, row)),
        };
        changed
    }

    /// The text searched for, if any.
    pub(crate) fn search(&self) -> Option<String> {
        self.list.search.clone()
    }
}

impl Held {
    fn of(run: &WatchedRun, rows: &Rows, row: Row) -> Option<Held> {
        let earlier = &run.chain.earlier;
        Some(match row {
            Row::Agent(i) => Held::Agent(rows.agents.get(i)?.to_string()),
            Row::Earlier => Held::Earlier,
            Row::Handoff(i) => Held::Handoff(earlier.handoffs + i),
            Row::Call(i) => Held::Call(earlier.tool_calls + i),
            Row::Tree => Held::Tree,
            Row::Span(i) => Held::Span(run.tree.id_at(i)?),
        })
    }

    /// The held item's row now; `None` when the run no longer shows it.
    fn row(&self, run: &WatchedRun, rows: &Rows) -> Option<usize> {
        let earlier = &run.chain.earlier;
        let row = match self {
            Held::Agent(name) => Row::Agent(rows.agents.iter().position(|a| a == name)?),
            Held::Earlier => Row::Earlier,
            Held::Handoff(n) => Row::Handoff(n.checked_sub(earlier.handoffs)?),
            Held::Call(n) => Row::Call(n.checked_sub(earlier.tool_calls)?),
            Held::Tree => Row::Tree,
            Held::Span(id) => return Some(rows.tree_start() + run.tree.row_of(&run.forest, *id)?),
        };
        rows.position(row)
    }
}
