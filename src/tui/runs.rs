//! The dashboard's runs: launching a scenario as a new run, restarting one
//! with the same seed and flags, attaching a run of another engine,
//! showing a run from its events alone or from a recording, folding the
//! bus's events into the run they belong to, and handing every engine
//! handle back for a clean shutdown.

use super::remote::RemoteSource;
use super::replay::Replay;
use super::slot::{Driver, Engine, RunSlot};
use super::state::RunState;
use crate::bus::{ClockMode, Event, EventKind, Hub, RunId};
use crate::control::Control;
use crate::engine::{self, LaunchOptions, RunHandle};
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) use super::launch::Launch;
pub(crate) use super::launch::LaunchSettings;
pub use super::launch::Overrides;

impl Launch {
    /// Start the run again as `slot` shows it: its scenario and seed, its
    /// flags with the changes waiting for a restart, and the goal edited
    /// for it.
    pub(crate) fn again(slot: &RunSlot) -> Launch {
        let scenario = Arc::clone(&slot.scenario);
        let info = slot.state.info.as_ref();
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
        Launch {
            seed: info.map_or(scenario.seed.unwrap_or(0), |i| i.seed),
            goal: slot
                .next_goal
                .clone()
                .or_else(|| info.map(|i| i.goal.clone())),
            source: slot.source.clone(),
            scenario,
            flags,
            record: None,
            decide: None,
            allow_exec: false,
        }
    }
}

pub struct Runs {
    hub: Hub,
    settings: LaunchSettings,
    slots: Vec<RunSlot>,
    /// The run the screen shows.
    pub selected: usize,
    next_run: RunId,
    /// Handles of runs that ended or were replaced, to finish on quit.
    retired: Vec<RunHandle>,
    /// The run others are compared with (`p`), by index.
    pinned: Option<usize>,
    /// Where runs of other engines come from (`conclave attach`).
    remote: Option<RemoteSource>,
}

impl Runs {
    /// Export every run launched from now on through `exporter`.
    pub(crate) fn export_to(&mut self, exporter: Arc<crate::telemetry::Exporter>) {
        self.settings.exporter = Some(exporter);
    }

    pub(crate) fn new(hub: Hub, settings: LaunchSettings) -> Self {
        Runs {
            hub,
            settings,
            slots: Vec::new(),
            selected: 0,
            next_run: 1,
            retired: Vec::new(),
            pinned: None,
            remote: None,
        }
    }

    /// Attach runs of other engines from `source`.
    pub(crate) fn with_remote(mut self, source: RemoteSource) -> Self {
        self.remote = Some(source);
        self
    }

    pub(crate) fn selected(&self) -> Option<&RunSlot> {
        self.slots.get(self.selected)
    }

    pub(crate) fn selected_mut(&mut self) -> Option<&mut RunSlot> {
        self.slots.get_mut(self.selected)
    }

    /// The run the engine's run `run` is shown in (not a replay of it).
    pub(crate) fn live_mut(&mut self, run: RunId) -> Option<&mut RunSlot> {
        live(&mut self.slots, run)
    }

