//! One run on the dashboard: its folded state, what its screen remembers,
//! its pattern's unit, where it came from, and (while the engine drives
//! it) its engine handle and clock, or the recording it replays. Drawing
//! gets a `RunView`, which leaves the engine out.

use super::patterns::{self, unit::PatternUnit};
use super::replay::Replay;
use super::state::RunState;
use super::view_state::RunUi;
use crate::clock::RunClock;
use crate::engine::RunHandle;
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct RunSlot {
    pub state: RunState,
    pub ui: RunUi,
    pub(crate) scenario: Arc<Scenario>,
    /// The dashboard's part for the scenario's pattern.
    pub(crate) unit: &'static dyn PatternUnit,
    /// The scenario file, if it came from one.
    pub(crate) source: Option<String>,
    pub recording: Option<PathBuf>,
    /// A goal edited for the next restart.
    pub(crate) next_goal: Option<String>,
    /// Set when the run is a replay of a recording.
    pub replay: Option<Replay>,
    /// The engine driving the run, until it ends or is replaced.
    pub(super) engine: Option<Engine>,
}

/// A live run's engine: the handle to control and finish it, and its
/// clock, to show its time between events.
pub(super) struct Engine {
    pub(super) handle: RunHandle,
    pub(super) clock: RunClock,
}

/// What drawing reads of a run: everything but its engine.
#[derive(Clone, Copy)]
pub struct RunView<'a> {
    pub state: &'a RunState,
    pub ui: &'a RunUi,
    pub scenario: &'a Scenario,
    pub unit: &'a dyn PatternUnit,
    pub(crate) recording: Option<&'a Path>,
    pub(crate) replay: Option<&'a Replay>,
    /// The run clock now.
    pub now_ms: u64,
}

impl RunSlot {
    /// A run shown from `state`, without an engine (yet).
    pub(super) fn new(state: RunState, scenario: Arc<Scenario>, source: Option<String>) -> Self {
        let mut ui = RunUi::default();
        ui.after_event(&state);
        RunSlot {
            state,
            ui,
            unit: patterns::unit(scenario.pattern),
            scenario,
            source,
            recording: None,
            next_goal: None,
            replay: None,
            engine: None,
        }
    }

    /// The run clock now: live for a running run, the last event's time
    /// otherwise.
    pub(crate) fn clock_ms(&self) -> u64 {
        match (&self.replay, &self.engine, self.state.is_live()) {
            (Some(replay), _, _) if replay.playing => replay.clock_ms().max(self.state.t_ms),
            (None, Some(engine), true) => engine.clock.elapsed_ms().max(self.state.t_ms),
            _ => self.state.t_ms,
        }
    }

    pub fn is_live(&self) -> bool {
        self.state.is_live()
    }

    /// Whether an engine drives the run: controls reach it.
    pub fn has_engine(&self) -> bool {
        self.engine.is_some()
    }

    pub fn view(&self) -> RunView<'_> {
        RunView {
            state: &self.state,
            ui: &self.ui,
            scenario: &self.scenario,
            unit: self.unit,
            recording: self.recording.as_deref(),
            replay: self.replay.as_ref(),
            now_ms: self.clock_ms(),
        }
    }

    /// Show `state` in place of the current one (a replay moved), keeping
    /// the screen's filter.
    pub(super) fn show(&mut self, state: RunState) {
        self.state = state;
        let filter = self.ui.log.filter.clone();
        self.ui.after_event(&self.state);
        self.ui.log.set_filter(filter, &self.state);
    }
}
