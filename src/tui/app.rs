//! The dashboard's one place that decides: it holds the runs, the focus,
//! the overlays and the footer's notice, turns keys into actions and
//! actions into changes. It starts nothing itself: launching a run,
//! sending a control and opening a recording are effects `update` returns
//! and the loop carries out. Drawing reads it and never changes it.

use super::catalog::{self, Entry, Item};
use super::effect::{Effect, carry_out, first_line};
use super::inspect;
use super::keymap::{self, Action, OverlayKind, PaneId, Scope};
pub use super::runs::Overrides;
use super::runs::{Launch, LaunchSettings, Runs};
use super::slot::RunSlot;
use super::state::Activity;
use super::view_state::Overlay;
use crate::bus::{Event, Hub};
use crate::control::Control;
use crate::engine::RunHandle;
use crate::scenario::Scenario;
use crossterm::event::{KeyCode, KeyEvent, MouseEvent, MouseEventKind};
use std::path::{Path, PathBuf};
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
    pub options: AppOptions,
    pub catalog: Vec<Entry>,
    pub runs: Runs,
    pub focus: PaneId,
    pub overlay: Option<Overlay>,
    /// A short note for the footer (a launch error, an unavailable key).
    pub notice: Option<String>,
    pub quitting: bool,
}

impl App {
    pub fn new(hub: Hub, options: AppOptions) -> Self {
        let catalog = catalog::load(&options.scenarios_dir);
        let settings = LaunchSettings {
            runs_dir: options.runs_dir.clone(),
            start_paused: options.start_paused,
            provider: options.provider.clone(),
        };
        App {
            options,
            catalog,
            runs: Runs::new(hub, settings),
            focus: PaneId::Pattern,
            overlay: None,
            notice: None,
            quitting: false,
        }
    }

    /// The selected run.
    pub fn run(&self) -> Option<&RunSlot> {
        self.runs.selected()
    }

    fn run_mut(&mut self) -> Option<&mut RunSlot> {
        self.runs.selected_mut()
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
        self.runs.apply(event);
    }

    /// The hub dropped `n` events for this viewer.
    pub fn missed(&mut self, n: u64) {
        self.runs.missed(n);
    }

    /// Launch `scenario` as a new run and select it.
    pub fn launch(&mut self, scenario: Arc<Scenario>, source: Option<String>) {
        self.launch_with(scenario, source, Overrides::default());
    }

    /// Launch with a seed, flags or goal other than the scenario's.
    pub fn launch_with(
        &mut self,
        scenario: Arc<Scenario>,
        source: Option<String>,
        overrides: Overrides,
    ) {
        carry_out(
            self,
            vec![Effect::Launch(Launch::of(scenario, source, overrides))],
        );
    }

    /// Start `launch`, select it and show its pattern's pane.
    pub(super) fn start(&mut self, launch: Launch) {
        let name = launch.scenario.name.clone();
        match self.runs.launch(launch) {
            Ok(()) => self.focus = PaneId::Pattern,
            Err(e) => self.notice = Some(format!("cannot launch {name}: {e}")),
        }
    }

    /// Show a run from its events alone (see `Runs::add_from_events`).
    pub fn add_from_events(
        &mut self,
        events: &[Arc<Event>],
        source: Option<String>,
    ) -> Option<usize> {
        self.runs.add_from_events(events, source)
    }

    /// Open a recording as a replay and select it. The error says why the
    /// file cannot be replayed.
    pub fn open_replay(&mut self, path: &Path) -> Result<(), String> {
        self.runs.open_replay(path)?;
        self.focus = PaneId::Pattern;
        Ok(())
    }

    /// Every engine handle still to finish, for a clean shutdown.
    pub fn take_handles(&mut self) -> Vec<RunHandle> {
        self.runs.take_handles()
    }

    /// Where a key is looked up, first to last.
    pub fn scopes(&self) -> Vec<Scope> {
        match &self.overlay {
            Some(overlay) => vec![Scope::Overlay(overlay.kind())],
            None => {
                let mut scopes = self.pane_scopes();
                scopes.push(Scope::Everywhere);
                scopes
            }
        }
    }

