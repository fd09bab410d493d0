//! Replay with time travel: a recording's events driven through the same
//! reducer as a live run. Moving anywhere is instant: the state is kept at
//! checkpoints, and a jump restores the nearest checkpoint before the
//! target and folds forward from it. Stepping moves
//! by the pattern's gate units (a round, a dispatch wave, a turn). A
//! recording opened from its file is not held whole: the events a move
//! folds are read from the file again ([`Events`]), by the loop, never by
//! the app: a move of such a replay is asked for ([`Replay::go`]) and
//! shown when its state comes back, and playback applies events the loop
//! read ahead.

use super::state::{EventLog, RunState};
use crate::bus::{BreakerState, Event};
use crate::cassette::GateTarget;
use crate::record::{Changed, Events, Recording, RecordingError};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

mod ahead;
mod fork_gate;
mod marks;
mod seeker;
mod speed;
pub(crate) use ahead::Want;
pub(crate) use fork_gate::ForkGate;
use marks::Marks;
pub use seeker::{Seeker, Sought};
pub(crate) use speed::Speed;

/// How many events a playing replay read from its file asks the loop for
/// at once; it asks again when fewer than half are left.
const READ_AHEAD: usize = 4096;

/// Events between two checkpoints, at the least.
const CHECKPOINT_EVERY: usize = 4096;

/// Past the first checkpoints, the events between two are this share of
/// the position. A checkpoint is a copy of the state, which grows (at
/// most) with the events folded: with checkpoints spaced evenly their
/// memory grew with the square of the recording (a 100,000-task run's
/// 173 copies held 8.8 GB); spaced geometrically it is a few times the
/// final state's, and a jump still folds at most an eighth of the events
/// before it.
const CHECKPOINT_SHARE: usize = 8;

/// A recording and where the replay stands in it.
#[derive(Clone, Debug)]
pub struct Replay {
    events: Events,
    /// The events folded from checkpoints, here or on the loop's thread.
    seeker: Seeker,
    /// How many events are applied: 1 shows the run's start.
    position: usize,
    /// The seq of the last event applied (0 before the first).
    seq: u64,
    /// Where a move asked of the loop goes, until its state comes back.
    pub(crate) pending: Option<usize>,
    /// Events from `position` on, read ahead by the loop for playback of a
    /// recording read from its file.
    ahead: VecDeque<Arc<Event>>,
    /// Where a read ahead asked of the loop starts, until it comes back.
    reading: Option<usize>,
    /// Positions where a gate unit begins (before round N, before wave N).
    pub(crate) units: Vec<usize>,
    /// Positions stepping stops at besides the units: just after the table
    /// asked a person, and just after the answer, as the live run stopped.
    stops: Vec<usize>,
    /// Where a breaker moved, and to what: the timeline marks them.
    breaker_moves: Vec<(usize, BreakerState)>,
    /// The gates the run passed (round 3, wave 2), by the index of the
    /// event that opened the step after each: where a fork can go live.
    gates: Vec<(usize, GateTarget)>,
    /// The flags at each gate and the questions after it, for a fork.
    fork_facts: marks::ForkFacts,
    /// A call finished without what it asked and answered: the recording
    /// was made before cassettes and cannot serve a fork.
    unrecorded_calls: bool,
    /// Whether the pending move was handed to the loop.
    asked_move: bool,
    pub(crate) playing: bool,
    pub(crate) speed: Speed,
    /// The playback clock, in run milliseconds.
    clock_ms: f64,
    /// Problems found reading the recording, one line each.
    pub(crate) problems: Vec<String>,
    /// Said when the recording ends without the run's finish.
    pub(crate) note: Option<String>,
}

impl Replay {
    /// A replay of a recording held in memory, at the run's first event.
    /// `None` for a recording without events.
    pub fn open(recording: Recording) -> Option<(Replay, RunState)> {
        let mut marks = Marks::default();
        for (i, event) in recording.events.iter().enumerate() {
            marks.see(i, event);
        }
        let problems = recording.problems.iter().map(ToString::to_string).collect();
        Self::start(Events::held(recording.events), marks, problems)
    }

