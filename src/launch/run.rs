//! One launched run, from the program's start to its end: the run's own
//! receiver (OTLP, steering and the gateway's routes on one loopback
//! listener), the program started with the launch's environment, its
//! output read, its spans joined to the run by the run's id, and its end
//! (its exit, `max_seconds`, a stop, a signal to Conclave) turned into
//! how the run ended. Nothing it started is left running on any path.

pub use super::ended::Ended;
use super::environment::{Launch, new_run_id, variables};
use super::gateway::{GatewayCalls, RunGateway};
use super::launched_as::{LaunchedAs, RunAs};
use super::output::{OutputLine, OutputTail, Stream};
use super::prepare::Prepared;
use super::process::Exited;
use super::receiver::{open_receiver, stamp, stopped};
use super::scenario::LoadedProgram;
use super::start::{own, start_program};
use crate::gateway::endpoint::Budgets;
use crate::scenario::{PriceTable, ScenarioErrors};
use crate::span::{TraceId, run_id_of};
use crate::watch::consume::{Watch, WatchOptions};
use crate::watch::receive::{Batch, Receiving};
use crate::watch::runs::Run;
use crate::watch::steer::{Limits, Policy, SteerSummary, Steering};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The default bound on a program's time (`max_seconds`).
pub const DEFAULT_MAX_SECONDS: u64 = 600;
/// The default wait between the steps of a stop (`stop_grace_ms`).
pub const DEFAULT_GRACE_MS: u64 = 5000;
/// How long the output may go on after the program ended (a process that
/// left its group and kept the pipe open is not waited for).
const OUTPUT_AFTER_EXIT: Duration = Duration::from_secs(1);

/// What a launch is asked to do besides the scenario.
#[derive(Clone, Debug, Default)]
pub struct LaunchSettings {
    /// `--flag NAME=on|off`, over the scenario's defaults.
    pub flags: Vec<(String, bool)>,
    pub seed: Option<u64>,
    pub prices: Option<PriceTable>,
    /// Keep every span's arrival, for the recording.
    pub record: bool,
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
}

/// Why a launch could not run.
#[derive(Debug)]
pub enum LaunchError {
    /// The scenario names something that cannot start (exit 2).
    BadInput(ScenarioErrors),
    /// Conclave's own side failed (exit 1).
    Internal(String),
}

/// Something the run's loop is told to do from outside (the dashboard).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    Stop(String),
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
    watch.runs.keep_arrivals = settings.record;
    let mut live = Live {
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
    let Live {
        run_id,
        mut watch,
        output,
        steering,
        mut ended,
        gateway,
        ..
    } = live;
    let gateway = gateway.map(|g| g.told);
    if ended == Ended::Exited
        && let Some(why) = gateway.as_ref().and_then(GatewayCalls::ended)
    {
        // The program ended by itself once its budget was spent or its
        // cassette missed (most often raising the error it was
        // answered): that ended it.
        ended = why;
    }
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
        gateway,
        launched,
    })
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

/// A run while its program goes: what has come of it so far.
struct Live {
    run_id: String,
    started: Instant,
    watch: Watch,
    output: OutputTail,
    batches: mpsc::Receiver<Batch>,
    lines: mpsc::Receiver<(Stream, String)>,
    steering: Arc<Steering>,
    /// Asks the program's task to stop it; taken once asked.
    stop_tx: Option<oneshot::Sender<()>>,
    ended: Ended,
    gateway: Option<RunGateway>,
    grace: Duration,
    /// When a program past its budget is stopped unless it has ended by
    /// then: it is given a grace to raise the refusal it was answered.
    budget_stop: Option<Instant>,
    /// Where each line is handed as it comes, if anywhere.
    seen: Option<mpsc::Sender<OutputLine>>,
}

impl Live {
    fn now_ms(&self) -> u64 {
        ms(Instant::now().saturating_duration_since(self.started))
    }

    fn line(&mut self, (stream, text): (Stream, String)) {
        let line = OutputLine {
            at_ms: self.now_ms(),
            stream,
            text,
        };
        if let Some(seen) = &self.seen {
            let _ = seen.try_send(line.clone());
        }
        self.output.push(line);
    }

