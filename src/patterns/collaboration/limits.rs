//! The round table's limits: 000's `Budget`, with its defaults.

use crate::scenario::Scenario;
use std::time::Duration;

/// 000's `Budget` defaults.
pub(crate) const DEFAULT_MAX_ROUNDS: u32 = 3;
pub(crate) const DEFAULT_MAX_MESSAGES: u32 = 12;
pub(crate) const DEFAULT_MAX_SECONDS: f64 = 40.0;
pub(crate) const DEFAULT_MIN_GO_VOTES: u32 = 2;

/// The limits of one collaboration run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Limits {
    pub(crate) max_rounds: u32,
    pub(crate) max_messages: u32,
    pub(crate) max_seconds: f64,
    pub(crate) min_go_votes: u32,
}

impl Limits {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        let budget = scenario.budget.clone().unwrap_or_default();
        Limits {
            max_rounds: budget.max_rounds.unwrap_or(DEFAULT_MAX_ROUNDS),
            max_messages: budget.max_messages.unwrap_or(DEFAULT_MAX_MESSAGES),
            max_seconds: budget.max_seconds.unwrap_or(DEFAULT_MAX_SECONDS),
            min_go_votes: budget.min_go_votes.unwrap_or(DEFAULT_MIN_GO_VOTES),
        }
    }

    pub(crate) fn time_is_up(&self, elapsed: Duration) -> bool {
        elapsed.as_secs_f64() > self.max_seconds
    }
}
