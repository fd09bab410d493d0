//! What each run's screen remembers besides its events: the pattern pane's
//! selection (of its unit's type), the selected tool, the log's scroll,
//! filter and follow mode, flag toggles not yet applied, and the open
//! overlay. Changed only by the app's update; panes read it.

use super::document::Document;
use super::keymap::{Action, OverlayKind, PaneId};
use super::overlays::details::DetailsView;
use super::overlays::picker::PickerView;
use super::patterns::fold::PatternSelection;
use super::patterns::unit::PatternUnit;
use super::selection::{Find, ListView};
use super::state::RunState;
use super::tool_list;
use crate::bus::Event;
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
    Picker(PickerView),
    Details(DetailsView),
    Goal(Box<TextArea<'static>>),
    /// The log filter being typed.
    Filter(String),
    /// The round or wave number to jump to, being typed.
    Jump(String),
    /// A search of the focused pane being typed; `edited` once a key
    /// changed it or moved to a match (Enter on a search reopened and left
    /// as it was goes to the next match).
    Search {
        query: String,
        edited: bool,
    },
    /// Quitting while a run is live, to confirm; `under` is the dialog it
    /// covers (Ctrl-C quits from any), open again if the user stays.
    Quit {
        under: Option<Box<Overlay>>,
    },
    /// Two runs side by side.
    Compare {
        comparison: Box<crate::compare::Comparison>,
        scroll: u16,
    },
    /// The path to write a document to, being typed.
    Export(Box<ExportPrompt>),
    /// A scenario asks to run programs: `y` allows, anything else
    /// cancels.
    Trust(Box<TrustPrompt>),
    /// The round table asks a person: the answer being given.
    Decide(Box<super::overlays::decide::DecidePrompt>),
    /// The sweep's charts (the sweep itself is the app's).
    Sweep,
    /// A watched run's hook steered: its flags, a decision, a stop.
    Steer(super::overlays::steer::SteerDialog),
    /// A replay's fork being set up.
    Fork(Box<super::overlays::fork::ForkPrompt>),
    /// A launched run's replay's fork being set up: the call it goes
    /// live at, and the program it runs.
    ProgramFork(Box<super::overlays::program_fork::ProgramForkPrompt>),
    /// Stopping run `run`'s program: `y` stops it, anything else keeps it.
    StopProgram {
        run: crate::bus::RunId,
    },
}

/// The launch waiting for the user's consent, and what it asks for.
pub struct TrustPrompt {
    pub(crate) launch: super::launch::Launch,
    pub(crate) consent: crate::trust::Consent,
    /// What changed since this scenario file was last allowed, if it was.
    pub(crate) changes: Vec<String>,
}

impl Overlay {
    /// The goal editor, holding `goal` with the cursor at its end.
    pub(crate) fn goal_editor(goal: &str) -> Overlay {
        let mut editor = TextArea::new(goal.lines().map(String::from).collect());
        editor.set_cursor_line_style(ratatui::style::Style::default());
        // A goal is prose: long lines wrap so all of it stays in view.
        editor.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
        editor.move_cursor(ratatui_textarea::CursorMove::Bottom);
        editor.move_cursor(ratatui_textarea::CursorMove::End);
        Overlay::Goal(Box::new(editor))
    }

    /// The open overlay's keys: a search's while one is typed, in the
    /// picker and the details too.
    pub(crate) fn kind(&self) -> OverlayKind {
        match self {
            Overlay::Help { .. } => OverlayKind::Help,
            Overlay::Flags { .. } => OverlayKind::Flags,
            Overlay::Picker(picker) if picker.typing => OverlayKind::Search,
            Overlay::Picker(_) => OverlayKind::Picker,
            Overlay::Details(details) if details.typing => OverlayKind::Search,
            Overlay::Details(_) => OverlayKind::Details,
            Overlay::Goal(_) => OverlayKind::Goal,
            Overlay::Filter(_) => OverlayKind::Filter,
            Overlay::Jump(_) => OverlayKind::Jump,
            Overlay::Search { .. } => OverlayKind::Search,
            Overlay::Quit { .. } => OverlayKind::Quit,
            Overlay::Compare { .. } => OverlayKind::Compare,
            Overlay::Export(_) => OverlayKind::Export,
            Overlay::Trust(_) => OverlayKind::Trust,
            Overlay::Decide(_) => OverlayKind::Decide,
            Overlay::Sweep => OverlayKind::Sweep,
            Overlay::Steer(dialog) => dialog.kind(),
            Overlay::Fork(_) | Overlay::ProgramFork(_) => OverlayKind::Fork,
            Overlay::StopProgram { .. } => OverlayKind::StopProgram,
        }
    }

