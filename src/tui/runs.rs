//! The runs of the dashboard: launching a scenario as a new run, showing a
//! run from its events alone, restarting with the same seed and flags, and
//! handing every engine handle back for a clean shutdown.

use super::app::App;
use super::keymap::PaneId;
use super::replay::Replay;
use super::state::RunState;
use super::view_state::RunUi;
use crate::bus::{ClockMode, Event, EventKind};
use crate::clock::RunClock;
use crate::engine::{self, LaunchOptions, RunHandle};
use crate::record::read_recording;
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a launch may change from the scenario.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub seed: Option<u64>,
    pub flags: Vec<(String, bool)>,
    pub goal: Option<String>,
    /// Record this launch to this file (`--record`) instead of the runs
    /// folder; a restart goes to the runs folder.
    pub record: Option<PathBuf>,
}

/// One run on the dashboard.
pub struct RunSlot {
    pub state: RunState,
    pub ui: RunUi,
    pub scenario: Arc<Scenario>,
    /// The scenario file, if it came from one.
    pub source: Option<String>,
    pub recording: Option<PathBuf>,
    /// A goal edited for the next restart.
    pub next_goal: Option<String>,
    pub(super) handle: Option<RunHandle>,
    pub(super) clock: Option<RunClock>,
    /// Set when the run is a replay of a recording.
    pub replay: Option<Replay>,
}

impl RunSlot {
    /// The run clock now: live for a running run, the last event's time
    /// otherwise.
    pub fn clock_ms(&self) -> u64 {
        match (&self.replay, &self.clock, self.state.is_live()) {
            (Some(replay), _, _) if replay.playing => replay.clock_ms().max(self.state.t_ms),
            (None, Some(clock), true) => clock.elapsed_ms().max(self.state.t_ms),
            _ => self.state.t_ms,
        }
    }

    /// Whether the engine drives this run (not a replay, not finished).
    pub fn is_engine_live(&self) -> bool {
        self.replay.is_none() && self.state.is_live()
    }

    pub fn is_live(&self) -> bool {
        self.state.is_live()
    }
}

impl App {
    /// Launch `scenario` as a new run and select it.
    pub fn launch(&mut self, scenario: Arc<Scenario>, source: Option<String>) {
        if let Err(e) = self.launch_with(Arc::clone(&scenario), source, Overrides::default()) {
            self.notice = Some(format!("cannot launch {}: {e}", scenario.name));
        }
    }

    /// Launch with a seed, flags, goal or recording file other than the
    /// scenario's; the error says why the run could not start.
    pub fn launch_with(
        &mut self,
        scenario: Arc<Scenario>,
        source: Option<String>,
        overrides: Overrides,
    ) -> Result<(), engine::LaunchError> {
        let seed = overrides.seed.or(scenario.seed).unwrap_or(0);
        let mut flags: Vec<(String, bool)> = scenario
            .flags
            .iter()
            .map(|(name, flag)| (name.clone(), flag.default))
            .collect();
        flags.extend(overrides.flags);
        let slot = self.start(
            scenario,
            source,
            seed,
            flags,
            overrides.goal,
            overrides.record,
        )?;
        self.runs.push(slot);
        self.selected = self.runs.len() - 1;
        self.focus = PaneId::Pattern;
        Ok(())
    }

    fn start(
        &mut self,
        scenario: Arc<Scenario>,
        source: Option<String>,
        seed: u64,
        flags: Vec<(String, bool)>,
        goal: Option<String>,
        record: Option<PathBuf>,
    ) -> Result<RunSlot, engine::LaunchError> {
        let run = self.next_run;
        let recording = match record {
            Some(path) => Some(path),
            None => self.runs_file(&scenario, run)?,
        };
        let handle = engine::launch(
            Arc::clone(&scenario),
            &self.hub,
            LaunchOptions {
                run,
                seed: Some(seed),
                goal,
                flags,
                record: recording.clone(),
                start_paused: self.options.start_paused,
                clock: Some(ClockMode::Real),
                source: source.clone(),
                provider: self.options.provider.clone(),
            },
        )?;
        self.next_run += 1;
        Ok(RunSlot {
            state: RunState::new(run),
            ui: RunUi::default(),
            clock: Some(handle.clock()),
            handle: Some(handle),
            replay: None,
            scenario,
            source,
            recording,
            next_goal: None,
        })
    }

