//! A scenario's workers (`workers`, an orchestrator's) and a team's tools
//! (`tools`), simulated or real: one type, which the orchestrator's plan
//! and a team's agents call alike. Types only; the checks live in
//! `checks`, the behaviour in the provider and the patterns.

use super::error::Problem;
use super::latency::WorkerLatency;
use super::path::JsonPath;
use super::real::{CommandSpec, HttpSpec, McpToolSpec, RealCall, RealKeys};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::num::NonZeroU32;

/// A worker (or a team's tool): simulated, answering from `data` as each
/// call's latency and failures say, or real, with exactly one of `http`,
/// `command` and `mcp`. A simulated worker takes exactly the args
/// `report_date` and `region` (the gateway adds `request_id`, as 001's
/// does); a real one is given the args as the planner wrote them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkerSpec {
    /// What the worker provides; the planner is shown it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// The worker's results keyed `<report_date>:<REGION>` (the region
    /// upper-cased). A missing key, or an empty object, gives
    /// `{"warning": "<short name>_data_missing"}`.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) data: IndexMap<String, Map<String, Value>>,
    /// How long each call takes: whole milliseconds, `{"min", "max"}` drawn
    /// per call from the run's seeded source, or a list with one entry per
    /// call to this worker in call order (the last repeats). Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) latency_ms: Option<WorkerLatency>,
    /// Call numbers (1 is the run's first call to this worker) that fail
    /// with `worker_error:<name>` once their latency has passed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) fail: Vec<NonZeroU32>,
    /// Outage windows `[from_ms, to_ms]` on the run clock: a call that
    /// starts at or after `from_ms` and before `to_ms` fails at once with
    /// `worker_error:<name>` (or hangs, with `hang`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outage_ms: Vec<[u64; 2]>,
    /// During an outage, calls hang until their timeout instead of failing
    /// at once.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) hang: bool,
    /// Real: an HTTP endpoint answers each call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) http: Option<HttpSpec>,
    /// Real: a program answers each call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) command: Option<CommandSpec>,
    /// Real: a tool of an MCP server answers each call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mcp: Option<McpToolSpec>,
}

impl WorkerSpec {
    /// What the schema cannot say of the times of the worker or tool
    /// written at `path`: a latency range upside down, a list of
    /// latencies that is empty, an outage that ends before it starts.
    pub(crate) fn check_times(&self, path: &JsonPath, problems: &mut Vec<Problem>) {
        match &self.latency_ms {
            Some(WorkerLatency::Range(range)) if range.min > range.max => {
                problems.push(Problem::at(
                    path.key("latency_ms"),
                    format!(
                        "expected min ≤ max, found min {} and max {}",
                        range.min, range.max
                    ),
                ))
            }
            Some(WorkerLatency::PerCall(calls)) if calls.is_empty() => problems.push(Problem::at(
                path.key("latency_ms"),
                "expected at least one latency",
            )),
            _ => {}
        }
        for (i, [from, to]) in self.outage_ms.iter().enumerate() {
            if from >= to {
                problems.push(Problem::at(
                    path.key("outage_ms").index(i),
                    format!("expected from < to, found [{from}, {to}]"),
                ));
            }
        }
    }
}

impl WorkerSpec {
    /// How the worker is called when it is real; `None` when simulated.
    pub(crate) fn real(&self) -> Option<RealCall<'_>> {
        self.real_keys().first()
    }

    pub(crate) fn real_keys(&self) -> RealKeys<'_> {
        RealKeys {
            http: self.http.as_ref(),
            command: self.command.as_ref(),
            mcp: self.mcp.as_ref(),
        }
    }
}

/// A worker's short name: its name less a trailing `_worker`, the key of
/// its result in the orchestrator's aggregate and of a simulated worker's
/// missing-data warning (`payments_worker` → `payments`).
pub(crate) fn short_name(worker: &str) -> &str {
    worker.strip_suffix("_worker").unwrap_or(worker)
}
