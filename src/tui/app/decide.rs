//! The question a run asks a person: the dialog opens when the selected
//! run asks (or on `d` while it waits), takes one of the question's options
//! and a note, and sends them to the run's engine; it closes when the
//! answer is in the run's events. Dismissed, the run goes on waiting and
//! the dialog does not open by itself again before an answer.

use super::App;
use crate::bus::{AnsweredBy, Event, EventKind};
use crate::control::Control;
use crate::tui::effect::Effect;
use crate::tui::keymap::Action;
use crate::tui::overlays::decide::DecidePrompt;
use crate::tui::slot::RunSlot;
use crate::tui::view_state::Overlay;

/// Whether `slot` waits for an answer this dashboard can give.
pub(super) fn asks(slot: &RunSlot) -> bool {
    slot.has_engine() && slot.is_live() && slot.state.asked.as_ref().is_some_and(|e| e.waiting())
}

impl App {
    /// After `event` was folded: open the dialog when the selected run
    /// asks, close it when the run it belongs to has its answer.
    pub(super) fn follow_question(&mut self, event: &Event) {
        match &event.kind {
            EventKind::HumanDecided { .. } | EventKind::RunFinished { .. } => {
                // Open, or under the question whether to quit.
                let answered = |o: &Overlay| matches!(o, Overlay::Decide(p) if p.run == event.run);
                if self.overlay.as_ref().is_some_and(answered) {
                    self.overlay = None;
                }
                if let Some(Overlay::Quit { under }) = &mut self.overlay
                    && under.as_deref().is_some_and(answered)
                {
                    *under = None;
                }
                if let Some(slot) = self.runs.iter_mut().find(|s| s.state.run == event.run) {
                    slot.ui.question_dismissed = false;
                }
            }
            // The event that raised the question is the one that made the
            // run ask. Raised again before an answer (a publisher on the
            // run's subject may repeat it), a dismissed question stays
            // closed: the keys stay the user's.
            _ if self.overlay.is_none() => {
                let newly = self.run().filter(|slot| {
                    slot.state.run == event.run
                        && !slot.ui.question_dismissed
                        && asks(slot)
                        && raised(slot, event)
                });
                if let Some(slot) = newly {
                    self.overlay = Some(Overlay::Decide(Box::new(prompt(slot))));
                }
            }
            _ => {}
        }
    }

    /// `d`: the dialog of the selected run, when it waits for an answer
    /// (the key is unavailable otherwise, saying why).
    pub(super) fn open_decide(&mut self) {
        if let Some(slot) = self.run().filter(|slot| asks(slot)) {
            self.overlay = Some(Overlay::Decide(Box::new(prompt(slot))));
        }
    }

    /// A key of the open dialog.
    pub(super) fn update_decide(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Decide(prompt)) = &mut self.overlay else {
            return Vec::new();
        };
        match action {
            Action::Up | Action::Down => prompt.move_by(action == Action::Down),
            Action::Confirm => {
                let Some(option) = prompt.chosen() else {
                    prompt.unchosen = true;
                    return Vec::new();
                };
                let command = Control::Answer {
                    option: option.to_string(),
                    note: prompt.note(),
                    question: None,
                    by: AnsweredBy::Dashboard,
                };
                let run = prompt.run;
                self.overlay = None;
                return vec![Effect::Control { run, command }];
            }
            Action::Close => {
                let run = prompt.run;
                self.overlay = None;
                if let Some(slot) = self.runs.iter_mut().find(|s| s.state.run == run) {
                    slot.ui.question_dismissed = true;
                }
                let who = self
                    .run()
                    .and_then(|slot| slot.state.asked.as_ref())
                    .map_or_else(|| "the run".to_string(), |a| a.question.asker.clone());
                self.notice = Some(format!("{who} waits for your answer: d answers"));
            }
            _ => {}
        }
        Vec::new()
    }
}

/// The dialog for the question `slot` asks.
fn prompt(slot: &RunSlot) -> DecidePrompt {
    let asked = slot.state.asked.as_ref().expect("the run asks");
    DecidePrompt::new(slot.state.run, asked)
}

/// Whether `event` is the one that raised the question `slot` asks.
fn raised(slot: &RunSlot, event: &Event) -> bool {
    slot.state
        .info
        .as_ref()
        .is_some_and(|info| crate::patterns::question_of(info.pattern, &event.kind).is_some())
}
