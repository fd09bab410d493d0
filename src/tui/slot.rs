//! One run on the dashboard: its folded state, what its screen remembers,
//! its pattern's unit, where it came from, and (while an engine drives
//! it) what drives it: an engine of this process, whose clock it reads,
//! or an engine elsewhere, followed over NATS; or the recording it
//! replays. The engines themselves are the loop's: a slot only knows of
//! them. Drawing gets a `RunView`, which leaves the driver out.

use super::patterns::{self, unit::PatternUnit};
use super::remote::AttachedRun;
use super::replay::Replay;
use super::state::RunState;
use super::view_state::RunUi;
use crate::clock::RunClock;
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
    pub(super) driver: Option<Driver>,
    /// The run was attached from another engine (`conclave attach`): it
    /// stays that engine's to restart or edit after it ends.
    pub(super) attached: bool,
    /// A watched run's hook holds it (its steering paused it): its tab
    /// says so.
    pub(crate) held: bool,
}

/// What drives a live run: an engine of this process, by its clock (to
/// show the run's time between events), or one on another machine whose
/// events arrive through NATS (`conclave attach`).
pub(super) enum Driver {
    Local(RunClock),
    Remote(AttachedRun),
    /// Another framework's run, told by `conclave watch` from the trace's
    /// spans as they come; its clock counts from its first span's arrival.
    Watched {
        trace: crate::span::TraceId,
        since: tokio::time::Instant,
    },
    /// A program launched here (docs/launch.md), by its run's clock: its
    /// events come on the bus; a stop reaches its process group.
    Program(RunClock),
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
        let started_from = state.info.as_ref().and_then(|i| i.source.as_deref());
        RunSlot {
            unit: patterns::unit_for(scenario.pattern, started_from),
            state,
            ui,
            scenario,
            source,
            recording: None,
            next_goal: None,
            replay: None,
            driver: None,
            attached: false,
            held: false,
        }
    }

    /// The run clock now: live for a running run, the last event's time
    /// otherwise.
    pub(crate) fn clock_ms(&self) -> u64 {
        match (&self.replay, &self.driver, self.state.is_live()) {
            (Some(replay), _, _) if replay.playing => replay.clock_ms().max(self.state.t_ms),
            (None, Some(Driver::Local(clock) | Driver::Program(clock)), true) => {
                clock.elapsed_ms().max(self.state.t_ms)
            }
            (None, Some(Driver::Watched { since, .. }), true) => {
                let ms = u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
                ms.max(self.state.t_ms)
            }
            (None, Some(Driver::Remote(remote)), true) => remote.clock_ms(
                self.state.t_ms,
                self.state.info.as_ref().map(|i| i.clock),
                self.state.activity == super::state::Activity::Running,
            ),
            _ => self.state.t_ms,
        }
    }

    pub fn is_live(&self) -> bool {
        self.state.is_live()
    }

    /// Whether an engine drives the run, here or elsewhere: controls
    /// reach it.
    pub fn has_engine(&self) -> bool {
        matches!(self.driver, Some(Driver::Local(_) | Driver::Remote(_)))
    }

    /// The trace a live watched run is told from: what its hook's
    /// steering names it by.
    pub(crate) fn watched_trace(&self) -> Option<crate::span::TraceId> {
        match &self.driver {
            Some(Driver::Watched { trace, .. }) => Some(*trace),
            _ => None,
        }
    }

    /// Whether an engine of this process drives the run: quitting cancels
    /// it.
    pub(crate) fn has_local_engine(&self) -> bool {
        matches!(self.driver, Some(Driver::Local(_) | Driver::Program(_)))
    }

    /// Whether the run is a program launched here.
    pub(crate) fn is_program(&self) -> bool {
        matches!(self.driver, Some(Driver::Program(_)))
    }

    /// The run as other machines name it, when it is attached from one.
    /// Whether the run is, or was until it ended, another engine's.
    pub(crate) fn is_attached(&self) -> bool {
        self.attached || self.remote().is_some()
    }

    /// Whether the run is another framework's, told from its spans by
    /// `conclave watch` (live, or replayed from the watch's recording).
    pub(crate) fn is_watched(&self) -> bool {
        self.state.is_watched()
    }

    pub fn remote(&self) -> Option<&crate::nats::subjects::RemoteRunId> {
        match &self.driver {
            Some(Driver::Remote(remote)) => Some(&remote.id),
            _ => None,
        }
    }

    /// Whether the run ended with work undone (see
    /// [`crate::tui::state::outcome::Outcome::is_partial`]).
    pub(crate) fn partial(&self) -> bool {
        self.state.outcome.as_ref().is_some_and(|outcome| {
            let lacking = self
                .unit
                .shortfall(&self.state.pattern)
                .is_some_and(|s| s.lacking);
            outcome.is_partial(lacking)
        })
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
        self.ui.log.refilter(filter, &self.state);
    }
}
