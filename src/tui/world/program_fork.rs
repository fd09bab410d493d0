//! A launched run forked from the dashboard: the recording planned as
//! `conclave fork REC --at "model call N" --live` plans it (calls before
//! N served, the rest live), then launched as any program scenario.

use super::World;
use crate::bus::RunId;
use crate::launch::fork::{ForkPlan, LaunchFork, plan};
use crate::tui::effect::Done;
use std::path::Path;
use std::sync::Arc;

impl World {
    /// Fork `recording` at model call `at` as run `run`. The person saw
    /// the program's command line in the dialog and confirmed it: that
    /// is the allowance `--allow-exec` gives headless.
    pub(super) fn fork_program(&mut self, run: RunId, recording: &Path, at: u64) -> Done {
        let fork = LaunchFork {
            recording: recording.to_path_buf(),
            at: format!("model call {at}"),
            allow_exec: true,
            ..LaunchFork::default()
        };
        match plan(&fork) {
            Ok(ForkPlan {
                program, settings, ..
            }) => self.launch_program_with(
                run,
                Arc::new(program),
                settings,
                Some(recording.to_path_buf()),
            ),
            Err(why) => Done::NotStarted {
                run,
                name: format!("a fork of {}", recording.display()),
                in_place_of: None,
                why,
            },
        }
    }
}
