//! A launched run while its program goes: its spans, output lines and
//! gateway reports taken in as they come, and its stop (a person, a
//! signal, `max_seconds`, a spent budget) until the program has ended.

use super::ended::Ended;
use super::gateway::RunGateway;
use super::journal::Journal;
use super::output::{OutputLine, OutputTail, Stream};
use super::process::Exited;
use super::receiver::{stamp, stopped};
use crate::scenario::ScenarioErrors;
use crate::span::TraceId;
use crate::watch::consume::Watch;
use crate::watch::receive::{Batch, Receiving};
use crate::watch::steer::Steering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

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

/// How long the output may go on after the program ended (a process that
/// left its group and kept the pipe open is not waited for).
const OUTPUT_AFTER_EXIT: Duration = Duration::from_secs(1);

/// A run while its program goes: what has come of it so far.
pub(super) struct Live {
    /// The run's id, and as the trace its spans are joined to.
    pub(super) id: TraceId,
    pub(super) run_id: String,
    /// The recording as the run goes, if the run is recorded.
    pub(super) journal: Option<Journal>,
    pub(super) started: Instant,
    pub(super) watch: Watch,
    pub(super) output: OutputTail,
    pub(super) batches: mpsc::Receiver<Batch>,
    pub(super) lines: mpsc::Receiver<(Stream, String)>,
    pub(super) steering: Arc<Steering>,
    /// Asks the program's task to stop it; taken once asked.
    pub(super) stop_tx: Option<oneshot::Sender<()>>,
    pub(super) ended: Ended,
    pub(super) gateway: Option<RunGateway>,
    pub(super) grace: Duration,
    /// When a program past its budget is stopped unless it has ended by
    /// then: it is given a grace to raise the refusal it was answered.
    pub(super) budget_stop: Option<Instant>,
    /// Where each line is handed as it comes, if anywhere.
    pub(super) seen: Option<mpsc::Sender<OutputLine>>,
}

impl Live {
    /// How the run ended: as its program ended, unless the program ended
    /// by itself once its budget was spent or its cassette missed (most
    /// often raising the error it was answered): that ended it.
    pub(super) fn outcome(&self) -> Ended {
        match self.gateway.as_ref().and_then(|g| g.told.ended()) {
            Some(why) if self.ended == Ended::Exited => why,
            _ => self.ended.clone(),
        }
    }

    pub(super) fn now_ms(&self) -> u64 {
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
        if let Some(journal) = self.journal.as_mut() {
            journal.output(&line);
        }
        self.output.push(line);
    }

    fn batch(&mut self, mut batch: Batch) {
        stamp(&mut batch, &self.run_id);
        self.watch.take(&batch);
        self.journal_up();
    }

    /// Write what came of the run since the journal's last lines.
    fn journal_up(&mut self) {
        if let Some(journal) = self.journal.as_mut() {
            let run = self.watch.runs.get(self.id);
            journal.catch_up(run, &self.steering, self.gateway.as_ref().map(|g| &g.told));
        }
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
        self.journal_up();
    }

    /// Begin the stop (once): the program's task signals its group.
    fn stop(&mut self, why: Ended) {
        if let Some(tx) = self.stop_tx.take() {
            self.ended = why;
            let _ = tx.send(());
        }
    }

    /// Take in spans and output until the program has ended; how it did.
    pub(super) async fn drive(
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
                    self.journal_up();
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
    pub(super) async fn settle(&mut self, readers: Vec<JoinHandle<u64>>, receiving: Receiving) {
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

pub(super) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
