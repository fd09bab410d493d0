//! The gateway's vocabulary on the bus: a circuit breaker's states and why
//! it moves between them. Shared by the gateway, the events, the recorder
//! and the dashboard; it holds data only and decides nothing.

use serde::{Deserialize, Serialize};

/// A circuit breaker's state (003).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakerState {
    /// Calls go through; failures are counted.
    Closed,
    /// Calls fail fast until the cooling period is over.
    Open,
    /// A few probe calls go through to test the tool.
    HalfOpen,
}

impl BreakerState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half_open",
        }
    }
}

/// Why a breaker changed state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakerReason {
    /// Consecutive failures reached the threshold.
    FailureThreshold,
    /// The share of failures in the window reached the threshold.
    FailureRate,
    /// The open period passed; the next call is a probe.
    CooledDown,
    /// Every probe succeeded.
    ProbesSucceeded,
    /// A probe failed; the breaker opens for another period.
    ProbeFailed,
    /// A flag switched the breaker off; it forgets its failures.
    SwitchedOff,
}

impl BreakerReason {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            BreakerReason::FailureThreshold => "failure_threshold",
            BreakerReason::FailureRate => "failure_rate",
            BreakerReason::CooledDown => "cooled_down",
            BreakerReason::ProbesSucceeded => "probes_succeeded",
            BreakerReason::ProbeFailed => "probe_failed",
            BreakerReason::SwitchedOff => "switched_off",
        }
    }
}
