//! The events a run's log shows, oldest first, bounded: older events leave
//! the view (they stay in the recording).

use crate::bus::{Event, EventKind};
use std::collections::VecDeque;
use std::sync::Arc;

/// How many events the log keeps for viewing.
pub(crate) const LOG_CAPACITY: usize = 50_000;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventLog {
    pub(crate) events: VecDeque<Arc<Event>>,
    /// Older events dropped from view to keep the log bounded.
    pub(crate) dropped: u64,
}

/// Whether an event is a line of the log: a call's deltas are not (its
/// text shows where the call's agent sits; the recording keeps them).
fn is_line(event: &Event) -> bool {
    !matches!(event.kind, EventKind::CallDelta { .. })
}

impl EventLog {
    pub(super) fn push(&mut self, event: Arc<Event>) {
        if !is_line(&event) {
            return;
        }
        if self.events.len() == LOG_CAPACITY {
            self.events.pop_front();
            self.dropped += 1;
        }
        self.events.push_back(event);
    }

    /// The log as it stands after `before` events and then `events`: the
    /// last [`LOG_CAPACITY`] of its lines. (`before` counts every event,
    /// deltas too, where a log that was pushed to counts its lines.)
    pub(crate) fn tail_of(mut events: Vec<Arc<Event>>, before: usize) -> EventLog {
        events.retain(|e| is_line(e));
        let start = events.len().saturating_sub(LOG_CAPACITY);
        let mut events = VecDeque::from(events);
        events.drain(..start);
        EventLog {
            events,
            dropped: (before + start) as u64,
        }
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }
}