    pub fn iter(&self) -> impl Iterator<Item = &RunSlot> {
        self.slots.iter()
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut RunSlot> {
        self.slots.iter_mut()
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Pin the selected run, or unpin it if it is pinned.
    pub(crate) fn toggle_pin(&mut self) {
        self.pinned =
            (self.pinned != Some(self.selected) && !self.slots.is_empty()).then_some(self.selected);
    }

    /// Pin run `index`.
    pub fn pin(&mut self, index: usize) {
        self.pinned = (index < self.slots.len()).then_some(index);
    }

    /// The pinned run's index.
    pub fn pinned(&self) -> Option<usize> {
        self.pinned
    }

    pub(crate) fn select_previous(&mut self) {
        self.selected = self.selected.saturating_sub(1);
    }

    pub(crate) fn select_next(&mut self) {
        self.selected = (self.selected + 1).min(self.slots.len().saturating_sub(1));
    }

    /// Start `launch` as a new run and select it.
    pub(crate) fn launch(&mut self, launch: Launch) -> Result<(), engine::LaunchError> {
        let slot = self.start(launch)?;
        self.add(slot);
        Ok(())
    }

    /// Start `launch` in place of run `run`, whose engine is cancelled.
    pub(crate) fn restart(
        &mut self,
        run: RunId,
        launch: Launch,
    ) -> Result<(), engine::LaunchError> {
        let fresh = self.start(launch)?;
        match self.slots.iter().position(|s| s.state.run == run) {
            Some(index) => {
                let old = std::mem::replace(&mut self.slots[index], fresh);
                self.retire(old);
                // The pinned run is gone: its place holds another run.
                if self.pinned == Some(index) {
                    self.pinned = None;
                }
            }
            None => self.add(fresh),
        }
        Ok(())
    }

    fn start(&mut self, launch: Launch) -> Result<RunSlot, engine::LaunchError> {
        let run = self.next_run;
        let recording = match launch.record {
            Some(path) => Some(path),
            None => self.runs_file(&launch.scenario, run)?,
        };
        let options = LaunchOptions {
            run,
            seed: Some(launch.seed),
            goal: launch.goal,
            flags: launch.flags,
            record: recording.clone(),
            start_paused: self.settings.start_paused,
            clock: Some(ClockMode::Real),
            source: launch.source.clone(),
            provider: self.settings.provider.clone(),
            allow_exec: launch.allow_exec,
            decide: launch.decide,
            // Someone watches: a table that escalates asks them.
            attended: true,
            cache: self.settings.cache.clone(),
            observers: self
                .settings
                .exporter
                .iter()
                .map(|e| e.observer())
                .collect(),
        };
        let handle = match &self.settings.link {
            Some(link) => link.launch(Arc::clone(&launch.scenario), &self.hub, options)?,
            None => engine::launch(Arc::clone(&launch.scenario), &self.hub, options)?,
        };
        self.next_run += 1;
        let mut slot = RunSlot::new(RunState::new(run), launch.scenario, launch.source);
        slot.recording = recording;
        slot.driver = Some(Driver::Local(Engine {
            clock: handle.clock(),
            handle,
        }));
        Ok(slot)
    }

    /// Show `live`, a run of another engine, from its first event, and
    /// select it; a run shown already is selected again.
    pub(crate) fn attach(&mut self, live: &crate::nats::watch::LiveRun) -> Result<(), String> {
        if let Some(index) = self.slots.iter().position(|s| s.remote() == Some(&live.id)) {
            self.selected = index;
            return Ok(());
        }
        let Some(source) = &self.remote else {
            return Err("not attached to a NATS server".to_string());
        };
        let run = self.next_run;
        self.next_run += 1;
        let mut slot = RunSlot::new(
            RunState::new(run),
            Arc::clone(&live.scenario),
            Some(format!("run {} (attached over NATS)", live.id)),
        );
        slot.driver = Some(Driver::Remote(Box::new(
            source.attach(live.id.clone(), run),
        )));
        self.add(slot);
        Ok(())
    }

    /// A new file in the runs folder for `run`, creating the folder; `None`
    /// when the dashboard does not record.
    fn runs_file(
        &self,
        scenario: &Scenario,
        run: RunId,
    ) -> Result<Option<PathBuf>, engine::LaunchError> {
        let Some(dir) = &self.settings.runs_dir else {
            return Ok(None);
        };
        std::fs::create_dir_all(dir).map_err(|e| crate::record::RecordPathError {
            path: dir.clone(),
            reason: format!("cannot create the runs folder: {e}"),
        })?;
        let stamp = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S");
        Ok(Some(dir.join(format!(
            "{stamp}-{}-run{run}.jsonl",
            super::export::file_safe(&scenario.name)
        ))))
    }

    fn add(&mut self, slot: RunSlot) {
        self.slots.push(slot);
        self.selected = self.slots.len() - 1;
    }

    /// Show a run from its events alone (a recording, or events captured in
    /// a test): the same state and panes as a live run, without an engine.
    /// Returns `None` when the events do not start with the run's start.
    pub(crate) fn add_from_events(
        &mut self,
        events: &[Arc<Event>],
        source: Option<String>,
    ) -> Option<usize> {
        let first = events.first()?;
        let EventKind::RunStarted(started) = &first.kind else {
            return None;
        };
        let state = RunState::from_events(first.run, events);
        self.next_run = self.next_run.max(first.run + 1);
        self.add(RunSlot::new(state, Arc::clone(&started.scenario), source));
        Some(self.selected)
    }

    /// Open a recording as a replay and select it. The error says why the
    /// file cannot be replayed.
    pub(crate) fn open_replay(&mut self, path: &Path) -> Result<(), String> {
        let opened = Replay::open_file(path).map_err(|e| e.to_string())?;
        let Some((replay, state)) = opened else {
            return Err(format!("{}: no events", path.display()));
        };
        let first = replay.events().first();
        let Some(EventKind::RunStarted(started)) = first.map(|e| &e.kind) else {
            return Err(format!(
                "{}: the recording does not start with the run's start (seq {})",
                path.display(),
                first.map_or(0, |e| e.seq)
            ));
        };
        let scenario = Arc::clone(&started.scenario);
        let source = path.display().to_string();
        let mut slot = RunSlot::new(state, scenario, Some(source));
        slot.recording = Some(path.to_path_buf());
        slot.replay = Some(replay);
        self.add(slot);
        Ok(())
    }

    /// An event from the bus, folded into its live run. Replays have run
    /// ids of their own recordings; live events are not theirs.
    pub(crate) fn apply(&mut self, event: Arc<Event>) {
        let Some(slot) = live(&mut self.slots, event.run) else {
            return;
        };
        if let Some(Driver::Remote(remote)) = &mut slot.driver {
            remote.heard();
        }
        slot.state.apply(event);
        slot.ui.after_event(&slot.state);
        if !slot.state.is_live() {
            match slot.driver.take() {
                Some(Driver::Local(engine)) => self.retired.push(engine.handle),
                Some(Driver::Remote(_)) => slot.attached = true,
                None => {}
            }
        }
    }

    /// The hub dropped `n` events for this viewer.
    pub(crate) fn missed(&mut self, n: u64) {
        for slot in self
            .slots
            .iter_mut()
            .filter(|s| s.is_live() && s.remote().is_none())
        {
            slot.state.note_missed(n);
        }
    }

    /// Send `command` to the engine of run `run`; a run without one (a
    /// replay, a finished run) has nothing to send it to. A run of another
    /// engine answers later, as a [`RemoteFeed::Replied`](super::remote::RemoteFeed).
    pub(crate) fn send(&mut self, run: RunId, command: Control) -> Result<(), String> {
        match self.live_mut(run).and_then(|s| s.driver.as_ref()) {
            Some(Driver::Local(engine)) => engine
                .handle
                .controller
                .send(command)
                .map_err(|e| e.to_string()),
            Some(Driver::Remote(remote)) => {
                remote.send(run, command);
                Ok(())
            }
            None => Ok(()),
        }
    }

    fn retire(&mut self, mut slot: RunSlot) {
        if let Some(Driver::Local(engine)) = slot.driver.take() {
            engine.handle.controller.cancel();
            self.retired.push(engine.handle);
        }
    }

    /// Every handle still to finish, for a clean shutdown: live runs are
    /// cancelled first.
    pub(crate) fn take_handles(&mut self) -> Vec<RunHandle> {
        let mut handles = std::mem::take(&mut self.retired);
        for slot in &mut self.slots {
            if let Some(Driver::Local(engine)) = slot.driver.take() {
                engine.handle.controller.cancel();
                handles.push(engine.handle);
            }
        }
        handles
    }
}

/// The slot showing the engine's run `run` (not a replay of it).
fn live(slots: &mut [RunSlot], run: RunId) -> Option<&mut RunSlot> {
    slots
        .iter_mut()
        .find(|s| s.replay.is_none() && s.state.run == run)
}
