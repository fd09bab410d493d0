//! Pattern runners: each decides *what* a run does next, calls models and
//! tools only through the gateway, stops at the control gates, publishes its
//! steps on the bus and returns its reference's result document.

pub(crate) mod collaboration;
pub(crate) mod coordinator;
pub(crate) mod in_flight;
pub(crate) mod orchestrator;
pub(crate) mod research;
pub(crate) mod swarm;
pub(crate) mod team;

#[cfg(test)]
mod hostile_output;

use crate::bus::ResultDoc;
use crate::bus::{Bus, RunStatus, RunSummary};
use crate::control::Gate;
use crate::gateway::{Gateway, Usage};
use crate::scenario::{PatternKind, Scenario};
use crate::stop::StopReason;
use serde::Serialize;
use std::sync::Arc;

/// Everything a runner may use.
pub(crate) struct RunContext {
    pub(crate) scenario: Arc<Scenario>,
    pub(crate) goal: String,
    pub(crate) bus: Bus,
    pub(crate) gate: Gate,
    pub(crate) gateway: Arc<Gateway>,
    /// The run's seed, after `--seed`.
    pub(crate) seed: u64,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub stop_reason: StopReason,
    pub(crate) phase: Option<String>,
    /// The result document `run --headless` prints, shared with the
    /// run's finish event.
    pub result: Arc<crate::bus::ResultDoc>,
    /// The result in types, as the runner knew it: what viewers show.
    pub(crate) summary: RunSummary,
    /// What the model call the run stopped on said went wrong (a refused
    /// key, an endpoint down), in words without the key.
    pub error: Option<String>,
}

pub(crate) async fn run(ctx: RunContext) -> RunOutcome {
    match ctx.scenario.pattern {
        PatternKind::Collaboration => collaboration::run(ctx).await,
        PatternKind::Orchestrator => orchestrator::run(ctx).await,
        PatternKind::Swarm => swarm::run(ctx).await,
        PatternKind::Coordinator => coordinator::run(ctx).await,
        PatternKind::Research => research::run(ctx).await,
    }
}

/// The result document of `result`, the run's `usage` last: every
/// pattern's result carries what its model calls used, beside the
/// reference's own fields. Called when the pattern is done, so the usage
/// counts every call it made.
pub(crate) fn document<T: Serialize>(result: &T, gateway: &Gateway) -> Arc<ResultDoc> {
    #[derive(Serialize)]
    struct WithUsage<'a, T> {
        #[serde(flatten)]
        result: &'a T,
        usage: Usage,
    }
    let usage = gateway.usage();
    Arc::new(ResultDoc::of(&WithUsage { result, usage }))
}

/// Free `value` on a thread of its own. A 100,000-task run's records take
/// tens of milliseconds to free, which the run's end need not wait for.
/// Where no thread can be had, the value is freed here. Not tokio's
/// blocking pool: a runtime waits for its blocking tasks when it is
/// dropped, so `run --headless` would wait for the freeing at its exit.
pub(crate) fn drop_aside<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("conclave-free".into())
        .spawn(move || drop(value));
}
