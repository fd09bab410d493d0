//! What an action does: change the screen's state (focus, overlays,
//! selections, the notice) and say what the world must do, as effects.

use super::App;
use super::carry::first_line;
use crate::control::Control;
use crate::tui::catalog::Item;
use crate::tui::effect::Effect;
use crate::tui::inspect;
use crate::tui::keymap::{Action, PaneId};
use crate::tui::runs::{Launch, Overrides};
use crate::tui::slot::RunSlot;
use crate::tui::state::Activity;
use crate::tui::view_state::Overlay;

impl App {
    /// Why `action` cannot be done now, if it cannot.
    pub(crate) fn unavailable(&self, action: Action) -> Option<&'static str> {
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
            (Some(Overlay::Trust(_)), Action::Close) => return self.answer_trust(false),
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
            (Some(Overlay::Trust(_)), Action::Confirm) => return self.answer_trust(true),
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
}
