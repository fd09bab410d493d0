//! The round table's question to a person: the dialog opens when the
//! selected run escalates (or on `d` while its table waits), takes an
//! answer and a note, and sends them to the run's engine; it closes when
//! the answer is in the run's events. Dismissed, the run goes on waiting.

use super::App;
use crate::bus::{Event, EventKind};
use crate::control::Control;
use crate::tui::effect::Effect;
use crate::tui::keymap::Action;
use crate::tui::overlays::decide::DecidePrompt;
use crate::tui::slot::RunSlot;
use crate::tui::view_state::Overlay;

/// Whether `slot`'s table waits for a person this dashboard can answer.
pub(super) fn asks(slot: &RunSlot) -> bool {
    slot.has_engine()
        && slot.is_live()
        && slot.state.escalation.as_ref().is_some_and(|e| e.waiting())
}

impl App {
    /// After `event` was folded: open the dialog when the selected run
    /// asks, close it when the run it belongs to has its answer.
    pub(super) fn follow_escalation(&mut self, event: &Event) {
        match &event.kind {
            EventKind::EscalatedToHuman { .. }
                if self.overlay.is_none()
                    && self
                        .run()
                        .is_some_and(|slot| slot.state.run == event.run && asks(slot)) =>
            {
                self.overlay = Some(Overlay::Decide(Box::new(DecidePrompt::new(event.run))));
            }
            EventKind::HumanDecided { .. } | EventKind::RunFinished { .. } => {
                if matches!(&self.overlay, Some(Overlay::Decide(p)) if p.run == event.run) {
                    self.overlay = None;
                }
            }
            _ => {}
        }
    }

    /// `d`: the dialog of the selected run, when its table waits (the key
    /// is unavailable otherwise, saying why).
    pub(super) fn open_decide(&mut self) {
        if let Some(slot) = self.run().filter(|slot| asks(slot)) {
            let run = slot.state.run;
            self.overlay = Some(Overlay::Decide(Box::new(DecidePrompt::new(run))));
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
                let Some(choice) = prompt.chosen() else {
                    prompt.unchosen = true;
                    return Vec::new();
                };
                let (run, note) = (prompt.run, prompt.note());
                self.overlay = None;
                return vec![Effect::Control {
                    run,
                    command: Control::Decide { choice, note },
                }];
            }
            Action::Close => {
                self.overlay = None;
                self.notice = Some("the table waits for your answer: d answers".into());
            }
            _ => {}
        }
        Vec::new()
    }
}
