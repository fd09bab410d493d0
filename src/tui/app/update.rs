//! What an action does: change the screen's state (focus, overlays,
//! selections, the notice) and say what the world must do, as effects.

use super::App;
use super::done::first_line;
use crate::control::Control;
use crate::tui::catalog::{Entry, Item};
use crate::tui::effect::Effect;
use crate::tui::keymap::{Action, OverlayKind, PaneId};
use crate::tui::overlays::details::DetailsView;
use crate::tui::runs::{Launch, Overrides};
use crate::tui::slot::RunSlot;
use crate::tui::state::Activity;
use crate::tui::view_state::Overlay;

/// Whether `slot` waits for a person's answer to its question.
fn waits_for_a_person(slot: &RunSlot) -> bool {
    slot.is_live() && slot.state.asked.as_ref().is_some_and(|e| e.waiting())
}

impl App {
    /// Why `action` cannot be done now, if it cannot.
    pub(crate) fn unavailable(&self, action: Action) -> Option<&'static str> {
        let run = self.run();
        let live = run.is_some_and(RunSlot::is_live);
        let watched_live = run.is_some_and(|r| r.is_watched() && r.replay.is_none());
        match action {
            // A program launched here is stopped at its process group.
            Action::StopRun if run.is_some_and(|r| r.is_program() && r.is_live()) => None,
            // A watched run's hook is steered with the keys a run of
            // Conclave's takes (docs/steer.md).
            Action::TogglePause
            | Action::Step
            | Action::Flags
            | Action::Decide
            | Action::StopRun
                if watched_live =>
            {
                self.unsteerable(action)
            }
            Action::StopRun => Some("only a watched run's hook is stopped with x"),
            Action::HoldAll | Action::Break
                if self.watching.as_ref().is_none_or(|w| w.steer.is_none()) =>
            {
                Some("only a watch steers runs")
            }
            // A launched program's recording forks at a model call: its
            // file says whether it can (docs/fork_and_cassettes.md).
            Action::Fork if run.is_some_and(super::program_fork::may_offer) => None,
            // Another framework's run runs where it was started; its
            // replay still plays again from the start (`r`).
            Action::Fork | Action::EditGoal | Action::Flags
                if run.is_some_and(RunSlot::is_watched) =>
            {
                Some("a watched run is another framework's: it cannot be forked or changed here")
            }
            Action::Restart if run.is_some_and(|r| r.is_watched() && r.replay.is_none()) => {
                Some("a watched run is another framework's: it cannot be forked or changed here")
            }
            Action::TogglePause | Action::Step if run.is_none() => Some("no run"),
            Action::TogglePause | Action::Step if !live => Some("the run has finished"),
            // At a person's decision the run waits for the answer alone.
            Action::TogglePause | Action::Step if run.is_some_and(waits_for_a_person) => {
                Some("the run waits for a person's answer, not a resume: d answers")
            }
            Action::Decide if run.is_none_or(|r| !super::decide::asks(r)) => Some(match run {
                Some(r) if waits_for_a_person(r) && r.replay.is_some() => {
                    "a replay shows the answer as recorded"
                }
                Some(r) if waits_for_a_person(r) => "the run asks a person where its engine runs",
                _ => "this run's table asks nothing now",
            }),
            Action::Flags if run.is_some_and(|r| r.state.flags.is_empty()) => {
                Some("this scenario has no flags")
            }
            Action::Flags | Action::EditGoal | Action::Restart if run.is_none() => Some("no run"),
            Action::Flags | Action::EditGoal if run.is_some_and(|r| r.replay.is_some()) => {
                Some("a replay shows the run as recorded")
            }
            Action::EditGoal | Action::Restart if run.is_some_and(RunSlot::is_attached) => {
                Some("an attached run is restarted on its own engine")
            }
            Action::Focus(n) if PaneId::from_number(n).is_none() => {
                Some("no such pane for this pattern")
            }
            Action::PrevRun | Action::NextRun if self.runs.len() < 2 => Some("only one run"),
            Action::Zoom | Action::Unzoom => self.zoom_unavailable(action),
            Action::Pin | Action::Compare | Action::Write if run.is_none() => Some("no run"),
            Action::Compare if self.runs.pinned().is_none() => Some("no run pinned"),
            Action::Sweep if self.sweep.is_none() => Some("no sweep"),
            Action::Attend if crate::tui::panes::attention::needing(&self.runs).is_empty() => {
                Some("no other run needs attention")
            }
            Action::Fork => super::fork::unforkable(run),
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
        if let Some(effects) = self.program_key(action) {
            return effects;
        }
        if action == Action::Quit {
            // Quitting cancels live runs, and lets held watched runs go:
            // asked first.
            if self.live_runs() || !self.held().is_empty() {
                let under = self.overlay.take().map(Box::new);
                self.overlay = Some(Overlay::Quit { under });
                return Vec::new();
            }
            vec![Effect::Quit]
        } else if self
            .overlay
            .as_ref()
            .is_some_and(|o| o.kind() == OverlayKind::Search)
        {
            self.search_key(action);
            Vec::new()
        } else if self.overlay.is_some() {
            self.update_overlay(action)
        } else {
            self.update_panes(action)
        }
    }

