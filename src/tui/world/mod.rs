//! What the dashboard's decisions act on: the engines of its runs, the
//! followers of runs attached from other engines, the files it reads and
//! writes and the allowances it remembers. The app decides and returns
//! effects; the world carries them out and says what came of each as a
//! [`Done`]. It never decides what the screen shows, and the engines never
//! wait on it. Every file the dashboard touches is touched here, never
//! in the app: reading one is done on a blocking thread (`reads`).

pub(crate) mod catalog_scan;
mod launch;
mod program;
mod program_fork;
mod reads;
pub mod recording_reader;
mod sweep_run;

pub use launch::LaunchSettings;
pub use reads::{open_comparison, open_replay, read_now, settle};

use super::effect::{Done, Effect};
use super::remote::{RemoteRun, RemoteSource};
use crate::bus::{Hub, RunId};
use crate::control::Control;
use crate::engine::{EngineError, RunHandle};
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;
use tokio::sync::mpsc;

/// How long quitting waits for the runs' recordings to be complete.
const FINISH: Duration = Duration::from_secs(5);

pub struct World {
    hub: Hub,
    settings: LaunchSettings,
    /// The engine of every run launched here, live, ended or replaced, by
    /// run: to control, and to cancel and finish on quit.
    engines: HashMap<RunId, RunHandle>,
    /// Where runs of other engines come from (`conclave attach`).
    remote: Option<RemoteSource>,
    /// The runs of other engines followed, by the dashboard's run.
    followed: HashMap<RunId, RemoteRun>,
    /// The sweep `conclave sweep` runs, whose runs can be run again.
    sweep: Option<crate::sweep::Prepared>,
    /// What work on threads of the world's came to (a sweep's run run
    /// again), for the loop to hand the app.
    later: mpsc::UnboundedSender<Done>,
    arrived: mpsc::UnboundedReceiver<Done>,
    /// Engines of ended runs waited on for their recordings; why a
    /// recording is incomplete, for the end.
    ending: Vec<tokio::task::JoinHandle<Option<EngineError>>>,
    /// The watch's steering of hooked runs (`conclave watch`).
    steering: Option<std::sync::Arc<crate::watch::steer::Steering>>,
    /// The programs launched here, by run: to stop, and to end on quit.
    programs: HashMap<RunId, program::Launched>,
}

impl World {
    /// Runs launched on `hub` with `settings`.
    pub fn new(hub: Hub, settings: LaunchSettings) -> World {
        let (later, arrived) = mpsc::unbounded_channel();
        World {
            hub,
            settings,
            engines: HashMap::new(),
            remote: None,
            followed: HashMap::new(),
            sweep: None,
            later,
            arrived,
            ending: Vec::new(),
            steering: None,
            programs: HashMap::new(),
        }
    }

    /// Steer watched runs' hooks through `steering`.
    pub fn steer_with(&mut self, steering: std::sync::Arc<crate::watch::steer::Steering>) {
        self.steering = Some(steering);
    }

    /// Follow runs of other engines from `source`.
    pub fn with_remote(mut self, source: RemoteSource) -> World {
        self.remote = Some(source);
        self
    }

    /// Run `sweep`'s runs again when asked.
    pub fn with_sweep(mut self, sweep: crate::sweep::Prepared) -> World {
        self.sweep = Some(sweep);
        self
    }

