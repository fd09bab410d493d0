//! What every attempt of every tool call of a run counts against.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// What every attempt of every tool call of a run counts against: the
/// dispatch budget, if the run has one, and the run's deadline.
#[derive(Debug)]
pub(crate) struct DispatchLimits {
    used: AtomicU64,
    pub(super) max_dispatches: Option<u64>,
    /// Run time at which `max_seconds` is reached.
    pub(super) deadline: Duration,
}

impl DispatchLimits {
    pub(crate) fn new(max_dispatches: u64, deadline: Duration) -> Self {
        DispatchLimits {
            used: AtomicU64::new(0),
            max_dispatches: Some(max_dispatches),
            deadline,
        }
    }

    /// Limits without a dispatch budget (the swarm's and research's tool
    /// calls): attempts are counted but never refused for their number.
    pub(crate) fn without_budget(deadline: Duration) -> Self {
        DispatchLimits {
            used: AtomicU64::new(0),
            max_dispatches: None,
            deadline,
        }
    }

    /// No dispatch budget and no deadline, for calls a pattern bounds by
    /// its own budgets (004's research tools have neither).
    pub(crate) fn unmetered() -> Self {
        DispatchLimits::without_budget(Duration::MAX)
    }

    /// Attempts started so far, refused ones included.
    pub(crate) fn used(&self) -> u64 {
        self.used.load(Ordering::Acquire)
    }

    pub(crate) fn deadline(&self) -> Duration {
        self.deadline
    }

    /// Count one attempt; `Err` carries the count when it is over budget.
    /// Counted before the check, as 001 does, so every later attempt is
    /// over budget too.
    pub(super) fn consume(&self) -> Result<u64, u64> {
        let used = self.used.fetch_add(1, Ordering::AcqRel) + 1;
        match self.max_dispatches {
            Some(max) if used > max => Err(used),
            _ => Ok(used),
        }
    }
}
