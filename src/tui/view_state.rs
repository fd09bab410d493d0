//! What each run's screen remembers besides its events: the selected cell,
//! the log's scroll, filter and follow mode, flag toggles not yet applied,
//! and the open overlay. Changed only by the app's update; panes read it.

use super::keymap::{Action, OverlayKind, PaneId};
use super::state::{Cell, RunState};
use crate::bus::Event;
use crate::scenario::PatternKind;
use ratatui_textarea::TextArea;
use std::sync::Arc;

/// An overlay over the run's panes.
pub enum Overlay {
    Help {
        scroll: u16,
    },
    Flags {
        selected: usize,
    },
    Picker {
        selected: usize,
    },
    Details {
        scroll: u16,
        text: String,
    },
    Goal(Box<TextArea<'static>>),
    /// The log filter being typed.
    Filter(String),
    /// The round or wave number to jump to, being typed.
    Jump(String),
}

impl Overlay {
    pub fn kind(&self) -> OverlayKind {
        match self {
            Overlay::Help { .. } => OverlayKind::Help,
            Overlay::Flags { .. } => OverlayKind::Flags,
            Overlay::Picker { .. } => OverlayKind::Picker,
            Overlay::Details { .. } => OverlayKind::Details,
            Overlay::Goal(_) => OverlayKind::Goal,
            Overlay::Filter(_) => OverlayKind::Filter,
            Overlay::Jump(_) => OverlayKind::Jump,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunUi {
    pub table: TableView,
    pub tasks: ListView,
    /// The swarm's selected transfer, or the coordinator's member call.
    pub chain: ListView,
    /// The research pane's selected note.
    pub notes: ListView,
    /// The selected tool of the resilience pane, in its sickest-first order.
    pub gateway_tools: ListView,
    pub log: LogView,
    pub result_scroll: u16,
    /// Flag changes sent to the engine and not yet applied at a gate.
    pub pending_flags: Vec<(String, bool)>,
    /// Pause or step was asked for and the run has not reached its gate.
    pub pause_requested: bool,
}

impl RunUi {
    pub fn pending_flag(&self, name: &str) -> Option<bool> {
        self.pending_flags
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, on)| *on)
    }

    /// Keep the view in step with a newly applied event.
    pub fn after_event(&mut self, state: &RunState) {
        self.pending_flags
            .retain(|(name, on)| state.flags.iter().any(|f| &f.name == name && f.on != *on));
        if matches!(state.activity, super::state::Activity::Paused { .. }) || !state.is_live() {
            self.pause_requested = false;
        }
        self.log.after_event(state);
    }

    pub fn navigate(&mut self, focus: PaneId, action: Action, state: &RunState) {
        match focus {
            PaneId::Pattern => match state.info.as_ref().map(|i| i.pattern) {
                Some(PatternKind::Orchestrator) => {
                    self.tasks.navigate(action, state.workers.tasks.len())
                }
                Some(PatternKind::Swarm) => self.chain.navigate(action, state.chain.handoffs.len()),
                Some(PatternKind::Coordinator) => {
                    self.chain.navigate(action, state.chain.members.len())
                }
                Some(PatternKind::Research) => {
                    self.notes.navigate(action, state.research.notes.len())
                }
                _ => self.table.navigate(action, state),
            },
            PaneId::Log => self.log.navigate(action, state),
            PaneId::Resilience => self
                .gateway_tools
                .navigate(action, state.resilience.tools.len()),
            PaneId::Result => match action {
                Action::Up | Action::PageUp => {
                    self.result_scroll = self.result_scroll.saturating_sub(1)
                }
                Action::Down | Action::PageDown => {
                    self.result_scroll = self.result_scroll.saturating_add(1)
                }
                Action::Top => self.result_scroll = 0,
                _ => {}
            },
            PaneId::Runs => {}
        }
    }
}

/// A selected row in a list that keeps its order (the workers' tasks, the
/// research notes, the gateway's tools).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListView {
    pub selected: usize,
}

impl ListView {
    fn navigate(&mut self, action: Action, rows: usize) {
        let last = rows.saturating_sub(1);
        self.selected = match action {
            Action::Up => self.selected.saturating_sub(1),
            Action::Down => (self.selected + 1).min(last),
            Action::PageUp => self.selected.saturating_sub(10),
            Action::PageDown => (self.selected + 10).min(last),
            Action::Top => 0,
            Action::Follow => last,
            _ => self.selected,
        };
    }
}

/// The round table's selected cell; it follows the newest contribution
/// until the user moves it.
#[derive(Clone, Debug, PartialEq)]
pub struct TableView {
    pub row: usize,
    pub column: usize,
    pub follow: bool,
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
    pub fn selection(&self, state: &RunState) -> (usize, usize) {
        let table = &state.table;
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

    fn navigate(&mut self, action: Action, state: &RunState) {
        let (row, column) = self.selection(state);
        let rows = state.table.roles.len().saturating_sub(1);
        let columns = state.table.rounds.len().saturating_sub(1);
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

/// The event log's scroll, follow mode and filter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogView {
    /// Lines between the newest visible line and the newest event.
    pub offset: usize,
    pub filter: Option<String>,
    /// Indexes into the log of the events that match the filter, kept up to
    /// date as events arrive.
    matches: Vec<u64>,
}

impl LogView {
    pub fn follows(&self) -> bool {
        self.offset == 0
    }

    /// Set or clear the filter and find the matching events.
    pub fn set_filter(&mut self, filter: Option<String>, state: &RunState) {
        self.filter = filter.filter(|f| !f.is_empty());
        self.offset = 0;
        self.matches = match &self.filter {
            Some(query) => state
                .log
                .events
                .iter()
                .filter(|e| matches(query, e))
                .map(|e| e.seq)
                .collect(),
            None => Vec::new(),
        };
    }

    fn after_event(&mut self, state: &RunState) {
        if let (Some(query), Some(event)) = (&self.filter, state.log.events.back())
            && matches(query, event)
        {
            self.matches.push(event.seq);
        }
    }

    /// Indexes into `state.log.events` of the `height` events shown,
    /// oldest first, ending `offset` lines above the newest.
    pub fn window(&self, state: &RunState, height: usize) -> Vec<usize> {
        let count = self.count(state);
        let end = count.saturating_sub(self.offset);
        let start = end.saturating_sub(height);
        match &self.filter {
            None => (start..end).collect(),
            Some(_) => self.matches[start..end]
                .iter()
                .filter_map(|seq| state.log.events.binary_search_by_key(seq, |e| e.seq).ok())
                .collect(),
        }
    }

    /// How many events the view shows in all.
    pub fn count(&self, state: &RunState) -> usize {
        match &self.filter {
            None => state.log.len(),
            Some(_) => self.matches.len(),
        }
    }

    fn navigate(&mut self, action: Action, state: &RunState) {
        let last = self.count(state).saturating_sub(1);
        self.offset = match action {
            Action::Up => (self.offset + 1).min(last),
            Action::Down => self.offset.saturating_sub(1),
            Action::PageUp => (self.offset + 10).min(last),
            Action::PageDown => self.offset.saturating_sub(10),
            Action::Top => last,
            Action::Follow => 0,
            _ => self.offset,
        };
    }
}

/// Whether the filter `query` matches an event's line (case-insensitive).
pub fn matches(query: &str, event: &Arc<Event>) -> bool {
    let line = format!(
        "{} {}",
        crate::bus::describe::kind_name(&event.kind),
        crate::bus::describe::describe(&event.kind)
    );
    line.to_lowercase().contains(&query.to_lowercase())
}
