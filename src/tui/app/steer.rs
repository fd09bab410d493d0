//! Steering a watched run whose hook talks to this watch (docs/steer.md),
//! with the keys Conclave's own runs take: space pauses at the next gate
//! and runs on, `s` steps one gate, `f` the run's flags, `d` a waiting
//! approval or question, `x` a stop (asked first). What the keys decide
//! goes to the watch's steering as an effect; its answer comes back when
//! the steering lists the run again. A new approval or question of the
//! run on screen opens its dialog by itself, unless put off (Esc).

use super::App;
use crate::span::TraceId;
use crate::tui::effect::Effect;
use crate::tui::keymap::Action;
use crate::tui::overlays::steer::{
    APPROVE_EDITED, APPROVE_FOR_THE_RUN, REJECT, SteerDialog, options_of,
};
use crate::tui::view_state::Overlay;
use crate::watch::steer::words::gate_words;
use crate::watch::steer::{Ask, ControlOp, RunView};

impl App {
    /// The hooked run on screen: its trace and how the steering lists it.
    pub(crate) fn steered(&self) -> Option<(TraceId, &RunView)> {
        let trace = self.run()?.watched_trace()?;
        let view = self.watching.as_ref()?.view(trace)?;
        Some((trace, view))
    }

    /// Why a steering key cannot act on the run on screen, when it is a
    /// watched run and the key cannot.
    pub(crate) fn unsteerable(&self, action: Action) -> Option<&'static str> {
        let (_, view) = match self.steered() {
            Some(steered) => steered,
            None if self.run().is_some_and(|r| r.replay.is_some()) => {
                return Some("a replay shows the run as recorded");
            }
            None if self.run().is_some_and(|r| !r.is_live()) => {
                return Some("the run has finished");
            }
            None => return Some("this run has no steering hook (docs/steer.md)"),
        };
        match action {
            _ if view.stopped.is_some() => Some("the run was stopped"),
            Action::Flags if view.flags.is_empty() => Some("this run declared no flags"),
            Action::Decide if first_decision(view, &[]).is_none() => {
                Some("nothing in this run waits for a person")
            }
            _ => None,
        }
    }

    /// A steering key on the hooked run on screen.
    pub(super) fn steer_key(&mut self, action: Action) -> Vec<Effect> {
        let Some((trace, view)) = self.steered() else {
            return Vec::new();
        };
        let op = |op: ControlOp| Effect::Steer {
            trace: Some(trace),
            op,
        };
        match action {
            Action::TogglePause if view.paused => vec![op(ControlOp::RunOn)],
            Action::TogglePause => vec![op(ControlOp::Pause)],
            Action::Step if view.paused => vec![op(ControlOp::Step { gates: 1 })],
            Action::Step => vec![op(ControlOp::Pause), op(ControlOp::Step { gates: 1 })],
            Action::Flags => {
                self.overlay = Some(Overlay::Steer(SteerDialog::Flags { trace, selected: 0 }));
                Vec::new()
            }
            Action::Decide => {
                if let Some(watching) = self.watching.as_mut() {
                    watching.put_off.clear();
                }
                self.offer_decision();
                Vec::new()
            }
            Action::StopRun => {
                let reason = String::new();
                self.overlay = Some(Overlay::Steer(SteerDialog::Stop { trace, reason }));
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// The watched runs a person holds (paused, or waiting for them), as
    /// the quit dialog names them.
    pub(crate) fn held(&self) -> Vec<String> {
        let Some(steer) = self.watching.as_ref().and_then(|w| w.steer.as_ref()) else {
            return Vec::new();
        };
        let mut held: Vec<String> = steer
            .values()
            .filter(|v| v.stopped.is_none() && (v.paused || !v.waiting.is_empty()))
            .map(|v| {
                let waits = v
                    .waiting
                    .iter()
                    .find(|w| !matches!(w.ask, Ask::Gate { .. }));
                match waits {
                    Some(w) => format!("{} waits: {}", short(&v.trace_id), gate_words(&w.ask)),
                    None => format!("{} paused", short(&v.trace_id)),
                }
            })
            .collect();
        held.sort();
        held
    }

    /// `P` and `b`: every run held (again: run on), the breakpoints.
    pub(super) fn steer_all(&mut self, action: Action) -> Vec<Effect> {
        let Some(watching) = self.watching.as_ref() else {
            return Vec::new();
        };
        if action == Action::HoldAll {
            let op = if watching.holds_new {
                ControlOp::RunOn
            } else {
                ControlOp::Pause
            };
            return vec![Effect::Steer { trace: None, op }];
        }
        // Typed, or the gate the run on screen is held at.
        let name = self
            .steered()
            .and_then(|(_, view)| {
                view.waiting.iter().find_map(|w| match &w.ask {
                    Ask::Gate { name, .. } => Some(name.clone()),
                    _ => None,
                })
            })
            .unwrap_or_default();
        let trace = self.run().and_then(|r| r.watched_trace()).unwrap_or(0);
        self.overlay = Some(Overlay::Steer(SteerDialog::Break { trace, name }));
        Vec::new()
    }

    /// Open the decision dialog for the oldest approval or question of
    /// the run on screen not put off, unless a dialog is open.
    pub(crate) fn offer_decision(&mut self) {
        if self.overlay.is_some() {
            return;
        }
        let put_off: Vec<u64> = self
            .watching
            .as_ref()
            .map(|w| w.put_off.iter().copied().collect())
            .unwrap_or_default();
        if let Some((trace, view)) = self.steered()
            && let Some(id) = first_decision(view, &put_off)
        {
            self.overlay = Some(Overlay::Steer(SteerDialog::Decide {
                trace,
                id,
                choice: 0,
                note: String::new(),
            }));
        }
    }

    /// A key in a steering dialog.
    pub(super) fn update_steer(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Steer(dialog)) = &self.overlay else {
            return Vec::new();
        };
        let dialog = dialog.clone();
        let trace = dialog.trace();
        let view = self.watching.as_ref().and_then(|w| w.view(trace)).cloned();
        match dialog {
            SteerDialog::Flags { selected, .. } => {
                let flags = view.map(|v| v.flags).unwrap_or_default();
                let last = flags.len().saturating_sub(1);
                let selected = match action {
                    Action::Up => selected.saturating_sub(1),
                    Action::Down => (selected + 1).min(last),
                    Action::Toggle => {
                        let Some(flag) = flags.get(selected) else {
                            return Vec::new();
                        };
                        let op = ControlOp::SetFlag {
                            name: flag.name.clone(),
                            on: !flag.on,
                        };
                        return vec![Effect::Steer {
                            trace: Some(trace),
                            op,
                        }];
                    }
                    _ => {
                        self.overlay = None;
                        return Vec::new();
                    }
                };
                self.overlay = Some(Overlay::Steer(SteerDialog::Flags { trace, selected }));
                Vec::new()
            }
            SteerDialog::Decide {
                id, choice, note, ..
            } => self.update_held_decision(action, trace, view, (id, choice, note)),
            SteerDialog::Break { name, .. } => {
                self.overlay = None;
                let name = name.trim().to_string();
                if action != Action::Confirm || name.is_empty() {
                    return Vec::new();
                }
                let on = !self
                    .watching
                    .as_ref()
                    .is_some_and(|w| w.breaks.contains(&name));
                let op = ControlOp::SetBreak { name, on };
                vec![Effect::Steer { trace: None, op }]
            }
            SteerDialog::Stop { reason, .. } => {
                self.overlay = None;
                if action == Action::Confirm {
                    let reason = reason.trim();
                    let reason =
                        (!reason.is_empty()).then(|| format!("stopped by a person: {reason}"));
                    let op = ControlOp::Stop { reason };
                    return vec![Effect::Steer {
                        trace: Some(trace),
                        op,
                    }];
                }
                Vec::new()
            }
        }
    }

    /// A key in the dialog deciding the held call `id` of run `trace`:
    /// move among the answers, send the one chosen, or put it off.
    fn update_held_decision(
        &mut self,
        action: Action,
        trace: TraceId,
        view: Option<RunView>,
        (id, choice, note): (u64, usize, String),
    ) -> Vec<Effect> {
        let Some(wait) = view.and_then(|v| v.waiting.into_iter().find(|w| w.id == id)) else {
            self.overlay = None;
            self.notice = Some("that decision is no longer waiting".into());
            return Vec::new();
        };
        let options = options_of(&wait.ask);
        let last = options.len().saturating_sub(1);
        let choice = match action {
            Action::Up => choice.saturating_sub(1),
            Action::Down => (choice + 1).min(last),
            Action::Confirm => {
                return match decide(&wait.ask, id, options.get(choice), &note) {
                    Ok(op) => {
                        self.overlay = None;
                        vec![Effect::Steer {
                            trace: Some(trace),
                            op,
                        }]
                    }
                    Err(why) => {
                        self.notice = Some(why.into());
                        Vec::new()
                    }
                };
            }
            _ => {
                if let Some(watching) = self.watching.as_mut() {
                    watching.put_off.insert(id);
                }
                self.overlay = None;
                self.notice = Some("the run waits for you: d decides".into());
                return Vec::new();
            }
        };
        self.overlay = Some(Overlay::Steer(SteerDialog::Decide {
            trace,
            id,
            choice,
            note,
        }));
        Vec::new()
    }
}

/// A trace id as the quit dialog names it: its first 8 digits.
fn short(trace: &str) -> &str {
    trace.get(..8).unwrap_or(trace)
}

/// The oldest approval or question waiting in the run that the person
/// has not put off.
fn first_decision(view: &RunView, put_off: &[u64]) -> Option<u64> {
    view.waiting
        .iter()
        .find(|w| !matches!(w.ask, Ask::Gate { .. }) && !put_off.contains(&w.id))
        .map(|w| w.id)
}

/// What the person decided, as the watch's control takes it.
fn decide(
    ask: &Ask,
    id: u64,
    option: Option<&String>,
    note: &str,
) -> Result<ControlOp, &'static str> {
    let note = note.trim();
    match ask {
        Ask::Approval { .. } if option.is_some_and(|o| o == REJECT) => Ok(ControlOp::Reject {
            id,
            reason: if note.is_empty() {
                "no reason given".to_string()
            } else {
                note.to_string()
            },
        }),
        Ask::Approval { .. } if option.is_some_and(|o| o == APPROVE_EDITED) => {
            let arguments = serde_json::from_str(note)
                .map_err(|_| "type the arguments as JSON first (the dialog shows them)")?;
            Ok(ControlOp::Approve {
                id,
                arguments: Some(arguments),
                for_the_run: false,
            })
        }
        Ask::Approval { .. } => Ok(ControlOp::Approve {
            id,
            arguments: None,
            for_the_run: option.is_some_and(|o| o == APPROVE_FOR_THE_RUN),
        }),
        Ask::Question { options, .. } if options.is_empty() => {
            if note.is_empty() {
                return Err("type an answer first");
            }
            Ok(ControlOp::Answer {
                id,
                text: note.to_string(),
            })
        }
        Ask::Question { .. } => Ok(ControlOp::Answer {
            id,
            text: option.cloned().unwrap_or_default(),
        }),
        Ask::Gate { .. } => Err("a gate is not decided here: s steps, space runs on"),
    }
}