    /// A replay of the recording at `path`, at the run's first event: its
    /// events are read once to find the gate units and the breaker moves,
    /// and again from the file when a move folds them. `Ok(None)` for a
    /// recording without events.
    pub fn open_file(path: &Path) -> Result<Option<(Replay, RunState)>, RecordingError> {
        Self::open_file_reporting(path, |_| {})
    }

    /// [`Replay::open_file`], telling `progress` how many bytes of the
    /// file are read as it goes.
    pub fn open_file_reporting(
        path: &Path,
        mut progress: impl FnMut(u64),
    ) -> Result<Option<(Replay, RunState)>, RecordingError> {
        let mut marks = Marks::default();
        let (events, problems) = Events::open(path, |i, event, read| {
            marks.see(i, event);
            progress(read);
        })?;
        let problems = problems.iter().map(ToString::to_string).collect();
        Ok(Self::start(events, marks, problems))
    }

    /// Nothing is folded ahead: checkpoints are placed the first time the
    /// replay goes past them, so the first frame of a long recording comes
    /// at once.
    fn start(events: Events, marks: Marks, problems: Vec<String>) -> Option<(Replay, RunState)> {
        events.first()?;
        let note = events.cut_short();
        let mut replay = Replay {
            seeker: Seeker::new(events.clone()),
            events,
            position: 0,
            seq: 0,
            pending: None,
            ahead: VecDeque::new(),
            reading: None,
            units: marks.units,
            stops: marks.stops,
            breaker_moves: marks.breaker_moves,
            gates: marks.gates,
            fork_facts: marks.fork_facts,
            unrecorded_calls: marks.unrecorded_calls,
            asked_move: false,
            playing: false,
            speed: Speed::X1,
            clock_ms: 0.0,
            problems,
            note,
        };
        let start = replay.seek(1);
        Some((replay, start))
    }

    /// The positions after which a breaker had moved, with the state it
    /// moved to, in order.
    pub(crate) fn breaker_moves(&self) -> &[(usize, BreakerState)] {
        &self.breaker_moves
    }

    /// Every event of the recording, wherever the replay stands.
    pub(crate) fn events(&self) -> &Events {
        &self.events
    }

    pub(crate) fn position(&self) -> usize {
        self.position
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub fn at_end(&self) -> bool {
        self.position >= self.events.len()
    }

    /// The seq of the last applied event.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    pub(crate) fn last_seq(&self) -> u64 {
        self.events.last().map_or(0, |e| e.seq)
    }

    /// Which gate unit the position is in (1 for the first round or wave),
    /// and how many there are.
    pub fn unit(&self) -> (usize, usize) {
        let passed = self.units.iter().filter(|u| **u < self.position).count();
        (passed, self.units.len())
    }

    /// The state after the first `position` events, folded here: the
    /// loop's work for a recording read from its file (see [`Replay::go`]).
    pub fn seek(&mut self, position: usize) -> RunState {
        let sought = self.seeker.seek(position);
        self.arrive(sought)
    }

    /// Where the replay stands once a fold came back: the state to show.
    pub(crate) fn arrive(&mut self, sought: Sought) -> RunState {
        if let Some(changed) = &sought.lost {
            self.lost(changed);
        }
        let state = sought.state;
        self.seq = state.log.events.back().map_or(0, |e| e.seq);
        self.position = sought.position;
        self.clock_ms = state.t_ms as f64;
        self.pending = None;
        self.ahead.clear();
        self.reading = None;
        state
    }

    /// Move to `position`: folded at once when the events are held; else
    /// `None`, the replay waiting on the loop, which [`Replay::wants`]
    /// asks.
    pub(crate) fn go(&mut self, position: usize) -> Option<RunState> {
        if !self.seeker.reads_file() {
            return Some(self.seek(position));
        }
        self.pending = Some(position.min(self.events.len()));
        self.asked_move = false;
        None
    }