    /// Carry `effect` out; what came of it, when the app has something to
    /// learn. Quitting and copies are the terminal's, which the loop
    /// holds: nothing is done for them here.
    pub fn carry_out(&mut self, effect: Effect) -> Option<Done> {
        match effect {
            Effect::Launch { run, launch } => Some(self.launch(run, launch, None)),
            Effect::Restart { old, run, launch } => Some(self.launch(run, launch, Some(old))),
            Effect::Control { run, command } => self.control(run, command),
            Effect::LaunchProgram { run, program } => Some(self.launch_program(run, program)),
            Effect::ForkProgram { run, recording, at } => {
                Some(self.fork_program(run, &recording, at))
            }
            Effect::StopProgram { run } => {
                self.stop_program(run, "stopped from the dashboard");
                None
            }
            Effect::Follow { run, id } => {
                if let Some(source) = &self.remote {
                    self.followed.insert(run, source.attach(id, run));
                }
                None
            }
            effect @ (Effect::ScanCatalog { .. }
            | Effect::OpenRecording { .. }
            | Effect::Compare { .. }
            | Effect::Seek { .. }
            | Effect::ReadAhead { .. }
            | Effect::OfferProgramFork { .. }) => {
                self.read(effect);
                None
            }
            Effect::Write { path, contents } => Some(match write_file(&path, &contents) {
                Ok(()) => Done::Wrote {
                    path,
                    bytes: contents.len(),
                },
                Err(why) => Done::NotWritten { path, why },
            }),
            Effect::RememberTrust { store, consent } => store
                .remember(&consent)
                .err()
                .map(|e| Done::NotRemembered(e.to_string())),
            Effect::ReplaySweepRun { job, record } => self.replay_sweep_run(job, record),
            Effect::AwaitRecording { run } => {
                self.await_recording(run);
                None
            }
            Effect::Steer { trace, op } => {
                let steering = self.steering.as_ref()?;
                let request = crate::watch::steer::ControlRequest {
                    trace_id: trace.map(crate::span::trace_hex),
                    op,
                };
                steering
                    .control(request)
                    .err()
                    .map(|e| Done::NotSteered(format!("steering: {e}")))
            }
            Effect::Copy(_) | Effect::Quit => None,
        }
    }

    /// What work on the world's threads came to, as it arrives.
    pub async fn next_done(&mut self) -> Option<Done> {
        self.arrived.recv().await
    }

    /// Send `command` to run `run`'s engine; a run of another engine
    /// answers later, as a [`RemoteFeed::Replied`](super::remote::RemoteFeed).
    fn control(&mut self, run: RunId, command: Control) -> Option<Done> {
        if let Some(handle) = self.engines.get(&run) {
            return handle
                .controller
                .send(command.clone())
                .err()
                .map(|e| Done::Refused {
                    run,
                    command,
                    why: e.to_string(),
                });
        }
        if let Some(remote) = self.followed.get(&run) {
            remote.send(run, command);
        }
        None
    }

    /// Every engine's handle, for a clean shutdown: each run still going
    /// is cancelled first.
    pub fn take_handles(&mut self) -> Vec<RunHandle> {
        self.followed.clear();
        let handles: Vec<RunHandle> = self.engines.drain().map(|(_, h)| h).collect();
        for handle in &handles {
            handle.controller.cancel();
        }
        handles
    }

    /// Cancel what still runs and wait (briefly) for every recording to be
    /// complete on disk; returns why recordings are incomplete.
    pub async fn finish(&mut self) -> Vec<EngineError> {
        self.end_programs().await;
        let handles = self.take_handles();
        let all = futures_util::future::join_all(handles.into_iter().map(|h| h.end()));
        let ending = futures_util::future::join_all(self.ending.drain(..));
        match tokio::time::timeout(FINISH, futures_util::future::join(all, ending)).await {
            Ok((ended, waited)) => ended
                .into_iter()
                .filter_map(|ended| ended.ok()?.recording_failed)
                .chain(waited.into_iter().filter_map(|w| w.ok().flatten()))
                .collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// Write a whole file; why not, in words, when it cannot be.
fn write_file(path: &Path, contents: &str) -> Result<(), String> {
    if path.is_dir() {
        return Err("it is a folder".into());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(format!("the folder {} does not exist", dir.display()));
    }
    std::fs::write(path, contents).map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::ReadOnlyFilesystem => "the file system is read-only".into(),
        _ => e.to_string(),
    })
}

#[cfg(test)]
mod replay_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trust_tests;
