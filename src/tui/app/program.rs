//! A program launched from the picker, on the app's side: `x` on its run
//! asks first, and only `y` stops it (SIGINT, then SIGTERM and SIGKILL
//! after its grace, to its process group: docs/launch.md).

use super::App;
use crate::bus::RunId;
use crate::tui::effect::Effect;
use crate::tui::keymap::Action;
use crate::tui::view_state::Overlay;

impl App {
    /// What `action` does to the live program on screen, when it is one
    /// of its own: `x` asks whether to stop it.
    pub(super) fn program_key(&mut self, action: Action) -> Option<Vec<Effect>> {
        if action != Action::StopRun || self.overlay.is_some() {
            return None;
        }
        let run = self
            .run()
            .filter(|slot| slot.is_program() && slot.is_live())?
            .state
            .run;
        self.overlay = Some(Overlay::StopProgram { run });
        Some(Vec::new())
    }

    /// The answer to "stop this program?": `yes` stops it.
    pub(super) fn answer_stop_program(&mut self, run: RunId, yes: bool) -> Vec<Effect> {
        self.overlay = None;
        let live = self
            .runs
            .iter()
            .any(|slot| slot.state.run == run && slot.is_program() && slot.is_live());
        if !yes || !live {
            return Vec::new();
        }
        self.notice = Some("stopping the program: SIGINT to its process group".into());
        vec![Effect::StopProgram { run }]
    }
}