    /// Where the replay's states come from, for the loop to read it.
    pub(crate) fn seeker(&self) -> &Seeker {
        &self.seeker
    }

    /// Whether `seeker` is this replay's.
    pub(crate) fn has(&self, seeker: &Seeker) -> bool {
        self.seeker == *seeker
    }

    /// The recording's file no longer holds what it held: the replay stays
    /// where it could go and says why.
    fn lost(&mut self, changed: &Changed) {
        self.playing = false;
        self.note = Some(changed.to_string());
    }

    /// Where the replay stands, or goes when a move is on its way.
    fn at(&self) -> usize {
        self.pending.unwrap_or(self.position)
    }

    /// The end of the current gate unit (the start of the next one), or a
    /// person's question or answer before it.
    pub(crate) fn next_step(&self) -> usize {
        let at = self.at();
        let after = |marks: &[usize]| marks.iter().copied().find(|u| *u > at);
        [after(&self.units), after(&self.stops)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(self.events.len())
    }

    /// The start of the gate unit before the current position, or a
    /// person's question or answer after it.
    pub(crate) fn previous_step(&self) -> usize {
        let at = self.at();
        let before = |marks: &[usize]| marks.iter().copied().rev().find(|u| *u < at);
        [before(&self.units), before(&self.stops)]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(1)
            .max(1)
    }

    /// The end of gate unit `n` (round `n`, wave `n`).
    pub(crate) fn unit_end(&self, n: usize) -> usize {
        self.units.get(n).copied().unwrap_or(self.events.len())
    }

    /// To the end of the current gate unit (see [`Replay::next_step`]).
    pub fn step_forward(&mut self) -> RunState {
        self.seek(self.next_step())
    }

    /// Back to the start of the gate unit before (see
    /// [`Replay::previous_step`]).
    pub fn step_back(&mut self) -> RunState {
        self.seek(self.previous_step())
    }

    /// To the end of gate unit `n` (round `n`, wave `n`).
    pub fn jump_to_unit(&mut self, n: usize) -> RunState {
        self.seek(self.unit_end(n))
    }

    /// Advance playback by `elapsed_ms` of wall time; the events now due
    /// are applied to `state`. Returns whether anything changed. A replay
    /// read from its file applies what the loop read ahead and waits
    /// (its clock too) while nothing is.
    pub(crate) fn tick(&mut self, elapsed_ms: f64, state: &mut RunState) -> bool {
        if !self.playing || self.pending.is_some() {
            return false;
        }
        let Some(factor) = self.speed.factor() else {
            self.playing = false;
            return match self.go(self.events.len()) {
                Some(end) => {
                    *state = end;
                    true
                }
                // The end comes back from the loop (see `wants`).
                None => false,
            };
        };
        if self.seeker.reads_file() && self.ahead.is_empty() {
            return false;
        }
        self.clock_ms += elapsed_ms * factor;
        let mut changed = false;
        loop {
            let event = match self.due() {
                Ok(Some(event)) => event,
                Ok(None) => break,
                Err(lost) => {
                    self.lost(&lost);
                    return changed;
                }
            };
            if event.t_ms as f64 > self.clock_ms {
                break;
            }
            self.seq = event.seq;
            state.apply(event);
            self.position += 1;
            self.ahead.pop_front();
            changed = true;
        }
        if self.at_end() {
            self.playing = false;
        }
        changed
    }

    /// Whether the recording keeps every call's question and answer, as a
    /// fork needs.
    pub(crate) fn serves_calls(&self) -> bool {
        !self.unrecorded_calls
    }

    /// The run clock the replay stands at.
    pub(crate) fn clock_ms(&self) -> u64 {
        self.clock_ms.max(0.0) as u64
    }
}

fn without_log(state: &RunState) -> RunState {
    RunState {
        log: EventLog::default(),
        ..state.clone()
    }
}

#[cfg(test)]
pub(crate) mod tests;
