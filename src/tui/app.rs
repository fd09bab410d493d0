//! The dashboard's one place that decides: it owns the runs (their folded
//! state, their view state and their engine handles), the focus and the
//! overlays, turns keys into actions and actions into changes. Drawing
//! reads it and never changes it.

use super::catalog::{self, Entry, Item};
use super::inspect;
use super::keymap::{self, Action, OverlayKind, PaneId, Scope};
pub use super::runs::{Overrides, RunSlot};
use super::state::{Activity, Cell, RunState};
use super::view_state::{LogView, Overlay};
use crate::bus::{Event, Hub, RunId};
use crate::control::Control;
use crate::engine::RunHandle;
use crate::scenario::PatternKind;
use crossterm::event::{KeyEvent, MouseEvent, MouseEventKind};
use ratatui_textarea::TextArea;
use std::path::PathBuf;
use std::sync::Arc;

/// How the dashboard was started.
#[derive(Clone, Debug, Default)]
pub struct AppOptions {
    /// Where recordings go; `None` records nothing.
    pub runs_dir: Option<PathBuf>,
    /// Where the picker looks for recordings to replay.
    pub recordings_dir: Option<PathBuf>,
    /// Where the picker looks for scenarios.
    pub scenarios_dir: PathBuf,
    /// Launch runs paused at their first gate.
    pub start_paused: bool,
    /// The model every launch uses, over each scenario's.
    pub provider: crate::engine::ProviderChoice,
}

/// How many recent recordings the picker lists.
const RECENT_RECORDINGS: usize = 20;

pub struct App {
    pub hub: Hub,
    pub options: AppOptions,
    pub catalog: Vec<Entry>,
    pub runs: Vec<RunSlot>,
    pub selected: usize,
    pub focus: PaneId,
    pub overlay: Option<Overlay>,
    /// A short note for the footer (a launch error, an unavailable key).
    pub notice: Option<String>,
    pub quitting: bool,
    pub(super) next_run: RunId,
    /// Handles of runs that ended or were replaced, to finish on quit.
    pub(super) retired: Vec<RunHandle>,
}

impl App {
    pub fn new(hub: Hub, options: AppOptions) -> Self {
        let catalog = catalog::load(&options.scenarios_dir);
        App {
            hub,
            options,
            catalog,
            runs: Vec::new(),
            selected: 0,
            focus: PaneId::Pattern,
            overlay: None,
            notice: None,
            quitting: false,
            next_run: 1,
            retired: Vec::new(),
        }
    }

    pub fn run(&self) -> Option<&RunSlot> {
        self.runs.get(self.selected)
    }

    pub(super) fn run_mut(&mut self) -> Option<&mut RunSlot> {
        self.runs.get_mut(self.selected)
    }

    pub fn open_picker(&mut self) {
        self.catalog = catalog::load(&self.options.scenarios_dir);
        if let Some(dir) = &self.options.recordings_dir {
            self.catalog
                .extend(catalog::recordings(dir, RECENT_RECORDINGS));
        }
        self.overlay = Some(Overlay::Picker {
            selected: catalog::default_index(&self.catalog),
        });
    }

    /// An event from the bus.
    pub fn apply(&mut self, event: Arc<Event>) {
        // Replays have run ids of their own recordings; live events are not
        // theirs.
        let Some(index) = self
            .runs
            .iter()
            .position(|s| s.replay.is_none() && s.state.run == event.run)
        else {
            return;
        };
        let slot = &mut self.runs[index];
        slot.state.apply(event);
        slot.ui.after_event(&slot.state);
        if !slot.state.is_live()
            && let Some(handle) = slot.handle.take()
        {
            self.retired.push(handle);
        }
    }

    /// The hub dropped `n` events for this viewer.
    pub fn missed(&mut self, n: u64) {
        for slot in self.runs.iter_mut().filter(|s| s.is_live()) {
            slot.state.note_missed(n);
        }
    }

    /// Which scope gets a key first.
    pub fn scope(&self) -> Scope {
        match &self.overlay {
            Some(overlay) => Scope::Overlay(overlay.kind()),
            None => Scope::Pane(self.focus),
        }
    }