    /// A new file in the runs folder for `run`, creating the folder; `None`
    /// when the dashboard does not record.
    fn runs_file(
        &self,
        scenario: &Scenario,
        run: crate::bus::RunId,
    ) -> Result<Option<PathBuf>, engine::LaunchError> {
        let Some(dir) = &self.options.runs_dir else {
            return Ok(None);
        };
        std::fs::create_dir_all(dir).map_err(|e| crate::record::RecordPathError {
            path: dir.clone(),
            reason: format!("cannot create the runs folder: {e}"),
        })?;
        let stamp = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S");
        Ok(Some(dir.join(format!(
            "{stamp}-{}-run{run}.jsonl",
            file_safe(&scenario.name)
        ))))
    }

    /// Show a run from its events alone (a recording, or events captured in
    /// a test): the same state and panes as a live run, without an engine.
    /// Returns `None` when the events do not start with the run's start.
    pub fn add_from_events(
        &mut self,
        events: &[Arc<Event>],
        source: Option<String>,
    ) -> Option<usize> {
        let first = events.first()?;
        let EventKind::RunStarted(started) = &first.kind else {
            return None;
        };
        let state = RunState::from_events(first.run, events);
        let mut ui = RunUi::default();
        ui.after_event(&state);
        self.next_run = self.next_run.max(first.run + 1);
        self.runs.push(RunSlot {
            state,
            ui,
            scenario: Arc::clone(&started.scenario),
            source,
            recording: None,
            next_goal: None,
            handle: None,
            clock: None,
            replay: None,
        });
        self.selected = self.runs.len() - 1;
        Some(self.selected)
    }

    /// Open a recording as a replay and select it. The error says why the
    /// file cannot be replayed.
    pub fn open_replay(&mut self, path: &Path) -> Result<(), String> {
        let recording = read_recording(path).map_err(|e| e.to_string())?;
        let Some(first) = recording.events.first() else {
            return Err(format!("{}: no events", path.display()));
        };
        let EventKind::RunStarted(started) = &first.kind else {
            return Err(format!(
                "{}: the recording does not start with the run's start (seq {})",
                path.display(),
                first.seq
            ));
        };
        let scenario = Arc::clone(&started.scenario);
        let source = path.display().to_string();
        let Some((replay, state)) = Replay::open(recording, source.clone()) else {
            return Err(format!("{}: no events", path.display()));
        };
        let mut ui = RunUi::default();
        ui.after_event(&state);
        self.runs.push(RunSlot {
            state,
            ui,
            scenario,
            source: Some(source),
            recording: Some(path.to_path_buf()),
            next_goal: None,
            handle: None,
            clock: None,
            replay: Some(replay),
        });
        self.selected = self.runs.len() - 1;
        self.focus = PaneId::Pattern;
        Ok(())
    }

    /// The selected run's view state, to move a selection or scroll.
    pub fn run_ui_mut(&mut self) -> Option<&mut RunUi> {
        self.run_mut().map(|slot| &mut slot.ui)
    }

    /// Restart the selected run: same scenario, seed and current flags, and
    /// the edited goal if there is one.
    pub(super) fn restart(&mut self) {
        let Some(slot) = self.runs.get(self.selected) else {
            return;
        };
        let scenario = Arc::clone(&slot.scenario);
        let source = slot.source.clone();
        let seed = slot
            .state
            .info
            .as_ref()
            .map_or(scenario.seed.unwrap_or(0), |i| i.seed);
        let flags = slot
            .state
            .flags
            .iter()
            .map(|f| {
                (
                    f.name.clone(),
                    slot.ui.pending_flag(&f.name).unwrap_or(f.on),
                )
            })
            .collect();
        let goal = slot
            .next_goal
            .clone()
            .or_else(|| slot.state.info.as_ref().map(|i| i.goal.clone()));
        match self.start(scenario, source, seed, flags, goal, None) {
            Ok(fresh) => {
                let old = std::mem::replace(&mut self.runs[self.selected], fresh);
                self.retire(old);
            }
            Err(e) => self.notice = Some(format!("cannot restart: {e}")),
        }
    }

    fn retire(&mut self, mut slot: RunSlot) {
        if let Some(handle) = slot.handle.take() {
            handle.controller.cancel();
            self.retired.push(handle);
        }
    }

    /// Every handle still to finish, for a clean shutdown: live runs are
    /// cancelled first.
    pub fn take_handles(&mut self) -> Vec<RunHandle> {
        let mut handles = std::mem::take(&mut self.retired);
        for slot in &mut self.runs {
            if let Some(handle) = slot.handle.take() {
                handle.controller.cancel();
                handles.push(handle);
            }
        }
        handles
    }
}

/// A scenario name made safe for a file name.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect()
}
