//! The dashboard's runs: numbering them, showing a run once its engine
//! started (in place of the run it restarts), a run of another engine, a
//! run from its events alone or from a recording, and folding the bus's
//! events into the run they belong to. The engines are the loop's: this
//! only shows what they do.

use super::effect::Started;
use super::recording::Opened;
use super::remote::AttachedRun;
use super::slot::{Driver, RunSlot};
use super::state::RunState;
use crate::bus::{Event, EventKind, RunId};
use std::sync::Arc;

pub(crate) use super::launch::Launch;
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
            answer: None,
            allow_exec: false,
            cassette: None,
            fork: None,
            model: None,
        }
    }
}

pub struct Runs {
    slots: Vec<RunSlot>,
    /// The run the screen shows.
    pub selected: usize,
    /// The number the next run launched or attached is given: taken once
    /// it starts, so a launch that fails leaves it to the next.
    next_run: RunId,
    /// The run others are compared with (`p`), by index.
    pinned: Option<usize>,
}

impl Default for Runs {
    fn default() -> Self {
        Runs {
            slots: Vec::new(),
            selected: 0,
            next_run: 1,
            pinned: None,
        }
    }
}

impl Runs {
    /// The number the next run is given.
    pub(crate) fn next_run(&self) -> RunId {
        self.next_run
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

    /// The shown run's stop, once it has one, was seen: the attention line
    /// leaves it out from then on.
    pub(crate) fn acknowledge_shown(&mut self) {
        if let Some(slot) = self.selected_mut()
            && slot.state.outcome.is_some()
        {
            slot.ui.stop_seen = true;
        }
    }

    pub(crate) fn select_previous(&mut self) {
        self.selected = self.selected.saturating_sub(1);
    }

    pub(crate) fn select_next(&mut self) {
        self.selected = (self.selected + 1).min(self.slots.len().saturating_sub(1));
    }

    /// Show a run whose engine started, selected: in place of the run it
    /// restarts, where that one is shown.
    pub(crate) fn started(&mut self, started: Started) {
        self.next_run = self.next_run.max(started.run + 1);
        let mut fresh = RunSlot::new(RunState::new(started.run), started.scenario, started.source);
        fresh.recording = started.recording;
        fresh.driver = Some(Driver::Local(started.clock));
        let replaced = started
            .in_place_of
            .and_then(|old| self.slots.iter().position(|s| s.state.run == old));
        match replaced {
            Some(index) => {
                self.slots[index] = fresh;
                // The pinned run is gone: its place holds another run.
                if self.pinned == Some(index) {
                    self.pinned = None;
                }
            }
            None => self.add(fresh),
        }
    }

    /// Show a program launched here, selected: its events come on the bus
    /// as an engine's do, and the watched unit draws it, as another
    /// framework's run (its spans would be its rows).
    pub(crate) fn started_program(&mut self, started: Started) {
        let (run, clock) = (started.run, started.clock.clone());
        self.started(started);
        if let Some(slot) = self.slots.iter_mut().find(|s| s.state.run == run) {
            slot.driver = Some(Driver::Program(clock));
            slot.unit = super::patterns::unit_for(
                crate::scenario::PatternKind::Swarm,
                Some(crate::watch::translate::WATCH_SOURCE),
            );
        }
    }

    /// Show `live`, a run of another engine, from its first event, and
    /// select it; returns the number it is shown as, for the loop to
    /// follow it, or `None` when it is shown already (and now selected).
    pub(crate) fn attach(&mut self, live: &crate::nats::watch::LiveRun) -> Option<RunId> {
        if let Some(index) = self.slots.iter().position(|s| s.remote() == Some(&live.id)) {
            self.selected = index;
            return None;
        }
        let run = self.next_run;
        self.next_run += 1;
        let mut slot = RunSlot::new(
            RunState::new(run),
            Arc::clone(&live.scenario),
            Some(format!("run {} (attached over NATS)", live.id)),
        );
        slot.driver = Some(Driver::Remote(AttachedRun::new(live.id.clone())));
        self.add(slot);
        Some(run)
    }

    /// Show a watched run told from `trace`, seated with `scenario` (its
    /// start's), after the others; the number it is shown as. The
    /// selection stays where it is, but for the first run.
    pub(crate) fn open_watched(
        &mut self,
        trace: crate::span::TraceId,
        scenario: Arc<crate::scenario::Scenario>,
    ) -> RunId {
        let run = self.next_run;
        self.next_run += 1;
        let source = format!(
            "{}{}",
            crate::watch::translate::WATCH_SOURCE,
            crate::span::trace_hex(trace)
        );
        let mut slot = RunSlot::new(RunState::new(run), scenario, Some(source.clone()));
        slot.unit = super::patterns::unit_for(crate::scenario::PatternKind::Swarm, Some(&source));
        slot.driver = Some(Driver::Watched {
            trace,
            since: tokio::time::Instant::now(),
        });
        self.slots.push(slot);
        if self.slots.len() == 1 {
            self.selected = 0;
        }
        run
    }

    /// Let go of the oldest finished watched runs beyond `keep` of them
    /// (the watch holds as many), never the one shown or pinned.
    pub(crate) fn let_go_of_watched(&mut self, keep: usize) {
        loop {
            let finished: Vec<usize> = (0..self.slots.len())
                .filter(|i| {
                    let slot = &self.slots[*i];
                    slot.is_watched() && slot.replay.is_none() && !slot.is_live()
                })
                .collect();
            if finished.len() <= keep {
                return;
            }
            let Some(at) = finished
                .into_iter()
                .find(|i| *i != self.selected && Some(*i) != self.pinned)
            else {
                return;
            };
            self.slots.remove(at);
            if self.selected > at {
                self.selected -= 1;
            }
            self.pinned = match self.pinned {
                Some(p) if p > at => Some(p - 1),
                other => other,
            };
        }
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

    /// Show `opened` as a replay, selected.
    pub(crate) fn add_replay(&mut self, opened: Opened) {
        let source = opened.path.display().to_string();
        let mut slot = RunSlot::new(opened.state, opened.scenario, Some(source));
        slot.recording = Some(opened.path);
        slot.replay = Some(opened.replay);
        self.add(slot);
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
        if !slot.state.is_live() && matches!(slot.driver.take(), Some(Driver::Remote(_))) {
            slot.attached = true;
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
}

/// The slot showing the engine's run `run` (not a replay of it).
fn live(slots: &mut [RunSlot], run: RunId) -> Option<&mut RunSlot> {
    slots
        .iter_mut()
        .find(|s| s.replay.is_none() && s.state.run == run)
}