    /// The focused pane's scopes: its pattern's keys before its own.
    pub fn pane_scopes(&self) -> Vec<Scope> {
        let unit = self.run().and_then(|slot| slot.unit.keys());
        match (self.focus, unit) {
            (PaneId::Pattern, Some(keys)) => vec![keys, Scope::Pane(PaneId::Pattern)],
            (pane, _) => vec![Scope::Pane(pane)],
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        self.notice = None;
        // Text inputs take every key but their own commands.
        let typed = match &mut self.overlay {
            Some(Overlay::Goal(editor)) => {
                match keymap::lookup(Scope::Overlay(OverlayKind::Goal), &key) {
                    Some(action) => return self.update(action),
                    None => editor.input(key),
                };
                return Vec::new();
            }
            Some(Overlay::Jump(text)) => {
                match keymap::lookup(Scope::Overlay(OverlayKind::Jump), &key) {
                    Some(action) => return self.update(action),
                    None => {
                        let room = text.len() < 6;
                        type_into(text, &key, |c| c.is_ascii_digit() && room);
                    }
                }
                return Vec::new();
            }
            Some(Overlay::Filter(text)) => {
                match keymap::lookup(Scope::Overlay(OverlayKind::Filter), &key) {
                    Some(action) => return self.update(action),
                    None => type_into(text, &key, |_| true),
                }
                text.clone()
            }
            _ => return self.command(key),
        };
        if let Some(slot) = self.run_mut() {
            slot.ui.log.set_filter(Some(typed), &slot.state);
        }
        Vec::new()
    }

    /// A key outside text inputs: a replay's own keys come before its
    /// panes' and the global ones.
    fn command(&mut self, key: KeyEvent) -> Vec<Effect> {
        if self.overlay.is_none()
            && self.run().is_some_and(|slot| slot.replay.is_some())
            && let Some(action) = keymap::lookup(Scope::Replay, &key)
        {
            self.playback(action);
            return Vec::new();
        }
        match keymap::lookup_in(&self.scopes(), &key) {
            Some(action) => self.update(action),
            None => Vec::new(),
        }
    }

    pub fn mouse(&mut self, mouse: MouseEvent, layout: &super::layout::Areas) -> Vec<Effect> {
        let action = match mouse.kind {
            MouseEventKind::ScrollUp => Action::Up,
            MouseEventKind::ScrollDown => Action::Down,
            _ => return Vec::new(),
        };
        if self.overlay.is_some() {
            return self.update(action);
        }
        let mut effects = Vec::new();
        if let Some(pane) = layout.pane_at(mouse.column, mouse.row) {
            self.focus = pane;
            let steps = if pane == PaneId::Log { 3 } else { 1 };
            for _ in 0..steps {
                effects.extend(self.update(action));
            }
        }
        effects
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
            _ => None,
        }
    }

