//! Where a replay's states come from: its events folded from the nearest
//! checkpoint. A recording read from its file is read again on every fold,
//! so the app never folds one itself: it asks the loop (an effect), whose
//! blocking task runs [`Seeker::seek`] and hands back the [`Sought`]
//! state. Checkpoints are shared by the replay and that task.

use super::{CHECKPOINT_EVERY, CHECKPOINT_SHARE, without_log};
use crate::bus::{Event, RunId};
use crate::record::{Changed, Events};
use crate::tui::state::{EventLog, LOG_CAPACITY, RunState};
use parking_lot::Mutex;
use std::sync::Arc;

/// A replay's events and its checkpoints: `(position, state)` spaced by
/// [`CHECKPOINT_EVERY`] events and then by [`CHECKPOINT_SHARE`]; states
/// without their log, which is rebuilt from the events on a jump.
#[derive(Clone)]
pub struct Seeker {
    pub(crate) events: Events,
    run: RunId,
    pub(super) checkpoints: Arc<Mutex<Vec<(usize, RunState)>>>,
}

/// A replay's state after its first `position` events, and what stopped
/// the fold short.
#[derive(Debug)]
pub struct Sought {
    /// How many events are applied (fewer than asked when the file lost
    /// some).
    pub(crate) position: usize,
    pub(crate) state: RunState,
    /// The file no longer holds what it held when opened.
    pub(crate) lost: Option<Changed>,
}

impl Seeker {
    pub(super) fn new(events: Events) -> Seeker {
        let run = events.first().map_or(0, |e| e.run);
        Seeker {
            events,
            run,
            checkpoints: Arc::new(Mutex::new(vec![(0, RunState::new(run))])),
        }
    }

    /// Whether folding reads the recording's file: then only the loop's
    /// blocking work folds.
    pub(crate) fn reads_file(&self) -> bool {
        self.events.filed()
    }

    /// The state after the first `position` events: from the nearest
    /// checkpoint before it, placing the checkpoints not placed yet on the
    /// way.
    pub(crate) fn seek(&self, position: usize) -> Sought {
        let position = position.min(self.events.len());
        let mut checkpoints = self.checkpoints.lock();
        let (from, base) = checkpoints
            .iter()
            .rev()
            .find(|(at, _)| *at <= position)
            .cloned()
            .unwrap_or_else(|| (0, RunState::new(self.run)));
        let mut state = base;
        let mut placed = checkpoints.last().map_or(0, |(at, _)| *at);
        let mut reached = from;
        // The log's lines: the fold keeps those from `tail` on as it goes;
        // the ones before the checkpoint are read after it.
        let tail = position.saturating_sub(LOG_CAPACITY);
        let mut logged: Vec<Arc<Event>> = Vec::new();
        let folded = self.events.each(from..position, |i, event| {
            if i >= tail {
                logged.push(Arc::clone(&event));
            }
            state.apply(event);
            let at = i + 1;
            if at > placed && at - placed >= CHECKPOINT_EVERY.max(at / CHECKPOINT_SHARE) {
                checkpoints.push((at, without_log(&state)));
                placed = at;
            }
            reached = at;
        });
        drop(checkpoints);
        let mut lost = folded.err();
        match self.events.slice(tail..from.max(tail)) {
            Ok(mut events) => {
                events.append(&mut logged);
                state.log = EventLog::tail_of(events, tail);
            }
            Err(changed) => lost = Some(changed),
        }
        Sought {
            position: reached,
            state,
            lost,
        }
    }

    /// The events from `from` on, `count` of them at most: what a playing
    /// replay applies next.
    pub(crate) fn read_ahead(&self, from: usize, count: usize) -> Result<Vec<Arc<Event>>, Changed> {
        self.events.slice(from..from.saturating_add(count))
    }
}

impl PartialEq for Seeker {
    /// The same replay's seeker, not an equal one.
    fn eq(&self, other: &Seeker) -> bool {
        Arc::ptr_eq(&self.checkpoints, &other.checkpoints)
    }
}

impl std::fmt::Debug for Seeker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seeker")
            .field("events", &self.events)
            .finish_non_exhaustive()
    }
}
