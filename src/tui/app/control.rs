//! What the selected run's engine is asked from the keys: to pause, step
//! or resume at its gates, and to turn a flag (live from its next gate,
//! or at a restart once no engine drives it).

use super::App;
use crate::control::Control;
use crate::tui::effect::Effect;
use crate::tui::slot::RunSlot;

impl App {
    /// Ask the selected run's engine for `command`; the screen says a pause
    /// is coming until the run reaches its gate.
    pub(super) fn control(&mut self, command: impl FnOnce(&RunSlot) -> Control) -> Vec<Effect> {
        let Some(slot) = self.run_mut() else {
            return Vec::new();
        };
        let command = command(slot);
        let pausing = matches!(command, Control::Pause | Control::Step);
        let no_gate_left = pausing && !slot.unit.gate_ahead(&slot.state.pattern);
        match &command {
            Control::Pause | Control::Step => slot.ui.pause_requested = true,
            Control::Resume => slot.ui.pause_requested = false,
            _ => {}
        }
        let effect = Effect::Control {
            run: slot.state.run,
            command,
        };
        if no_gate_left {
            self.notice = Some("no gate is left: the run goes on to its end".into());
        }
        vec![effect]
    }

    /// Turn flag `index` of the selected run: live from its next gate, or,
    /// for a run no engine drives any more, at its restart.
    pub(super) fn toggle_flag(&mut self, index: usize) -> Vec<Effect> {
        let Some(slot) = self.run_mut() else {
            return Vec::new();
        };
        let Some(flag) = slot.state.flags.get(index) else {
            return Vec::new();
        };
        let name = flag.name.clone();
        let on = !slot.ui.pending_flag(&name).unwrap_or(flag.on);
        if slot.has_engine() && slot.is_live() {
            // The flag shows as pending until the run applies it (or its
            // engine refuses it).
            slot.ui.pending_flags.push((name.clone(), on));
            return vec![Effect::Control {
                run: slot.state.run,
                command: Control::SetFlag { name, on },
            }];
        }
        slot.ui.pending_flags.retain(|(n, _)| n != &name);
        slot.ui.pending_flags.push((name, on));
        self.notice =
            Some("the run has finished: r starts a new run with this flag beside it".into());
        Vec::new()
    }
}
