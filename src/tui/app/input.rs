//! Input: a key or a mouse wheel becomes an action, looked up in the key
//! table in the scopes that apply (an open overlay's, else the focused
//! pane's with its pattern's, then the global ones); text inputs (the goal
//! editor, the log filter, a replay's jump, a search, the path to write
//! to) take the other keys as text; when quitting is to be confirmed, any
//! other key than the confirmation cancels.

use super::App;
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Action, OverlayKind, PaneId, Scope};
use crate::tui::layout::Areas;
use crate::tui::view_state::Overlay;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};

impl App {
    /// Where a key is looked up, first to last.
    pub(crate) fn scopes(&self) -> Vec<Scope> {
        match &self.overlay {
            Some(overlay) => vec![Scope::Overlay(overlay.kind())],
            None => {
                let mut scopes = self.pane_scopes();
                if self.steer_keys() {
                    scopes.push(Scope::WatchSteer);
                }
                scopes.push(Scope::Everywhere);
                scopes
            }
        }
    }

    /// Whether a watch's steering keys apply: a watched run on screen, or
    /// none yet on a watch that steers (every new run may be held).
    pub(crate) fn steer_keys(&self) -> bool {
        match self.run() {
            // A program launched here is stopped with the hook's `x`.
            Some(run) => run.watched_trace().is_some() || (run.is_program() && run.is_live()),
            None => self.watching.as_ref().is_some_and(|w| w.steer.is_some()),
        }
    }

    /// The focused pane's scopes: its pattern's keys before its own.
    pub(crate) fn pane_scopes(&self) -> Vec<Scope> {
        let unit = self.run().and_then(|slot| slot.unit.keys(&slot.scenario));
        match (self.focus, unit) {
            (PaneId::Pattern, Some(keys)) => vec![keys, Scope::Pane(PaneId::Pattern)],
            (pane, _) => vec![Scope::Pane(pane)],
        }
    }