    fn update_overlay(&mut self, action: Action) -> Vec<Effect> {
        let screen = self.screen;
        let picker_room = self.above_footer(screen);
        match (&mut self.overlay, action) {
            (Some(Overlay::Decide(_)), _) => return self.update_decide(action),
            (Some(Overlay::Steer(_)), _) => return self.update_steer(action),
            (Some(Overlay::Fork(_)), _) => return self.update_fork(action),
            (Some(Overlay::ProgramFork(_)), _) => return self.update_program_fork(action),
            (Some(Overlay::Sweep), _) => return self.update_sweep(action),
            (Some(Overlay::Trust(_)), Action::Close) => return self.answer_trust(false),
            (Some(Overlay::Export(_)), Action::Close) => {
                if let Some(Overlay::Export(prompt)) = self.overlay.take() {
                    self.overlay = prompt.under;
                }
            }
            (Some(Overlay::Export(_)), Action::Confirm) => return self.confirm_write(),
            (Some(Overlay::Compare { .. } | Overlay::Details(_)), Action::Copy) => {
                return self.copy();
            }
            (Some(Overlay::Compare { .. }), Action::Write) => self.write(),
            (
                Some(Overlay::Compare { .. }),
                Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Top
                | Action::Follow,
            ) => self.scroll_comparison(action),
            (Some(Overlay::Quit { .. }), Action::Confirm) => return vec![Effect::Quit],
            (Some(Overlay::Quit { under }), _) => {
                self.overlay = under.take().map(|under| *under);
                self.notice = Some("not quitting: the runs go on".into());
            }
            (Some(Overlay::Details(details)), Action::Close) if !details.query.is_empty() => {
                details.clear_search();
            }
            (Some(Overlay::Details(_)), Action::Confirm) => self.overlay = None,
            (Some(Overlay::Details(details)), Action::Search) => {
                details.typing = true;
                details.edited = false;
            }
            (Some(Overlay::Details(details)), _) if action != Action::Close => {
                details.navigate(action, screen);
            }
            (Some(Overlay::Picker(picker)), Action::Close) if !picker.filter.is_empty() => {
                picker.filter.clear();
            }
            (Some(Overlay::Picker(picker)), Action::Search) => picker.typing = true,
            (Some(Overlay::Picker(picker)), Action::Confirm) => {
                let entry = picker.selected(&self.catalog).cloned();
                return self.pick(entry);
            }
            (Some(Overlay::Picker(picker)), _) if action != Action::Close => {
                picker.navigate(action, &self.catalog, picker_room);
            }
            (Some(overlay), Action::Close) => {
                if matches!(overlay, Overlay::Filter(_))
                    && let Some(slot) = self.runs.selected_mut()
                {
                    slot.ui.log.set_filter(None, &slot.state);
                }
                self.overlay = None;
            }
            (
                Some(Overlay::Help { .. }),
                Action::Up | Action::Down | Action::PageUp | Action::PageDown,
            ) => {
                self.scroll_help(action);
            }
            (Some(Overlay::Flags { selected }), Action::Up) => {
                *selected = selected.saturating_sub(1);
            }
            (Some(Overlay::Flags { selected }), Action::Down) => {
                let count = self.runs.selected().map_or(0, |s| s.state.flags.len());
                *selected = (*selected + 1).min(count.saturating_sub(1));
            }
            (Some(Overlay::Flags { selected }), Action::Toggle) => {
                let selected = *selected;
                return self.toggle_flag(selected);
            }
            (Some(Overlay::Goal(editor)), Action::Confirm) => {
                let goal = editor.lines().join("\n");
                self.save_goal(goal);
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

    /// The picker's entry chosen: launch the scenario, open the recording
    /// or attach the live run; a scenario that cannot launch says why.
    fn pick(&mut self, entry: Option<Entry>) -> Vec<Effect> {
        match entry.map(|e| (e.item, e.origin)) {
            Some((Item::Scenario(Ok(scenario)), origin)) => {
                self.overlay = None;
                let source = (!origin.starts_with("built-in")).then_some(origin);
                self.start(Launch::of(scenario, source, Overrides::default()))
            }
            Some((Item::Scenario(Err(e)), _)) => {
                self.notice = Some(first_line(&e));
                Vec::new()
            }
            Some((Item::Recording(recorded), _)) => self.open_recording(&recorded.path),
            Some((Item::Program(program), _)) => self.launch_program(program),
            Some((Item::Remote(live), _)) => {
                self.overlay = None;
                self.attach(&live)
            }
            None => Vec::new(),
        }
    }

    /// The edited goal, kept for the selected run's next restart.
    fn save_goal(&mut self, goal: String) {
        self.overlay = None;
        if let Some(slot) = self.run_mut() {
            slot.next_goal = Some(goal);
        }
        self.notice = Some("goal saved: r restarts the run with it".into());
    }

    fn update_panes(&mut self, action: Action) -> Vec<Effect> {
        if matches!(action, Action::HoldAll | Action::Break) {
            return self.steer_all(action);
        }
        let steering = matches!(
            action,
            Action::TogglePause | Action::Step | Action::Flags | Action::Decide | Action::StopRun
        );
        if steering && self.run().is_some_and(|r| r.watched_trace().is_some()) {
            return self.steer_key(action);
        }
        match action {
            Action::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Action::NewRun => return self.open_picker(),
            Action::TogglePause => {
                return self.control(|slot| match slot.state.activity {
                    Activity::Paused { .. } => Control::Resume,
                    _ if slot.ui.pause_requested => Control::Resume,
                    _ => Control::Pause,
                });
            }
            Action::Step => return self.control(|_| Control::Step),
            Action::Flags => self.overlay = Some(Overlay::Flags { selected: 0 }),
            Action::Decide => self.open_decide(),
            Action::EditGoal => self.open_goal_editor(),
            Action::Restart => return self.restart(),
            Action::Sweep => self.overlay = Some(Overlay::Sweep),
            Action::Pin => self.toggle_pin(),
            Action::Compare => return self.compare_with_pinned(),
            Action::Copy => return self.copy(),
            Action::Write => self.write(),
            Action::FocusNext => self.focus = self.focus.next(1),
            Action::FocusPrev => self.focus = self.focus.next(PaneId::ALL.len() - 1),
            Action::Focus(n) => {
                if let Some(pane) = PaneId::from_number(n) {
                    self.focus = pane;
                }
            }
            Action::Attend => {
                if let Some(first) = crate::tui::panes::attention::needing(&self.runs).first() {
                    self.runs.selected = first.index;
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
            Action::Search => self.open_search(),
            Action::Zoom => self.zoomed = !self.zoomed,
            Action::Unzoom => self.zoomed = false,
            other if self.focus == PaneId::Result => self.scroll_result(other),
            Action::Left | Action::Right if self.focus == PaneId::Runs => {
                return self.update(if action == Action::Left {
                    Action::PrevRun
                } else {
                    Action::NextRun
                });
            }
            Action::Top | Action::Bottom if self.focus == PaneId::Runs => {
                if !self.runs.is_empty() {
                    self.runs.selected = match action {
                        Action::Top => 0,
                        _ => self.runs.len() - 1,
                    };
                }
            }
            // Esc clears a search or a filter first, then unzooms.
            Action::Close if self.focus == PaneId::Runs => {
                if self.runs_search.take().is_none() {
                    self.zoomed = false;
                }
            }
            other => {
                let focus = self.focus;
                let page = self.page(focus);
                let zoomed = self.zoomed;
                if let Some(slot) = self.run_mut() {
                    let before = (other == Action::Close && zoomed).then(|| slot.ui.clone());
                    slot.ui.navigate(focus, other, &slot.state, slot.unit, page);
                    if before.is_some_and(|before| before == slot.ui) {
                        self.zoomed = false;
                    }
                }
            }
        }
        Vec::new()
    }

    /// Move the help's view, never past its last line.
    fn scroll_help(&mut self, action: Action) {
        let last = crate::tui::overlays::help::max_scroll(self, self.screen);
        // A page is the box's rows less one kept for context.
        let page = self.screen.height.saturating_sub(4).max(1);
        if let Some(Overlay::Help { scroll }) = &mut self.overlay {
            *scroll = match action {
                Action::Up => scroll.saturating_sub(1),
                Action::PageUp => scroll.saturating_sub(page),
                Action::PageDown => scroll.saturating_add(page),
                _ => scroll.saturating_add(1),
            }
            .min(last);
        }
    }

    /// Open the JSON of what the focused pane has selected.
    fn open_details(&mut self) {
        // A pattern's item may open a pane of its own (a graph's team
        // node, its team's pane) instead of its JSON.
        if self.focus == PaneId::Pattern
            && let Some(slot) = self.run_mut()
            && slot.unit.open(&slot.state.pattern, &mut slot.ui.pattern)
        {
            return;
        }
        if let Some(value) = self.selected_json() {
            self.overlay = Some(Overlay::Details(DetailsView::new(
                &serde_json::to_string_pretty(&value).unwrap_or_default(),
            )));
        }
    }
}