    pub fn key(&mut self, key: KeyEvent) {
        self.notice = None;
        // Text inputs take every key but their own commands.
        match &mut self.overlay {
            Some(Overlay::Goal(editor)) => {
                match keymap::lookup(Scope::Overlay(OverlayKind::Goal), &key) {
                    Some(action) => self.update(action),
                    None => {
                        editor.input(key);
                    }
                }
                return;
            }
            Some(Overlay::Jump(text)) => {
                match keymap::lookup(Scope::Overlay(OverlayKind::Jump), &key) {
                    Some(action) => self.update(action),
                    None => {
                        use crossterm::event::KeyCode;
                        match key.code {
                            KeyCode::Char(c) if c.is_ascii_digit() && text.len() < 6 => {
                                text.push(c)
                            }
                            KeyCode::Backspace => {
                                text.pop();
                            }
                            _ => {}
                        }
                    }
                }
                return;
            }
            Some(Overlay::Filter(text)) => {
                match keymap::lookup(Scope::Overlay(OverlayKind::Filter), &key) {
                    Some(action) => self.update(action),
                    None => {
                        use crossterm::event::KeyCode;
                        match key.code {
                            KeyCode::Char(c) => text.push(c),
                            KeyCode::Backspace => {
                                text.pop();
                            }
                            _ => {}
                        }
                        let query = text.clone();
                        if let Some(slot) = self.run_mut() {
                            slot.ui.log.set_filter(Some(query), &slot.state);
                        }
                    }
                }
                return;
            }
            _ => {}
        }
        // A replay's own keys come before its panes' and the global ones.
        if self.overlay.is_none()
            && self.run().is_some_and(|slot| slot.replay.is_some())
            && let Some(action) = keymap::lookup(Scope::Replay, &key)
        {
            self.playback(action);
            return;
        }
        let scope = self.scope();
        let action = keymap::lookup(scope, &key).or_else(|| match scope {
            Scope::Pane(_) => keymap::lookup(Scope::Everywhere, &key),
            _ => None,
        });
        if let Some(action) = action {
            self.update(action);
        }
    }

    pub fn mouse(&mut self, mouse: MouseEvent, layout: &super::layout::Areas) {
        let action = match mouse.kind {
            MouseEventKind::ScrollUp => Action::Up,
            MouseEventKind::ScrollDown => Action::Down,
            _ => return,
        };
        if self.overlay.is_some() {
            self.update(action);
            return;
        }
        if let Some(pane) = layout.pane_at(mouse.column, mouse.row) {
            self.focus = pane;
            let steps = if pane == PaneId::Log { 3 } else { 1 };
            for _ in 0..steps {
                self.update(action);
            }
        }
    }

