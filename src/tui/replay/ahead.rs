//! Playback of a replay read from its file: the loop reads the events
//! ahead of it ([`Want::ReadAhead`]) and the replay applies them as they
//! fall due; a move is asked the same way ([`Want::Seek`]).

use super::{READ_AHEAD, Replay, Seeker};
use crate::bus::Event;
use crate::record::Changed;
use std::sync::Arc;

/// What a replay read from its file asks the loop to read for it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Want {
    /// The state after the first `usize` events.
    Seek(Seeker, usize),
    /// `count` events from `from` on: `(seeker, from, count)`.
    ReadAhead(Seeker, usize, usize),
}

impl Replay {
    /// The next event playback applies: held, or read ahead by the loop
    /// (`None` until it is).
    pub(super) fn due(&self) -> Result<Option<Arc<Event>>, Changed> {
        if self.seeker.reads_file() {
            return Ok(self.ahead.front().cloned());
        }
        self.events.get(self.position)
    }

    /// What the replay needs the loop to read from its file now: a move's
    /// state, or the events playback comes to next, as `(from, count)`.
    pub(crate) fn wants(&mut self) -> Option<Want> {
        if let Some(position) = self.pending {
            return (!self.asked_move).then(|| {
                self.asked_move = true;
                Want::Seek(self.seeker.clone(), position)
            });
        }
        let from = self.position + self.ahead.len();
        let low = self.ahead.len() < READ_AHEAD / 2;
        if !self.seeker.reads_file() || !self.playing || self.reading.is_some() || !low {
            return None;
        }
        if from >= self.events.len() {
            return None;
        }
        self.reading = Some(from);
        Some(Want::ReadAhead(self.seeker.clone(), from, READ_AHEAD))
    }

    /// Events the loop read ahead from `from` on, or why it could not.
    pub(crate) fn read_ahead(&mut self, from: usize, read: Result<Vec<Arc<Event>>, String>) {
        if self.reading != Some(from) {
            return;
        }
        self.reading = None;
        match read {
            Ok(events) if from == self.position + self.ahead.len() => self.ahead.extend(events),
            // The replay moved since it asked: what it needs is asked anew.
            Ok(_) => self.ahead.clear(),
            Err(why) => {
                self.playing = false;
                self.note = Some(why);
            }
        }
    }
}