    /// Decide what `action` does: change the screen's state, and return
    /// what the world must do.
    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        if let Some(why) = self.unavailable(action) {
            self.notice = Some(why.to_string());
            return Vec::new();
        }
        if action == Action::Quit {
            vec![Effect::Quit]
        } else if self.overlay.is_some() {
            self.update_overlay(action)
        } else {
            self.update_panes(action)
        }
    }

    fn update_overlay(&mut self, action: Action) -> Vec<Effect> {
        match (&mut self.overlay, action) {
            (Some(overlay), Action::Close) => {
                if matches!(overlay, Overlay::Filter(_))
                    && let Some(slot) = self.runs.selected_mut()
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
                let count = self.runs.selected().map_or(0, |s| s.state.flags.len());
                *selected = (*selected + 1).min(count.saturating_sub(1));
            }
            (Some(Overlay::Picker { selected }), Action::Down) => {
                *selected = (*selected + 1).min(self.catalog.len().saturating_sub(1));
            }
            (Some(Overlay::Flags { selected }), Action::Toggle) => {
                let selected = *selected;
                return self.toggle_flag(selected);
            }
            (Some(Overlay::Picker { selected }), Action::Confirm) => {
                let entry = self.catalog.get(*selected).cloned();
                match entry.map(|e| (e.item, e.origin)) {
                    Some((Item::Scenario(Ok(scenario)), origin)) => {
                        self.overlay = None;
                        let source = (!origin.starts_with("built-in")).then_some(origin);
                        return vec![Effect::Launch(Launch::of(
                            scenario,
                            source,
                            Overrides::default(),
                        ))];
                    }
                    Some((Item::Scenario(Err(e)), _)) => self.notice = Some(first_line(&e)),
                    Some((Item::Recording(path), _)) => return vec![Effect::OpenRecording(path)],
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
            _ => {}
        }
        Vec::new()
    }

    fn update_panes(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Action::NewRun => self.open_picker(),
            Action::TogglePause => {
                return self.control(|slot| match slot.state.activity {
                    Activity::Paused { .. } => Control::Resume,
                    _ if slot.ui.pause_requested => Control::Resume,
                    _ => Control::Pause,
                });
            }
            Action::Step => return self.control(|_| Control::Step),
            Action::Flags => self.overlay = Some(Overlay::Flags { selected: 0 }),
            Action::EditGoal => {
                let goal = self.run().map(|slot| {
                    slot.next_goal
                        .clone()
                        .or_else(|| slot.state.info.as_ref().map(|i| i.goal.clone()))
                        .unwrap_or_default()
                });
                self.overlay = Some(Overlay::goal_editor(&goal.unwrap_or_default()));
            }
            Action::Restart => {
                if let Some(slot) = self.run() {
                    return vec![Effect::Restart {
                        run: slot.state.run,
                        launch: Launch::again(slot),
                    }];
                }
            }
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
            Action::PrevRun => self.runs.select_previous(),
            Action::NextRun => self.runs.select_next(),
            Action::Details => self.open_details(),
            Action::Filter => {
                let current = self
                    .run()
                    .and_then(|s| s.ui.log.filter.clone())
                    .unwrap_or_default();
                self.overlay = Some(Overlay::Filter(current));
            }
            Action::Left | Action::Right if self.focus == PaneId::Runs => {
                return self.update(if action == Action::Left {
                    Action::PrevRun
                } else {
                    Action::NextRun
                });
            }
            other => {
                let focus = self.focus;
                if let Some(slot) = self.run_mut() {
                    slot.ui.navigate(focus, other, &slot.state, slot.unit);
                }
            }
        }
        Vec::new()
    }

    /// Ask the selected run's engine for `command`; the screen says a pause
    /// is coming until the run reaches its gate.
    fn control(&mut self, command: impl FnOnce(&RunSlot) -> Control) -> Vec<Effect> {
        let Some(slot) = self.run_mut() else {
            return Vec::new();
        };
        let command = command(slot);
        match &command {
            Control::Pause | Control::Step => slot.ui.pause_requested = true,
            Control::Resume => slot.ui.pause_requested = false,
            _ => {}
        }
        vec![Effect::Control {
            run: slot.state.run,
            command,
        }]
    }

    /// Turn flag `index` of the selected run: live from its next gate, or,
    /// for a run no engine drives any more, at its restart.
    fn toggle_flag(&mut self, index: usize) -> Vec<Effect> {
        let Some(slot) = self.run_mut() else {
            return Vec::new();
        };
        let Some(flag) = slot.state.flags.get(index) else {
            return Vec::new();
        };
        let name = flag.name.clone();
        let on = !slot.ui.pending_flag(&name).unwrap_or(flag.on);
        if slot.has_engine() && slot.is_live() {
            return vec![Effect::Control {
                run: slot.state.run,
                command: Control::SetFlag { name, on },
            }];
        }
        slot.ui.pending_flags.retain(|(n, _)| n != &name);
        slot.ui.pending_flags.push((name, on));
        self.notice = Some("the run has finished: r restarts it with this flag".into());
        Vec::new()
    }

    /// Open the JSON of what the focused pane has selected.
    fn open_details(&mut self) {
        let Some(slot) = self.run() else { return };
        let (state, ui) = (&slot.state, &slot.ui);
        let value = match self.focus {
            PaneId::Pattern => slot.unit.details(&state.pattern, &ui.pattern),
            PaneId::Log => ui
                .log
                .selected_event(state)
                .map(|event| serde_json::to_value(&*event).unwrap_or_default()),
            PaneId::Result => state.outcome.as_ref().map(|o| o.result.clone()),
            PaneId::Resilience => {
                let tools = state.resilience.ordered();
                tools
                    .get(ui.gateway_tools.row(tools.len()))
                    .map(|tool| inspect::tool_json(tool, slot.clock_ms()))
            }
            PaneId::Runs => None,
        };
        if let Some(value) = value {
            self.overlay = Some(Overlay::Details {
                scroll: 0,
                text: serde_json::to_string_pretty(&value).unwrap_or_default(),
            });
        }
    }

    /// Whether a redraw is due without new input: a live run's clock moves.
    pub fn animating(&self) -> bool {
        self.runs
            .iter()
            .any(|s| s.is_live() && !matches!(s.state.activity, Activity::Paused { .. }))
    }
}

/// Type `key` into `text` when it is a character `allowed` takes, or
/// delete the last one on Backspace.
fn type_into(text: &mut String, key: &KeyEvent, allowed: impl Fn(char) -> bool) {
    match key.code {
        KeyCode::Char(c) if allowed(c) => text.push(c),
        KeyCode::Backspace => {
            text.pop();
        }
        _ => {}
    }
}
