//! The sweep in the app: results folded in as the executor sends them,
//! the sweep screen's moves, and a run of a bar replayed by running its
//! seed and flags again with a recording (runs are deterministic, so it is
//! the same run) and opening that as any other replay.

use super::App;
use super::carry::first_line;
use crate::sweep::{Job, JobResult, run_job_with};
use crate::tui::effect::Effect;
use crate::tui::keymap::Action;
use crate::tui::sweep::{Ended, SweepMessage, SweepState};
use crate::tui::view_state::Overlay;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;

/// A run of the sweep being run again with a recording, to be replayed.
pub(crate) struct PendingReplay {
    job: Job,
    path: PathBuf,
    handle: JoinHandle<Result<JobResult, crate::sweep::SweepError>>,
}

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
                    return vec![Effect::ReplaySweepRun(job)];
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

    /// Run `job` of the sweep again, recorded, on a thread of its own (a
    /// run blocks on a runtime of its own, and one on the real clock takes
    /// its time); [`App::poll_sweep_replay`] opens it when it is done.
    pub(super) fn replay_sweep_run(&mut self, job: &Job) {
        let Some(sweep) = &self.sweep else {
            return;
        };
        if let Some(pending) = &self.sweep_replay {
            self.notice = Some(format!(
                "seed {} is being run again first",
                pending.job.seed
            ));
            return;
        }
        let path = match self.sweep_recording(&sweep.scenario.name, &job.id) {
            Ok(path) => path,
            Err(e) => {
                self.notice = Some(format!("cannot record the run: {e}"));
                return;
            }
        };
        let mut setup = sweep.setup.clone();
        setup.record = Some(path.clone());
        // The seed's trace went out with the sweep; this is a second look.
        setup.exporter = None;
        let (scenario, source) = (Arc::clone(&sweep.scenario), sweep.source.clone());
        let run = job.clone();
        let spawned = std::thread::Builder::new()
            .name("conclave-sweep-replay".into())
            .spawn(move || run_job_with(&scenario, Some(&source), &run, &setup, Vec::new()));
        match spawned {
            Ok(handle) => {
                self.notice = Some(format!("running seed {} again to replay it…", job.seed));
                self.sweep_replay = Some(PendingReplay {
                    job: job.clone(),
                    path,
                    handle,
                });
            }
            Err(e) => self.notice = Some(format!("cannot run the seed again: {e}")),
        }
    }

    /// Whether a run of the sweep is being run again to be replayed.
    pub fn sweep_replay_pending(&self) -> bool {
        self.sweep_replay.is_some()
    }

    /// Open the run being run again as a replay once it is done; true when
    /// the screen changed.
    pub fn poll_sweep_replay(&mut self) -> bool {
        if !self
            .sweep_replay
            .as_ref()
            .is_some_and(|p| p.handle.is_finished())
        {
            return false;
        }
        let Some(PendingReplay { job, path, handle }) = self.sweep_replay.take() else {
            return false;
        };
        match handle.join() {
            Ok(Ok(_)) => match self.open_replay(&path) {
                Ok(()) => {
                    if matches!(self.overlay, Some(Overlay::Sweep)) {
                        self.overlay = None;
                    }
                    self.notice = Some(format!(
                        "seed {} replayed: S returns to the sweep",
                        job.seed
                    ));
                }
                Err(e) => self.notice = Some(first_line(&e)),
            },
            Ok(Err(e)) => self.notice = Some(first_line(&e.to_string())),
            Err(_) => self.notice = Some("the run crashed".into()),
        }
        true
    }

    /// Where a run of the sweep is recorded: a `sweeps` folder beside the
    /// dashboard's recordings, else in the temporary folder.
    fn sweep_recording(&self, scenario: &str, job: &str) -> std::io::Result<PathBuf> {
        let dir = match &self.options.recordings_dir {
            Some(dir) => dir.join("sweeps"),
            None => std::env::temp_dir().join("conclave-sweeps"),
        };
        std::fs::create_dir_all(&dir)?;
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
        Ok(dir.join(format!("{name}-{job}.jsonl")))
    }
}
