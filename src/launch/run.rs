//! One launched run, from the program's start to its end: the run's own
//! receiver (OTLP, steering and the gateway's routes on one loopback
//! listener), the program started with the launch's environment, its
//! output read, its spans joined to the run by the run's id, and its end
//! (its exit, `max_seconds`, a stop, a signal to Conclave) turned into
//! how the run ended. Nothing it started is left running on any path.

pub use super::ended::Ended;
use super::environment::{Launch, new_run_id, variables};
use super::gateway::{GatewayCalls, RunGateway};
use super::journal::{Journal, RecordAt};
use super::launched_as::{LaunchedAs, RunAs};
use super::live::Live;
pub use super::live::{LaunchError, Order};
use super::output::{OutputLine, OutputTail};
use super::prepare::Prepared;
use super::process::Exited;
use super::receiver::open_receiver;
use super::scenario::LoadedProgram;
use super::start::{own, start_program};
use crate::gateway::endpoint::Budgets;
use crate::scenario::PriceTable;
use crate::span::{TraceId, run_id_of};
use crate::watch::consume::{Watch, WatchOptions};
use crate::watch::runs::Run;
use crate::watch::steer::{Limits, Policy, SteerSummary, Steering};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The default bound on a program's time (`max_seconds`).
pub const DEFAULT_MAX_SECONDS: u64 = 600;
/// The default wait between the steps of a stop (`stop_grace_ms`).
pub const DEFAULT_GRACE_MS: u64 = 5000;

/// What a launch is asked to do besides the scenario.
#[derive(Clone, Debug, Default)]
pub struct LaunchSettings {
    /// `--flag NAME=on|off`, over the scenario's defaults.
    pub flags: Vec<(String, bool)>,
    pub seed: Option<u64>,
    pub prices: Option<PriceTable>,
    /// Where the run is recorded, if it is: the recording is written as
    /// the run goes (a journal) and whole at its end.
    pub record: Option<RecordAt>,
    /// Say on stderr where the run receives (its id and address), for a
    /// person or a test that steers it.
    pub announce: bool,
    /// `--break NAME`: the run pauses before a gate of one of these names
    /// (or agents), as a watched run does (docs/steer.md).
    pub breaks: Vec<String>,
    /// `--max-tokens`, `--max-cost`, `--max-calls`: over the scenario's
    /// `model` budgets.
    pub budgets: Budgets,
    /// `--cassette`: the model calls served from a recording.
    pub cassette: Option<super::cassette::LaunchCassette>,
    /// The run a fork comes from, for its recording and result.
    pub forked_from: Option<super::launched_as::ForkedFrom>,
}

/// A run launched and ended.
#[derive(Debug)]
pub struct Finished {
    pub run_id: String,
    pub(crate) id: TraceId,
    pub ended: Ended,
    pub exited: Exited,
    pub output: OutputTail,
    pub duration_ms: u64,
    /// The flags the run started with.
    pub flags: BTreeMap<String, bool>,
    pub(crate) run: Option<Run>,
    pub(crate) steering: Option<SteerSummary>,
    pub(crate) prices: Option<PriceTable>,
    /// The model calls through the run's endpoint, when the scenario
    /// names a `model`.
    pub gateway: Option<GatewayCalls>,
    /// What starts the program again, for its recording.
    pub launched: LaunchedAs,
    /// Where the run is recorded, if it is.
    pub recording: Option<PathBuf>,
    /// Whether the file there is the run's own journal, which the whole
    /// recording takes the place of.
    pub(crate) journaled: bool,
}

/// Launch `prepared` as the run of `loaded` and drive it to its end.
/// `orders` stops it from outside; `signals`, when given, are Conclave's.
pub(crate) async fn launch(
    loaded: &LoadedProgram,
    prepared: &Prepared,
    settings: LaunchSettings,
    orders: Option<mpsc::Receiver<Order>>,
    signals: Option<&mut crate::signals::Signals>,
) -> Result<Finished, LaunchError> {
    launch_seen(loaded, prepared, settings, orders, signals, None).await
}