    /// The search being typed, wherever one is.
    pub(crate) fn query_mut(&mut self) -> Option<&mut String> {
        match self {
            Overlay::Search { query, .. } => Some(query),
            Overlay::Picker(picker) if picker.typing => Some(&mut picker.filter),
            Overlay::Details(details) if details.typing => Some(&mut details.query),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunUi {
    /// The pattern pane's selection, of its pattern's unit's type.
    pub(crate) pattern: PatternSelection,
    /// The selected tool of the resilience pane, in its sickest-first order.
    pub gateway_tools: ListView,
    pub log: LogView,
    /// Rows of the result scrolled past (the app keeps it within them).
    pub result_scroll: u16,
    /// Flag changes sent to the engine and not yet applied at a gate.
    pub(crate) pending_flags: Vec<(String, bool)>,
    /// Pause or step was asked for and the run has not reached its gate.
    pub(crate) pause_requested: bool,
    /// The run's stop was shown to the user: it no longer needs attention
    /// from another tab.
    pub(crate) stop_seen: bool,
    /// The user closed the dialog of the question the run asks: it does
    /// not open by itself again until the question is answered (`d` does).
    pub(crate) question_dismissed: bool,
}

impl RunUi {
    pub(crate) fn pending_flag(&self, name: &str) -> Option<bool> {
        self.pending_flags
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, on)| *on)
    }

    /// Keep the view in step with a newly applied event.
    pub(crate) fn after_event(&mut self, state: &RunState) {
        self.pending_flags
            .retain(|(name, on)| state.flags.iter().any(|f| &f.name == name && f.on != *on));
        if matches!(state.activity, super::state::Activity::Paused { .. }) || !state.is_live() {
            self.pause_requested = false;
        }
        self.log.after_event(state);
    }

    /// Move the focused pane's selection or scroll; `page` is the pane's
    /// height inside its border.
    pub(crate) fn navigate(
        &mut self,
        focus: PaneId,
        action: Action,
        state: &RunState,
        unit: &dyn PatternUnit,
        page: usize,
    ) {
        match focus {
            PaneId::Pattern => unit.navigate(&mut self.pattern, action, &state.pattern, page),
            PaneId::Log => self.log.navigate(action, state, page),
            PaneId::Resilience => {
                let shown = tool_list::shown(&state.resilience, &self.gateway_tools);
                self.gateway_tools
                    .navigate(action, &shown, page, tool_list::SORTS);
            }
            // The app scrolls the result: the scroll's end depends on the
            // screen's size.
            PaneId::Result => {}
            PaneId::Runs => {}
        }
    }

    /// Search the focused pane for `query` (an empty one clears the
    /// search); whether an item matched.
    pub(crate) fn find(
        &mut self,
        focus: PaneId,
        query: &str,
        how: Find,
        state: &RunState,
        unit: &dyn PatternUnit,
        page: usize,
    ) -> bool {
        match focus {
            PaneId::Pattern => unit.find(&mut self.pattern, query, how, &state.pattern, page),
            PaneId::Resilience => {
                let tools = &state.resilience.tools;
                let shown = tool_list::shown(&state.resilience, &self.gateway_tools);
                self.gateway_tools
                    .find(query, how, &shown, page, |i| tool_list::text(&tools[i]))
            }
            PaneId::Log | PaneId::Result | PaneId::Runs => false,
        }
    }
}

/// The event log's scroll, follow mode and filter. A scrolled view is held
/// by the number of its newest line, so it stays where the user put it while
/// events arrive (and while a replay plays) until `G`, or until the user
/// scrolls back down to the newest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogView {
    /// The `seq` of the newest line shown while scrolled; `None` follows.
    pub(crate) anchor: Option<u64>,
    pub filter: Option<String>,
    /// Indexes into the log of the events that match the filter, kept up to
    /// date as events arrive.
    matches: Vec<u64>,
}

