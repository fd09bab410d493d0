//! What a pattern's share of the run state must do: fold the run's events
//! and close when the run ends. Its own file, so that each pattern's state
//! needs nothing of the registry that holds every pattern's.

use crate::bus::EventKind;
use crate::tui::state::outcome::Outcome;
use std::fmt::Debug;

/// A pattern's fold over its own events: `fold = events.fold(apply)`, the
/// same for a live run and its replay.
pub trait Fold: Clone + Debug + Default + PartialEq + Send + Sync {
    /// Fold one event at run time `t_ms`; another pattern's are ignored.
    fn apply(&mut self, kind: &EventKind, t_ms: u64);
    /// The run ended: what was in flight will not finish.
    fn close(&mut self, outcome: &Outcome);
}
