//! What the watch's screen remembers besides the runs: the focused pane,
//! each pane's first row shown (the event log follows its newest line
//! until scrolled), the graph's selection and whether help is open; and
//! what each pane showed at the last frame, so that a page is the pane's
//! own height and the last row lands at the pane's bottom. Keys act here
//! (`act`), read from the key table's watch scope; nothing is drawn.

use super::state::Watched;
use super::steer::{act_dialog, act_steer};
use super::steered::{Dialog, SteerUi};
use crate::tui::keymap::{Action, OverlayKind, Scope};
use crate::tui::patterns::graph::selection::GraphView;
use std::cell::Cell;

/// The panes of a watched run, numbered as their titles say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum WatchPane {
    /// Agents, handoffs and tool calls.
    Agents,
    Graph,
    #[default]
    Tree,
    Log,
}

impl WatchPane {
    pub(crate) const ALL: [WatchPane; 4] = [
        WatchPane::Agents,
        WatchPane::Graph,
        WatchPane::Tree,
        WatchPane::Log,
    ];

    pub(crate) fn number(self) -> u8 {
        match self {
            WatchPane::Agents => 1,
            WatchPane::Graph => 2,
            WatchPane::Tree => 3,
            WatchPane::Log => 4,
        }
    }

    fn index(self) -> usize {
        usize::from(self.number() - 1)
    }
}

/// What a pane showed at the last frame: its rows in all and how many
/// fit in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shown {
    pub(crate) rows: usize,
    pub(crate) height: usize,
}

impl Shown {
    /// The first row that shows the last row at the pane's bottom.
    pub(crate) fn last_first(self) -> usize {
        self.rows.saturating_sub(self.height)
    }
}

/// The screen's own state.
#[derive(Debug, Default)]
pub(crate) struct WatchUi {
    pub(crate) focus: WatchPane,
    /// Each pane's first row shown (the graph's is its selection).
    scroll: [usize; 4],
    /// The event log was scrolled away from its newest line.
    log_held: bool,
    pub(crate) graph: GraphView,
    pub(crate) help: bool,
    pub(crate) shown: Cell<[Shown; 4]>,
    /// The steering dialog and what the person put off.
    pub(crate) steer: SteerUi,
}

impl WatchUi {
    /// Where keys are looked up now: help, a dialog, or the screen.
    pub(crate) fn scope(&self) -> Scope {
        match (&self.steer.dialog, self.help) {
            (_, true) => Scope::Overlay(OverlayKind::Help),
            (Some(Dialog::Flags { .. }), _) => Scope::Overlay(OverlayKind::Flags),
            (Some(Dialog::Decide { .. }), _) => Scope::Overlay(OverlayKind::Decide),
            (Some(Dialog::Stop { .. }), _) => Scope::Overlay(OverlayKind::StopRun),
            (None, false) => Scope::Watch,
        }
    }

    /// A letter typed into the decision dialog (`None`: Backspace).
    pub(crate) fn type_note(&mut self, typed: Option<char>) {
        if let Some(Dialog::Decide { note, .. }) = &mut self.steer.dialog {
            match typed {
                Some(c) if note.chars().count() < 2000 => note.push(c),
                Some(_) => {}
                None => {
                    note.pop();
                }
            }
        }
    }

    /// Pane `pane`'s first row for a frame where it has `rows` rows and
    /// `height` fit: the one scrolled to, kept in range (the log's newest
    /// page while it follows); remembered for the keys.
    pub(crate) fn first_row(&self, pane: WatchPane, rows: usize, height: usize) -> usize {
        let shown = Shown { rows, height };
        let mut all = self.shown.get();
        all[pane.index()] = shown;
        self.shown.set(all);
        if pane == WatchPane::Log && !self.log_held {
            return shown.last_first();
        }
        self.scroll[pane.index()].min(shown.last_first())
    }

    fn shown(&self, pane: WatchPane) -> Shown {
        self.shown.get()[pane.index()]
    }

    /// A move in the focused list pane.
    fn scroll(&mut self, action: Action) {
        let pane = self.focus;
        let shown = self.shown(pane);
        let last = shown.last_first();
        let page = shown.height.max(1);
        let now = if pane == WatchPane::Log && !self.log_held {
            last
        } else {
            self.scroll[pane.index()].min(last)
        };
        let next = match action {
            Action::Up => now.saturating_sub(1),
            Action::Down => (now + 1).min(last),
            Action::PageUp => now.saturating_sub(page),
            Action::PageDown => (now + page).min(last),
            Action::Top => 0,
            Action::Bottom => last,
            _ => now,
        };
        self.scroll[pane.index()] = next;
        if pane == WatchPane::Log {
            // Back at the newest line, the log follows again.
            self.log_held = next < last;
        }
    }

    /// Another run on screen: its panes from their tops, the log following.
    fn reset(&mut self) {
        self.scroll = [0; 4];
        self.log_held = false;
        self.graph = GraphView::default();
    }
}

/// The panes the selected run has, in order (the graph only where its
/// spans draw one).
fn panes(watched: &Watched) -> Vec<WatchPane> {
    let graph = watched
        .selected()
        .is_some_and(|r| r.reading.graph.is_some());
    WatchPane::ALL
        .into_iter()
        .filter(|p| *p != WatchPane::Graph || graph)
        .collect()
}

/// Apply `action` to the screen; whether it asks to quit.
pub(crate) fn act(watched: &mut Watched, ui: &mut WatchUi, action: Action) -> bool {
    if ui.help {
        ui.help = !matches!(action, Action::Close | Action::Help | Action::Quit);
        return false;
    }
    ui.steer.said = None;
    if ui.steer.dialog.is_some() {
        ui.steer.said = act_dialog(watched, &mut ui.steer, action).err();
        return false;
    }
    let order = panes(watched);
    let at = order.iter().position(|p| *p == ui.focus).unwrap_or(0);
    match action {
        Action::Quit => return true,
        Action::TogglePause | Action::Step | Action::Flags | Action::Decide | Action::StopRun => {
            ui.steer.said = act_steer(watched, &mut ui.steer, action).err();
        }
        Action::Help => ui.help = true,
        Action::PrevRun | Action::NextRun => {
            if action == Action::PrevRun {
                watched.select_previous();
            } else {
                watched.select_next();
            }
            ui.reset();
            if !panes(watched).contains(&ui.focus) {
                ui.focus = WatchPane::Tree;
            }
        }
        Action::FocusNext => ui.focus = order[(at + 1) % order.len()],
        Action::FocusPrev => ui.focus = order[(at + order.len() - 1) % order.len()],
        Action::Focus(n) => {
            if let Some(pane) = order.iter().find(|p| p.number() == n) {
                ui.focus = *pane;
            }
        }
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom => {
            let graph = watched.selected().and_then(|r| r.reading.graph.as_ref());
            match (ui.focus, graph) {
                (WatchPane::Graph, Some(fold)) => {
                    let page = ui.shown(WatchPane::Graph).height;
                    ui.graph.navigate(action, fold, page);
                }
                _ => ui.scroll(action),
            }
        }
        _ => {}
    }
    false
}
