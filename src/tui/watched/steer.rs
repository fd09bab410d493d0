//! Steering a watched run from its screen (docs/steer.md): the runs whose
//! hook talks to this watch, read again when the steering changes (the
//! state held is `steered`'s), and the keys that act on them, the same as for Conclave's own runs: space
//! pauses at the next gate and runs on, `n`/`s` steps one gate, `f` the
//! run's flags, `d` a waiting approval or question, `x` a stop. A run
//! whose hook spoke before any of its spans came gets its tab at once
//! (a run paused at its first gate has exported nothing yet). Every
//! decision becomes a line of the run's event log.

use super::state::Watched;
use super::steered::{Dialog, SteerUi};
use crate::tui::keymap::Action;
use crate::watch::span::TraceId;
use crate::watch::steer::words::decision_words;
use crate::watch::steer::{Ask, ControlOp, RunView};
use std::collections::{HashMap, HashSet};

impl Watched {
    /// The hooked run on screen: its trace and how the watch lists it.
    pub(crate) fn steered_view(&self) -> Option<(TraceId, &RunView)> {
        let run = self.selected()?;
        let view = self.steer.as_ref()?.views.get(&run.trace_id)?;
        Some((run.trace_id, view))
    }

    /// Whether any run on the screen has a hook.
    pub(crate) fn any_steered(&self) -> bool {
        self.steer.as_ref().is_some_and(|s| !s.views.is_empty())
    }

    /// The steering changed: the runs listed again, a tab for a hooked
    /// run that has none yet, its new decisions into its log.
    pub(crate) fn steering_changed(&mut self) {
        let Some(steer) = self.steer.as_mut() else {
            return;
        };
        let mut views = HashMap::new();
        for view in steer.steering.list() {
            if let Ok(trace) = u128::from_str_radix(&view.trace_id, 16) {
                views.insert(trace, view);
            }
        }
        steer.views = views;
        steer
            .logged
            .retain(|trace, _| steer.views.contains_key(trace));
        let traces: Vec<TraceId> = steer.views.keys().copied().collect();
        for trace in traces {
            if self.index_of(trace).is_none() {
                self.open(trace);
            }
            let Some(steer) = self.steer.as_mut() else {
                return;
            };
            let from = steer.logged.get(&trace).copied().unwrap_or(0);
            let new = steer.steering.decisions(trace, from);
            *steer.logged.entry(trace).or_default() += new.len();
            if let Some(at) = self.index_of(trace) {
                for timed in new {
                    self.runs[at].steered(timed.at_ms, decision_words(&timed.decision));
                }
            }
        }
    }
}

/// The options a decision offers: approve/reject, or the question's own
/// (none: a free answer is typed).
pub(crate) fn options_of(ask: &Ask) -> Vec<String> {
    match ask {
        Ask::Approval { .. } => vec!["approve".into(), "reject".into()],
        Ask::Question { options, .. } => options.clone(),
        Ask::Gate { .. } => Vec::new(),
    }
}

/// The oldest approval or question waiting in the run on screen that the
/// person has not put off.
fn first_decision(view: &RunView, put_off: &HashSet<u64>) -> Option<u64> {
    view.waiting
        .iter()
        .find(|w| !matches!(w.ask, Ask::Gate { .. }) && !put_off.contains(&w.id))
        .map(|w| w.id)
}

impl SteerUi {
    /// Open the decision dialog for a new approval or question of the run
    /// on screen, unless something else is open (`help`).
    pub(crate) fn offer_decision(&mut self, watched: &Watched, help: bool) {
        if help || self.dialog.is_some() {
            return;
        }
        if let Some((trace, view)) = watched.steered_view()
            && let Some(id) = first_decision(view, &self.put_off)
        {
            self.dialog = Some(Dialog::Decide {
                trace,
                id,
                choice: 0,
                note: String::new(),
            });
        }
    }
}