/// [`launch`], each output line kept also handed to `seen` as it comes
/// (the dashboard's view of the run). The run never waits for it: while
/// `seen` is full, its lines are not seen there (the run keeps them).
pub(crate) async fn launch_seen(
    loaded: &LoadedProgram,
    prepared: &Prepared,
    settings: LaunchSettings,
    orders: Option<mpsc::Receiver<Order>>,
    signals: Option<&mut crate::signals::Signals>,
    seen: Option<mpsc::Sender<OutputLine>>,
) -> Result<Finished, LaunchError> {
    let s = &loaded.scenario;
    let flags = flags_of(loaded, &settings.flags);
    let run_as = RunAs {
        flags: &flags,
        seed: settings.seed,
        budgets: settings.budgets,
        forked_from: settings.forked_from.clone(),
    };
    let launched = LaunchedAs::of(loaded, prepared, run_as);
    let steering = steering_of(&flags, &settings.breaks);
    let (sink, batches) = mpsc::channel(crate::watch::start::QUEUE);
    let cassette = settings.cassette.as_ref().map(|c| c.endpoint());
    let gateway = RunGateway::start(s, settings.budgets, settings.prices.clone(), cassette)
        .map_err(LaunchError::Internal)?;
    let receiving = open_receiver(sink, &steering, gateway.as_ref())
        .await
        .map_err(LaunchError::Internal)?;
    let run_id = new_run_id();
    let id = run_id_of(&run_id).ok_or_else(|| LaunchError::Internal("a bad run id".into()))?;
    let env = variables(&Launch {
        scenario: s,
        run_id: &run_id,
        listener: receiving.http_addr(),
        seed: settings.seed,
    });
    if settings.announce {
        crate::output::message(&format!(
            "conclave launch: run {run_id}: OTLP, steering and the gateway on http://{}",
            receiving.http_addr()
        ));
    }
    let (program, readers, lines) =
        start_program(loaded, prepared, &env).map_err(LaunchError::BadInput)?;
    let grace = Duration::from_millis(s.stop_grace_ms.unwrap_or(DEFAULT_GRACE_MS));
    let (process, stop_tx) = own(program, grace);
    let mut watch = Watch::new(WatchOptions {
        steering: Some(Arc::clone(&steering)),
        prices: settings.prices.clone(),
        ..WatchOptions::default()
    });
    watch.runs.keep_arrivals = settings.record.is_some();
    let (recording, journal) = journal_of(settings.record.as_ref(), (&run_id, id), &launched);
    let journaled = journal.is_some();
    let mut live = Live {
        id,
        journal,
        run_id,
        started: Instant::now(),
        watch,
        output: OutputTail::default(),
        batches,
        lines,
        steering,
        stop_tx: Some(stop_tx),
        ended: Ended::Exited,
        gateway,
        grace,
        budget_stop: None,
        seen,
    };
    let max = Duration::from_secs(s.max_seconds.unwrap_or(DEFAULT_MAX_SECONDS));
    let exited = live.drive(process, max, orders, signals).await?;
    let duration_ms = live.now_ms();
    live.settle(readers, receiving).await;
    let ended = live.outcome();
    let Live {
        run_id,
        mut watch,
        output,
        steering,
        gateway,
        ..
    } = live;
    Ok(Finished {
        run_id,
        id,
        ended,
        exited,
        output,
        duration_ms,
        flags,
        run: watch.runs.close(id),
        steering: steering.finish(id),
        prices: settings.prices,
        gateway: gateway.map(|g| g.told),
        launched,
        recording,
        journaled,
    })
}

/// Where run `run_id` is recorded (`record`), and its journal there; a
/// file that cannot be made now is said at the end, when the whole
/// recording is refused the same way.
fn journal_of(
    record: Option<&RecordAt>,
    (run_id, id): (&str, TraceId),
    launched: &LaunchedAs,
) -> (Option<PathBuf>, Option<Journal>) {
    let Some(path) = record.map(|at| at.path(run_id)) else {
        return (None, None);
    };
    let launched = serde_json::to_value(launched).ok();
    let journal = Journal::open(&path, (run_id, id), launched).ok();
    (Some(path), journal)
}

/// A launched run's steering: its flags as it starts, and its breakpoints.
fn steering_of(flags: &BTreeMap<String, bool>, breaks: &[String]) -> Arc<Steering> {
    Steering::new(
        Limits::default(),
        Policy {
            flags: flags.clone(),
            breaks: breaks.iter().cloned().collect(),
            ..Policy::default()
        },
    )
}

/// The run's flags: the scenario's defaults, then `--flag`.
fn flags_of(loaded: &LoadedProgram, given: &[(String, bool)]) -> BTreeMap<String, bool> {
    let mut flags: BTreeMap<String, bool> = loaded
        .scenario
        .flags
        .iter()
        .map(|(name, flag)| (name.clone(), flag.default))
        .collect();
    flags.extend(given.iter().cloned());
    flags
}
