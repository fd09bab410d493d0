//! The run's budgets over the turns of every team: how many model calls
//! and how much run time, at any depth.

use super::scenario::{DEFAULT_MAX_LLM_CALLS, DEFAULT_TEAM_MAX_SECONDS};
use crate::scenario::Scenario;
use std::time::Duration;

/// The run's budgets over every agent's model calls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TeamBudget {
    pub(crate) max_llm_calls: u64,
    pub(crate) max_seconds: Duration,
}

impl TeamBudget {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        let budget = scenario.budget.clone().unwrap_or_default();
        let seconds = budget.max_seconds.unwrap_or(DEFAULT_TEAM_MAX_SECONDS);
        TeamBudget {
            max_llm_calls: u64::from(budget.max_llm_calls.unwrap_or(DEFAULT_MAX_LLM_CALLS)),
            // To the nearest nanosecond, so 0.7 s is exactly 700 ms, and
            // held to a week so that no deadline overflows.
            max_seconds: crate::duration::clamp_seconds(seconds),
        }
    }
}