    /// Why `action` cannot be done now, if it cannot.
    pub fn unavailable(&self, action: Action) -> Option<&'static str> {
        let run = self.run();
        let live = run.is_some_and(RunSlot::is_live);
        match action {
            Action::TogglePause | Action::Step if run.is_none() => Some("no run"),
            Action::TogglePause | Action::Step if !live => Some("the run has finished"),
            Action::Flags if run.is_some_and(|r| r.state.flags.is_empty()) => {
                Some("this scenario has no flags")
            }
            Action::Flags | Action::EditGoal | Action::Restart if run.is_none() => Some("no run"),
            Action::Flags | Action::EditGoal if run.is_some_and(|r| r.replay.is_some()) => {
                Some("a replay shows the run as recorded")
            }
            Action::Focus(n) if PaneId::from_number(n).is_none() => {
                Some("no such pane for this pattern")
            }
            Action::PrevRun | Action::NextRun if self.runs.len() < 2 => Some("only one run"),
            Action::Left | Action::Right
                if self.focus == PaneId::Pattern
                    && run.is_some_and(|r| r.scenario.pattern != PatternKind::Collaboration) =>
            {
                Some("this pattern has no rounds")
            }
            _ => None,
        }
    }

    pub fn update(&mut self, action: Action) {
        if let Some(why) = self.unavailable(action) {
            self.notice = Some(why.to_string());
            return;
        }
        match (&mut self.overlay, action) {
            (_, Action::Quit) => self.quitting = true,
            (Some(_), Action::Close) => {
                if matches!(self.overlay, Some(Overlay::Filter(_)))
                    && let Some(slot) = self.run_mut()
                {
                    slot.ui.log.set_filter(None, &slot.state);
                }
                self.overlay = None;
            }
            (Some(Overlay::Help { scroll } | Overlay::Details { scroll, .. }), Action::Up) => {
                *scroll = scroll.saturating_sub(1);
            }
            (Some(Overlay::Help { scroll } | Overlay::Details { scroll, .. }), Action::Down) => {
                *scroll = scroll.saturating_add(1);
            }
            (Some(Overlay::Flags { selected } | Overlay::Picker { selected }), Action::Up) => {
                *selected = selected.saturating_sub(1);
            }
            (Some(Overlay::Flags { selected }), Action::Down) => {
                let count = self
                    .runs
                    .get(self.selected)
                    .map_or(0, |s| s.state.flags.len());
                *selected = (*selected + 1).min(count.saturating_sub(1));
            }
            (Some(Overlay::Picker { selected }), Action::Down) => {
                *selected = (*selected + 1).min(self.catalog.len().saturating_sub(1));
            }
            (Some(Overlay::Flags { selected }), Action::Toggle) => {
                let selected = *selected;
                self.toggle_flag(selected);
            }
            (Some(Overlay::Picker { selected }), Action::Confirm) => {
                let entry = self.catalog.get(*selected).cloned();
                match entry.map(|e| (e.item, e.origin)) {
                    Some((Item::Scenario(Ok(scenario)), origin)) => {
                        self.overlay = None;
                        let source = (!origin.starts_with("built-in")).then_some(origin);
                        self.launch(scenario, source);
                    }
                    Some((Item::Scenario(Err(e)), _)) => self.notice = Some(first_line(&e)),
                    Some((Item::Recording(path), _)) => match self.open_replay(&path) {
                        Ok(()) => self.overlay = None,
                        Err(e) => self.notice = Some(first_line(&e)),
                    },
                    None => {}
                }
            }
            (Some(Overlay::Goal(editor)), Action::Confirm) => {
                let goal = editor.lines().join("\n");
                self.overlay = None;
                if let Some(slot) = self.run_mut() {
                    slot.next_goal = Some(goal);
                }
                self.notice = Some("goal saved: r restarts the run with it".into());
            }
            (Some(Overlay::Filter(_)), Action::Confirm) => self.overlay = None,
            (Some(Overlay::Jump(text)), Action::Confirm) => {
                let unit = text.parse::<usize>().ok();
                self.overlay = None;
                match unit {
                    Some(n) => self.jump(n),
                    None => self.notice = Some("type a round or wave number".into()),
                }
            }
            (Some(_), _) => {}
            (None, action) => self.update_panes(action),
        }
    }

    fn update_panes(&mut self, action: Action) {
        match action {
            Action::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Action::NewRun => self.open_picker(),
            Action::TogglePause => self.send_to_run(|slot| match slot.state.activity {
                Activity::Paused { .. } => Control::Resume,
                _ if slot.ui.pause_requested => Control::Resume,
                _ => Control::Pause,
            }),
            Action::Step => self.send_to_run(|_| Control::Step),
            Action::Flags => self.overlay = Some(Overlay::Flags { selected: 0 }),
            Action::EditGoal => {
                let goal = self.run().map(|slot| {
                    slot.next_goal
                        .clone()
                        .or_else(|| slot.state.info.as_ref().map(|i| i.goal.clone()))
                        .unwrap_or_default()
                });
                let mut editor =
                    TextArea::new(goal.unwrap_or_default().lines().map(String::from).collect());
                editor.set_cursor_line_style(ratatui::style::Style::default());
                editor.move_cursor(ratatui_textarea::CursorMove::Bottom);
                editor.move_cursor(ratatui_textarea::CursorMove::End);
                self.overlay = Some(Overlay::Goal(Box::new(editor)));
            }
            Action::Restart => self.restart(),
            Action::FocusNext | Action::FocusPrev => {
                let panes = PaneId::ALL;
                let at = panes.iter().position(|p| *p == self.focus).unwrap_or(0);
                let next = if action == Action::FocusNext {
                    (at + 1) % panes.len()
                } else {
                    (at + panes.len() - 1) % panes.len()
                };
                self.focus = panes[next];
            }
            Action::Focus(n) => {
                if let Some(pane) = PaneId::from_number(n) {
                    self.focus = pane;
                }
            }
            Action::PrevRun => self.selected = self.selected.saturating_sub(1),
            Action::NextRun => {
                self.selected = (self.selected + 1).min(self.runs.len().saturating_sub(1))
            }
            Action::Details => self.open_details(),
            Action::Filter => {
                let current = self
                    .run()
                    .and_then(|s| s.ui.log.filter.clone())
                    .unwrap_or_default();
                self.overlay = Some(Overlay::Filter(current));
            }
            Action::Left | Action::Right if self.focus == PaneId::Runs => {
                self.update(if action == Action::Left {
                    Action::PrevRun
                } else {
                    Action::NextRun
                });
            }
            other => {
                let focus = self.focus;
                if let Some(slot) = self.run_mut() {
                    slot.ui.navigate(focus, other, &slot.state);
                }
            }
        }
    }

    fn send_to_run(&mut self, command: impl FnOnce(&RunSlot) -> Control) {
        let Some(slot) = self.runs.get_mut(self.selected) else {
            return;
        };
        let command = command(slot);
        match &command {
            Control::Pause | Control::Step => slot.ui.pause_requested = true,
            Control::Resume => slot.ui.pause_requested = false,
            _ => {}
        }
        if let Some(handle) = &slot.handle
            && let Err(e) = handle.controller.send(command)
        {
            self.notice = Some(e.to_string());
        }
    }

    fn toggle_flag(&mut self, index: usize) {
        let Some(slot) = self.runs.get_mut(self.selected) else {
            return;
        };
        let Some(flag) = slot.state.flags.get(index) else {
            return;
        };
        let name = flag.name.clone();
        let on = !slot.ui.pending_flag(&name).unwrap_or(flag.on);
        match &slot.handle {
            Some(handle) if slot.state.is_live() => match handle.controller.set_flag(&name, on) {
                Ok(()) => slot.ui.pending_flags.push((name, on)),
                Err(e) => self.notice = Some(e.to_string()),
            },
            _ => {
                // A finished run keeps the choice for its restart.
                slot.ui.pending_flags.retain(|(n, _)| n != &name);
                slot.ui.pending_flags.push((name, on));
                self.notice = Some("the run has finished: r restarts it with this flag".into());
            }
        }
    }

    fn open_details(&mut self) {
        let Some(slot) = self.run() else { return };
        let pattern = slot.scenario.pattern;
        let text = match self.focus {
            PaneId::Pattern if matches!(pattern, PatternKind::Swarm | PatternKind::Coordinator) => {
                match slot.state.chain.details(slot.ui.chain.selected) {
                    Some(text) => text,
                    None => return,
                }
            }
            PaneId::Pattern if pattern == PatternKind::Research => {
                let notes = &slot.state.research.notes;
                let Some(note) =
                    notes.get(slot.ui.notes.selected.min(notes.len().saturating_sub(1)))
                else {
                    return;
                };
                inspect::note_json(note, &slot.state.research.citations)
            }
            PaneId::Pattern if !slot.state.workers.tasks.is_empty() => {
                let index = slot
                    .ui
                    .tasks
                    .selected
                    .min(slot.state.workers.tasks.len() - 1);
                inspect::task_json(&slot.state.workers.tasks[index])
            }
            PaneId::Pattern => {
                let (row, column) = slot.ui.table.selection(&slot.state);
                let role = slot.state.table.roles.get(row).cloned().unwrap_or_default();
                let round = slot.state.table.rounds.get(column).map_or(0, |c| c.round);
                match slot.state.table.cell(row, column) {
                    Some(Cell::Accepted(c)) => serde_json::json!({
                        "round": round, "agent": role, "stance": c.stance, "summary": c.summary,
                        "confidence": c.confidence, "actions": c.actions,
                    }),
                    Some(Cell::Rejected { reason, raw }) => serde_json::json!({
                        "round": round, "agent": role, "rejected": reason, "raw": raw,
                    }),
                    _ => return,
                }
            }
            PaneId::Log => match slot.ui.log.selected_event(&slot.state) {
                Some(event) => serde_json::to_value(&*event).unwrap_or_default(),
                None => return,
            },
            PaneId::Result => match &slot.state.outcome {
                Some(outcome) => outcome.result.clone(),
                None => return,
            },
            PaneId::Resilience => {
                let tools = slot.state.resilience.ordered();
                match tools.get(
                    slot.ui
                        .gateway_tools
                        .selected
                        .min(tools.len().saturating_sub(1)),
                ) {
                    Some(tool) => inspect::tool_json(tool, slot.clock_ms()),
                    None => return,
                }
            }
            PaneId::Runs => return,
        };
        self.overlay = Some(Overlay::Details {
            scroll: 0,
            text: serde_json::to_string_pretty(&text).unwrap_or_default(),
        });
    }

    /// Whether a redraw is due without new input: a live run's clock moves.
    pub fn animating(&self) -> bool {
        self.runs
            .iter()
            .any(|s| s.is_live() && !matches!(s.state.activity, Activity::Paused { .. }))
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

impl LogView {
    /// The newest event the log shows: the one `Enter` opens.
    pub fn selected_event(&self, state: &RunState) -> Option<Arc<Event>> {
        let index = *self.window(state, 1).last()?;
        state.log.events.get(index).cloned()
    }
}
