//! Simulated latencies, as scenarios write them: of one model call, and of
//! the calls to a worker or tool.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Simulated latency of a call: a whole number of milliseconds, or
/// {"min": ms, "max": ms} to draw from the run's seeded random source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Latency {
    Fixed(u64),
    Range(LatencyRange),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LatencyRange {
    pub(crate) min: u64,
    pub(crate) max: u64,
}

/// Simulated latency of a worker's calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum WorkerLatency {
    Fixed(u64),
    // Before `Range`: serde would read a two-entry list as a range.
    PerCall(Vec<u64>),
    Range(LatencyRange),
}
