//! A run's task on the runtime, from its MCP servers' start to its
//! finish event: the pattern runs in between, and the result it leaves
//! carries the run's usage and no secret.

use super::setup::described_by_servers;
use crate::bus::{Bus, EventKind, RunStatus};
use crate::clock::{Forwarded, RunClock};
use crate::gateway::{CacheError, Gateway};
use crate::patterns::{self, RunContext, RunOutcome};
use crate::stop::StopReason;
use std::sync::Arc;

/// How a run's task ended: its outcome, and beside it a cache that could
/// not be saved and a program nobody allowed, which stopped it.
#[derive(Debug)]
pub(crate) struct RunEnd {
    pub(crate) outcome: RunOutcome,
    pub(crate) cache_failed: Option<CacheError>,
    pub(crate) refused_program: Option<String>,
}

/// The run's task on the runtime: one that fast-forwards while its clock
/// does (a fork's served part on the real clock).
pub(super) fn spawn(
    ctx: RunContext,
    gateway: Arc<Gateway>,
    bus: Bus,
    clock: &RunClock,
) -> tokio::task::JoinHandle<RunEnd> {
    let run = run_to_end(ctx, gateway, bus);
    if clock.forwards() {
        tokio::spawn(Forwarded::new(clock.clone(), run))
    } else {
        tokio::spawn(run)
    }
}

/// Run the pattern, then stop the workers, save the tools' last good
/// answers and publish the finish.
async fn run_to_end(mut ctx: RunContext, gateway: Arc<Gateway>, bus: Bus) -> RunEnd {
    // MCP servers start before the first turn, so a tool the scenario
    // leaves undescribed is described to the model as its server lists it
    // (a run from a recording takes the recorded descriptions, and starts
    // a server at the first live call to it).
    let described = gateway.start_workers().await;
    if let Some(scenario) = described_by_servers(&ctx.scenario, &described) {
        ctx.scenario = Arc::new(scenario);
    }
    if !described.is_empty() {
        bus.publish(EventKind::ToolsDescribed { tools: described });
    }
    let outcome = patterns::run(ctx).await;
    // Nothing a real worker started outlives its run.
    gateway.shutdown_workers();
    let cache_failed = gateway.save_last_good().err();
    let outcome = finished(outcome, &gateway);
    bus.publish(EventKind::RunFinished {
        status: outcome.status,
        stop_reason: outcome.stop_reason.clone(),
        phase: outcome.phase.clone(),
        result: Arc::clone(&outcome.result),
        summary: Box::new(outcome.summary.clone()),
        error: outcome.error.clone(),
    });
    bus.close_recording();
    RunEnd {
        outcome,
        cache_failed,
        refused_program: gateway.refused_program(),
    }
}

/// The pattern's outcome as the run reports it: its error in the
/// gateway's words, it and the result scrubbed.
fn finished(mut outcome: RunOutcome, gateway: &Gateway) -> RunOutcome {
    if let Some(words) = gateway.failure_words(&outcome.stop_reason) {
        outcome.error = Some(words);
    }
    // A call the cassette did not hold cancelled the run: it stopped for
    // that, and says which call.
    if let Some(words) = gateway.cassette_missed()
        && outcome.stop_reason == StopReason::Cancelled
    {
        stop_for(&mut outcome, StopReason::CassetteMiss);
        outcome.error = Some(words);
    }
    // A cost past the largest number is past any dollar budget, even when
    // the call that made it was the run's last and no gate came after.
    if gateway.cost_overflowed() && outcome.status == RunStatus::Ok {
        outcome.status = RunStatus::Stopped;
        stop_for(&mut outcome, StopReason::MaxCost);
    }
    // A program nobody allowed cancelled the run: it says which.
    if let Some(words) = gateway.refused_program()
        && outcome.stop_reason == StopReason::Cancelled
    {
        outcome.error = Some(words);
    }
    // The result leaves the process (printed, recorded, shown): no
    // secret in it, whatever text it was built from.
    let result = std::mem::take(&mut outcome.result);
    outcome.result = Arc::new(Arc::unwrap_or_clone(result).scrubbed());
    if let Some(error) = &mut outcome.error {
        *error = crate::secrets::scrub(error).into_owned();
    }
    outcome
}

/// The run stopped for `reason`, in its outcome and its result document,
/// whose status becomes the outcome's.
fn stop_for(outcome: &mut RunOutcome, reason: StopReason) {
    outcome.stop_reason = reason.clone();
    let mut document = Arc::unwrap_or_clone(std::mem::take(&mut outcome.result)).into_value();
    if let Some(fields) = document.as_object_mut() {
        let status = serde_json::to_value(outcome.status).unwrap_or_default();
        for (key, value) in [
            ("status", status),
            ("stop_reason", reason.to_string().into()),
        ] {
            if fields.contains_key(key) {
                fields.insert(key.into(), value);
            }
        }
    }
    outcome.result = Arc::new(crate::bus::ResultDoc::from_value(&document));
}