    fn batch(&mut self, mut batch: Batch) {
        stamp(&mut batch, &self.run_id);
        self.watch.take(&batch);
    }

    /// Take in a report of the run's endpoint: past a budget or at a
    /// cassette's miss, the program is stopped after a grace unless it
    /// ends first.
    fn report(&mut self, report: crate::gateway::endpoint::Report) {
        let at_ms = self.now_ms();
        let Some(gateway) = self.gateway.as_mut() else {
            return;
        };
        if gateway.take(at_ms, report) && self.stop_tx.is_some() {
            self.budget_stop = Some(Instant::now() + self.grace);
        }
    }

    /// Begin the stop (once): the program's task signals its group.
    fn stop(&mut self, why: Ended) {
        if let Some(tx) = self.stop_tx.take() {
            self.ended = why;
            let _ = tx.send(());
        }
    }

    /// Take in spans and output until the program has ended; how it did.
    async fn drive(
        &mut self,
        mut process: JoinHandle<std::io::Result<Exited>>,
        max: Duration,
        mut orders: Option<mpsc::Receiver<Order>>,
        mut signals: Option<&mut crate::signals::Signals>,
    ) -> Result<Exited, LaunchError> {
        let deadline = tokio::time::sleep(max);
        tokio::pin!(deadline);
        let mut changes = self.steering.subscribe();
        let exited = loop {
            let going = self.stop_tx.is_some();
            let signal = crate::signals::next_of(signals.as_deref_mut());
            let order = async {
                match orders.as_mut() {
                    Some(o) => o.recv().await,
                    None => std::future::pending().await,
                }
            };
            let report = async {
                match self.gateway.as_mut() {
                    Some(gateway) => gateway.next().await,
                    None => std::future::pending().await,
                }
            };
            let budget_stop = self.budget_stop;
            let spent = async move {
                match budget_stop {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                exited = &mut process => break exited,
                Some(batch) = self.batches.recv() => self.batch(batch),
                Some(line) = self.lines.recv() => self.line(line),
                Some(report) = report => self.report(report),
                () = spent, if going => {
                    if let Some(why) = self.gateway.as_ref().and_then(|g| g.told.ended()) {
                        self.stop(why);
                    }
                }
                () = &mut deadline, if going => self.stop(Ended::MaxSeconds),
                Some(signal) = signal, if going => self.stop(Ended::Interrupted(signal)),
                Some(Order::Stop(why)) = order, if going => self.stop(Ended::Stopped(why)),
                Ok(()) = changes.changed(), if going => {
                    if let Some(why) = stopped(&self.steering, &self.run_id) {
                        self.stop(Ended::Stopped(why));
                    }
                }
            }
        };
        match exited {
            Ok(Ok(exited)) => Ok(exited),
            Ok(Err(e)) => Err(LaunchError::Internal(format!(
                "cannot wait for the program: {e}"
            ))),
            Err(e) => Err(LaunchError::Internal(format!(
                "the program's task failed: {e}"
            ))),
        }
    }

    /// After the program's end: the rest of its output and of its spans.
    async fn settle(&mut self, readers: Vec<JoinHandle<u64>>, receiving: Receiving) {
        // The program's group is gone: its pipes end, unless something that
        // left the group holds them, which is not waited for.
        let _ = tokio::time::timeout(OUTPUT_AFTER_EXIT, async {
            while let Some(line) = self.lines.recv().await {
                self.line(line);
            }
        })
        .await;
        for reader in readers {
            reader.abort();
            if let Ok(dropped) = reader.await {
                self.output.lines_not_kept += dropped;
            }
        }
        // Every batch the program sent before it ended was taken by the
        // receiver before it answered: stopping the receiver ends the queue.
        receiving.shutdown().await;
        while let Some(batch) = self.batches.recv().await {
            self.batch(batch);
        }
        let started = self.started;
        if let Some(gateway) = self.gateway.as_mut() {
            gateway
                .drain(|| ms(Instant::now().saturating_duration_since(started)))
                .await;
        }
    }
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

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