    /// A key: what the app decided on it, with what its replays now need
    /// read from their files. Esc while the screen waits on a reading
    /// stops the wait first.
    pub fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.code == KeyCode::Esc && self.waiting_line().is_some() {
            self.abandon();
            return Vec::new();
        }
        // Ctrl-C quits from anywhere. Raw mode makes it a key rather than
        // a signal, and a dialog that takes text would take it as one.
        if is_ctrl_c(&key) && !matches!(self.overlay, Some(Overlay::Quit { .. })) {
            self.notice = None;
            return self.update(Action::Quit);
        }
        let mut effects = self.take_key(key);
        effects.extend(self.replay_wants());
        self.runs.acknowledge_shown();
        effects
    }

    fn take_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        self.notice = None;
        // A restart to confirm is confirmed by `r` alone.
        let asked = self.restart_asked.take();
        if asked.is_some() && self.overlay.is_none() {
            let action = keymap::lookup(Scope::Everywhere, &key);
            if action == Some(Action::Restart) {
                self.restart_asked = asked;
            }
        }
        // Text inputs take every key but their own commands.
        let typed = match &mut self.overlay {
            // Only `y` allows a scenario's programs: any other key cancels.
            Some(Overlay::Trust(_)) => {
                let yes = keymap::lookup(Scope::Overlay(OverlayKind::Trust), &key)
                    == Some(Action::Confirm);
                return self.answer_trust(yes);
            }
            Some(Overlay::Decide(prompt)) => {
                match keymap::lookup(Scope::Overlay(OverlayKind::Decide), &key) {
                    Some(action) => return self.update(action),
                    None => {
                        prompt.note.input(key);
                    }
                };
                return Vec::new();
            }
            Some(Overlay::Steer(_)) => return self.steer_dialog_key(key),
            // Only `y` stops the program: any other key keeps it running.
            Some(Overlay::StopProgram { run }) => {
                let run = *run;
                let yes = keymap::lookup(Scope::Overlay(OverlayKind::StopProgram), &key)
                    == Some(Action::Confirm);
                return self.answer_stop_program(run, yes);
            }
            Some(Overlay::Fork(_)) => return self.fork_dialog_key(key),
            Some(Overlay::ProgramFork(_)) => return self.program_fork_key(key),
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
            Some(Overlay::Export(prompt)) => {
                match keymap::lookup(Scope::Overlay(OverlayKind::Export), &key) {
                    Some(action) => return self.update(action),
                    None => type_into(&mut prompt.path, &key, |c| !c.is_control()),
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
            Some(Overlay::Quit { .. }) => {
                let action = keymap::lookup(Scope::Overlay(OverlayKind::Quit), &key);
                return self.update(action.unwrap_or(Action::Close));
            }
            Some(overlay) if overlay.kind() == OverlayKind::Search => {
                if let Some(action) = keymap::lookup(Scope::Overlay(OverlayKind::Search), &key) {
                    return self.update(action);
                }
                if let Some(query) = overlay.query_mut() {
                    type_into(query, &key, |_| true);
                }
                self.typed();
                return Vec::new();
            }
            _ => return self.command(key),
        };
        if let Some(slot) = self.run_mut() {
            slot.ui.log.set_filter(Some(typed), &slot.state);
        }
        Vec::new()
    }

    /// A key in a replay's fork dialog: ←/→ on the gate or the answer
    /// row pick; in a field they move its cursor, which takes the text.
    fn fork_dialog_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(Overlay::Fork(prompt)) = &mut self.overlay else {
            return Vec::new();
        };
        let step = match key.code {
            KeyCode::Left => Some(false),
            KeyCode::Right => Some(true),
            _ => None,
        };
        if step.is_some_and(|forward| prompt.step_choice(forward)) {
            return Vec::new();
        }
        match keymap::lookup(Scope::Overlay(OverlayKind::Fork), &key) {
            Some(action) => return self.update(action),
            None => {
                if let Some(field) = prompt.field_mut() {
                    field.input(key);
                }
            }
        };
        Vec::new()
    }

    /// A key in a steering dialog: its own keys, and letters typed into a
    /// decision's note or a stop's reason.
    fn steer_dialog_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(Overlay::Steer(dialog)) = &mut self.overlay else {
            return Vec::new();
        };
        match keymap::lookup(Scope::Overlay(dialog.kind()), &key) {
            Some(action) => return self.update(action),
            None if matches!(
                dialog.kind(),
                OverlayKind::Decide | OverlayKind::StopRun | OverlayKind::Break
            ) =>
            {
                match key.code {
                    KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                        dialog.type_note(Some(c));
                    }
                    KeyCode::Backspace => dialog.type_note(None),
                    _ => {}
                }
            }
            None => {}
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
            return self.playback(action);
        }
        match keymap::lookup_in(&self.scopes(), &key) {
            Some(action) => self.update(action),
            None => Vec::new(),
        }
    }

    pub(crate) fn mouse(&mut self, mouse: MouseEvent, layout: &Areas) -> Vec<Effect> {
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
}

fn is_ctrl_c(key: &KeyEvent) -> bool {
    key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL)
}

/// Type `key` into `text` when it is a character `allowed` takes, or
/// delete the last one on Backspace.
fn type_into(text: &mut String, key: &KeyEvent, allowed: impl Fn(char) -> bool) {
    let (ctrl, alt) = (
        key.modifiers.contains(KeyModifiers::CONTROL),
        key.modifiers.contains(KeyModifiers::ALT),
    );
    // Ctrl and Alt together is AltGr on some terminals, which types.
    let held = ctrl != alt;
    match key.code {
        // Ctrl-U clears the line, as a shell's prompt does; no other key
        // held with Ctrl or Alt types its letter.
        KeyCode::Char('u') if ctrl && !alt => text.clear(),
        KeyCode::Char(c) if allowed(c) && !held => text.push(c),
        KeyCode::Backspace => {
            text.pop();
        }
        _ => {}
    }
}

#[cfg(test)]
mod typing_tests {
    use super::type_into;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    #[test]
    fn ctrl_u_clears_the_line_and_no_ctrl_or_alt_key_types_its_letter() {
        let mut path = String::from("run.json");
        let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
        type_into(&mut path, &ctrl('w'), |_| true);
        type_into(
            &mut path,
            &KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT),
            |_| true,
        );
        assert_eq!(path, "run.json");
        type_into(&mut path, &ctrl('u'), |_| true);
        assert_eq!(path, "");
        type_into(
            &mut path,
            &KeyEvent::new(KeyCode::Char('A'), KeyModifiers::SHIFT),
            |_| true,
        );
        assert_eq!(path, "A", "a capital letter is typed");
    }
}
