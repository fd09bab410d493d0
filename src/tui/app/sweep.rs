//! The sweep in the app: results folded in as the executor sends them,
//! the sweep screen's moves, and a run of a bar replayed by running its
//! seed and flags again with a recording (runs are deterministic, so it is
//! the same run) and opening that as any other replay: an effect, carried
//! out on a thread of the loop's, which says when it is done.

use super::App;
use crate::sweep::{Job, JobResult};
use crate::tui::effect::Effect;
use crate::tui::keymap::Action;
use crate::tui::sweep::{Ended, SweepMessage, SweepState};
use crate::tui::view_state::Overlay;
use std::path::PathBuf;

impl App {
    /// Show `sweep` (its results come through [`App::sweep_result`]).
    pub fn show_sweep(&mut self, sweep: SweepState) {
        self.sweep = Some(sweep);
        self.overlay = Some(Overlay::Sweep);
    }

    /// The sweep, when there is one.
    pub fn sweep(&self) -> Option<&SweepState> {
        self.sweep.as_ref()
    }

    /// A run of the sweep finished.
    pub fn sweep_result(&mut self, result: JobResult) {
        if let Some(sweep) = &mut self.sweep {
            sweep.add(result);
        }
    }

    /// The sweep's executor ended.
    pub fn sweep_ended(&mut self, ended: Ended) {
        if let Some(sweep) = &mut self.sweep {
            sweep.end(ended);
        }
    }

    pub(crate) fn sweep_message(&mut self, message: SweepMessage) {
        match message {
            SweepMessage::Result(result) => self.sweep_result(*result),
            SweepMessage::Ended(ended) => self.sweep_ended(ended),
        }
    }

    /// A key on the sweep's screen.
    pub(super) fn update_sweep(&mut self, action: Action) -> Vec<Effect> {
        let Some(sweep) = &mut self.sweep else {
            self.overlay = None;
            return Vec::new();
        };
        match action {
            Action::Left => sweep.turn_chart(-1),
            Action::Right => sweep.turn_chart(1),
            Action::Up => sweep.move_by(-1),
            Action::Down => sweep.move_by(1),
            Action::Top => sweep.move_to_end(false),
            Action::Bottom => sweep.move_to_end(true),
            Action::Confirm if sweep.listing.is_some() => {
                if let Some(job) = sweep.selected_job() {
                    return self.replay_sweep_run(job);
                }
            }
            Action::Confirm => {
                let listed = sweep.open_listing();
                if !listed {
                    self.notice = Some("no run in this bar".into());
                }
            }
            Action::Close => {
                let was_listing = sweep.close_listing();
                if !was_listing {
                    self.overlay = None;
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// Run `job` of the sweep again, recorded, to replay it once it is
    /// done (one at a time).
    fn replay_sweep_run(&mut self, job: Job) -> Vec<Effect> {
        let Some(sweep) = &self.sweep else {
            return Vec::new();
        };
        if let Some(seed) = self.sweep_replay {
            self.notice = Some(format!("seed {seed} is being run again first"));
            return Vec::new();
        }
        let record = self.sweep_recording(&sweep.scenario.name, &job.id);
        self.notice = Some(format!("running seed {} again to replay it…", job.seed));
        self.sweep_replay = Some(job.seed);
        vec![Effect::ReplaySweepRun { job, record }]
    }

    /// Whether a run of the sweep is being run again to be replayed.
    pub fn sweep_replay_pending(&self) -> bool {
        self.sweep_replay.is_some()
    }

    /// Where a run of the sweep is recorded: a `sweeps` folder beside the
    /// dashboard's recordings, else in the temporary folder (the loop
    /// creates the folder).
    fn sweep_recording(&self, scenario: &str, job: &str) -> PathBuf {
        let dir = match &self.options.recordings_dir {
            Some(dir) => dir.join("sweeps"),
            None => std::env::temp_dir().join("conclave-sweeps"),
        };
        // The scenario's name is the file's: kept to what any file system takes.
        let name: String = scenario
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        dir.join(format!("{name}-{job}.jsonl"))
    }
}