impl LogView {
    pub(crate) fn follows(&self) -> bool {
        self.anchor.is_none()
    }

    /// Set or clear the filter and find the matching events; the view
    /// follows again.
    pub(crate) fn set_filter(&mut self, filter: Option<String>, state: &RunState) {
        self.anchor = None;
        self.refilter(filter, state);
    }

    /// Find the events matching `filter` in a state shown anew (a replay
    /// moved), keeping the scroll where it is.
    pub(crate) fn refilter(&mut self, filter: Option<String>, state: &RunState) {
        self.filter = filter.filter(|f| !f.is_empty());
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
            && self.matches.last() < Some(&event.seq)
        {
            self.matches.push(event.seq);
        }
    }

    /// The `seq` of the `i`th line the view counts.
    fn seq_at(&self, state: &RunState, i: usize) -> Option<u64> {
        match &self.filter {
            None => state.log.events.get(i).map(|e| e.seq),
            Some(_) => self.matches.get(i).copied(),
        }
    }

    /// How many of the view's lines are at or before its newest shown one.
    fn end(&self, state: &RunState) -> usize {
        let count = self.count(state);
        let Some(anchor) = self.anchor else {
            return count;
        };
        match &self.filter {
            None => state.log.events.partition_point(|e| e.seq <= anchor),
            Some(_) => self.matches.partition_point(|seq| *seq <= anchor),
        }
    }

    /// Indexes into `state.log.events` of the `height` events shown,
    /// oldest first, ending at the anchor (or the newest, following).
    pub(crate) fn window(&self, state: &RunState, height: usize) -> Vec<usize> {
        let count = self.count(state);
        // Scrolled to the oldest, the pane is still full: a page never
        // ends before the page's worth of events there are.
        let end = self.end(state).max(height.min(count));
        let start = end.saturating_sub(height);
        match &self.filter {
            None => (start..end).collect(),
            Some(_) => self.matches[start..end]
                .iter()
                .filter_map(|seq| state.log.events.binary_search_by_key(seq, |e| e.seq).ok())
                .collect(),
        }
    }

    /// The newest event the log shows: the one `Enter` opens.
    pub(crate) fn selected_event(&self, state: &RunState) -> Option<Arc<Event>> {
        let index = *self.window(state, 1).last()?;
        state.log.events.get(index).cloned()
    }

    /// How many events the view shows in all.
    pub(crate) fn count(&self, state: &RunState) -> usize {
        match &self.filter {
            None => state.log.len(),
            Some(_) => self.matches.len(),
        }
    }

    /// Scroll by a line or a `page` of lines, to the oldest, or follow
    /// again; `Close` clears the filter. Reaching the newest follows.
    fn navigate(&mut self, action: Action, state: &RunState, page: usize) {
        let page = page.max(1);
        let count = self.count(state);
        // The farthest up is a full page of the oldest events.
        let first = page.min(count);
        let end = self.end(state).max(first);
        let end = match action {
            Action::Up => end.saturating_sub(1).max(first),
            Action::Down => end + 1,
            Action::PageUp => end.saturating_sub(page).max(first),
            Action::PageDown => end + page,
            Action::Top => first,
            Action::Follow | Action::Bottom => count,
            Action::Close if self.filter.is_some() => {
                self.set_filter(None, state);
                return;
            }
            _ => return,
        };
        self.anchor = if end >= count {
            None
        } else {
            end.checked_sub(1).and_then(|i| self.seq_at(state, i))
        };
    }
}

/// Whether the filter `query` matches an event's line (case-insensitive).
pub(crate) fn matches(query: &str, event: &Arc<Event>) -> bool {
    let line = format!(
        "{} {}",
        crate::bus::describe::kind_name(&event.kind),
        crate::bus::describe::describe(&event.kind)
    );
    line.to_lowercase().contains(&query.to_lowercase())
}

/// The path prompt of `w`: the path typed so far, the document, and the
/// overlay to return to once written or cancelled.
pub struct ExportPrompt {
    pub path: String,
    pub(crate) document: Document,
    pub(crate) under: Option<Overlay>,
}