/// A steering key on the run on screen; what went wrong, in words.
pub(crate) fn act_steer(watched: &Watched, ui: &mut SteerUi, action: Action) -> Result<(), String> {
    let Some(steer) = watched.steer.as_ref() else {
        return Ok(());
    };
    let Some((trace, view)) = watched.steered_view() else {
        return Err("this run has no steering hook (docs/steer.md)".into());
    };
    match action {
        Action::TogglePause if view.paused => steer.control(trace, ControlOp::RunOn),
        Action::TogglePause => steer.control(trace, ControlOp::Pause),
        Action::Step => {
            if !view.paused {
                steer.control(trace, ControlOp::Pause)?;
            }
            steer.control(trace, ControlOp::Step { gates: 1 })
        }
        Action::Flags if view.flags.is_empty() => Err("this run declared no flags".into()),
        Action::Flags => {
            ui.dialog = Some(Dialog::Flags { trace, selected: 0 });
            Ok(())
        }
        Action::Decide => {
            ui.put_off.clear();
            match first_decision(view, &ui.put_off) {
                Some(id) => {
                    ui.dialog = Some(Dialog::Decide {
                        trace,
                        id,
                        choice: 0,
                        note: String::new(),
                    });
                    Ok(())
                }
                None => Err("nothing in this run waits for a person".into()),
            }
        }
        Action::StopRun => {
            ui.dialog = Some(Dialog::Stop { trace });
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A key in a steering dialog.
pub(crate) fn act_dialog(
    watched: &Watched,
    ui: &mut SteerUi,
    action: Action,
) -> Result<(), String> {
    let (Some(steer), Some(dialog)) = (watched.steer.as_ref(), ui.dialog.clone()) else {
        return Ok(());
    };
    let view = steer.views.get(&dialog_trace(&dialog));
    match dialog {
        Dialog::Flags { trace, selected } => {
            let flags = view.map(|v| v.flags.as_slice()).unwrap_or_default();
            let last = flags.len().saturating_sub(1);
            let selected = match action {
                Action::Up => selected.saturating_sub(1),
                Action::Down => (selected + 1).min(last),
                Action::Toggle => {
                    if let Some(flag) = flags.get(selected) {
                        let op = ControlOp::SetFlag {
                            name: flag.name.clone(),
                            on: !flag.on,
                        };
                        steer.control(trace, op)?;
                    }
                    selected
                }
                _ => {
                    ui.dialog = None;
                    return Ok(());
                }
            };
            ui.dialog = Some(Dialog::Flags { trace, selected });
            Ok(())
        }
        Dialog::Decide {
            trace,
            id,
            choice,
            note,
        } => {
            let Some(wait) = view.and_then(|v| v.waiting.iter().find(|w| w.id == id)) else {
                ui.dialog = None;
                return Err("that decision is no longer waiting".into());
            };
            let options = options_of(&wait.ask);
            let last = options.len().saturating_sub(1);
            let choice = match action {
                Action::Up => choice.saturating_sub(1),
                Action::Down => (choice + 1).min(last),
                Action::Confirm => {
                    let op = decide(&wait.ask, id, options.get(choice), &note)?;
                    ui.dialog = None;
                    return steer.control(trace, op);
                }
                _ => {
                    ui.put_off.insert(id);
                    ui.dialog = None;
                    return Ok(());
                }
            };
            ui.dialog = Some(Dialog::Decide {
                trace,
                id,
                choice,
                note,
            });
            Ok(())
        }
        Dialog::Stop { trace } => {
            ui.dialog = None;
            if action == Action::Confirm {
                steer.control(trace, ControlOp::Stop { reason: None })?;
            }
            Ok(())
        }
    }
}

fn dialog_trace(dialog: &Dialog) -> TraceId {
    match dialog {
        Dialog::Flags { trace, .. } | Dialog::Decide { trace, .. } | Dialog::Stop { trace } => {
            *trace
        }
    }
}

/// What the person decided, as the watch's control takes it.
fn decide(ask: &Ask, id: u64, option: Option<&String>, note: &str) -> Result<ControlOp, String> {
    let note = note.trim();
    match ask {
        Ask::Approval { .. } if option.is_some_and(|o| o == "reject") => Ok(ControlOp::Reject {
            id,
            reason: if note.is_empty() {
                "rejected by a person".to_string()
            } else {
                note.to_string()
            },
        }),
        Ask::Approval { .. } => Ok(ControlOp::Approve { id }),
        Ask::Question { options, .. } if options.is_empty() => {
            if note.is_empty() {
                return Err("type an answer first".into());
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
        Ask::Gate { .. } => Err("a gate is not decided here: n steps, space runs on".into()),
    }
}
