//! The watch's loop, where the network, the clock and the viewers meet
//! the pure parts: batches from the receiver go into the runs, the runs
//! settle on tokio's clock, and each finished run is summed up, recorded
//! (`--record-dir`) and handed on: printed as one JSON line
//! (`--headless`) or sent to the dashboard as a [`WatchFeed`].

use super::receive::Batch;
use super::record;
use super::runs::{Arrival, Limits, Runs};
use super::span::{TraceId, spans_of};
use super::summary::{WatchSummary, summarise};
use crate::scenario::PriceTable;
use std::path::PathBuf;
use tokio::sync::mpsc;

/// What the watch does with runs, besides holding them.
#[derive(Clone, Debug, Default)]
pub struct WatchOptions {
    pub limits: Limits,
    /// `--record-dir`: where each finished run is recorded; none, no recording.
    pub record_dir: Option<PathBuf>,
    /// `--runs N`: stop after N runs have finished.
    pub runs: Option<u64>,
    /// `--pricing FILE`: prices over the compiled-in ones.
    pub prices: Option<PriceTable>,
    /// Let go of a run once it finished and was handed on (headless: no
    /// viewer looks at it again).
    pub close_finished: bool,
    /// The runs' steering, served on the receiver's listener; a finished
    /// run's decisions go into its summary and recording.
    pub steering: Option<std::sync::Arc<crate::watch::steer::Steering>>,
}

/// What the watch tells a viewer, in order.
#[derive(Clone, Debug)]
pub enum WatchFeed {
    /// A run appeared: its first span arrived.
    Opened(TraceId),
    /// Spans of a run arrived (kept ones), in arrival order.
    Arrived { run: TraceId, spans: Vec<Arrival> },
    /// A run finished: its summary, the recording's path in it.
    Finished(Box<WatchSummary>),
    /// A run could not be recorded: why.
    Problem(String),
    /// Spans dropped so far because no run could be held for them (every
    /// held run live and still waiting for its root): the running total.
    Dropped(u64),
    /// Spans that came for a run already finished (not kept): the
    /// running total, told when it grew.
    Late(u64),
}

/// The watch's state between batches.
#[derive(Debug)]
pub(crate) struct Watch {
    pub(crate) runs: Runs,
    options: WatchOptions,
    finished: u64,
    /// The dropped and late counts the viewer was last told.
    told_dropped: u64,
    told_late: u64,
}

impl Watch {
    pub(crate) fn new(options: WatchOptions) -> Watch {
        Watch {
            runs: Runs::new(options.limits),
            options,
            finished: 0,
            told_dropped: 0,
            told_late: 0,
        }
    }

    /// Take in one batch; what a viewer is told of it.
    pub(crate) fn take(&mut self, batch: &Batch) -> Vec<WatchFeed> {
        let spans = spans_of(&batch.request);
        // Room for new traces: runs whose root came finish early rather
        // than a new trace being dropped.
        let wanted = self.runs.room_wanted(&spans);
        let early = self.runs.finish_early(wanted);
        let mut feed = self.finish(early);
        let before: Vec<(TraceId, usize)> = self
            .runs
            .ids()
            .map(|id| (id, self.runs.get(id).map_or(0, |r| r.arrivals.len())))
            .collect();
        let opened = self.runs.accept(spans, batch.received);
        feed.extend(opened.iter().map(|id| WatchFeed::Opened(*id)));
        let ids: Vec<TraceId> = self.runs.ids().collect();
        for id in ids {
            let from = before.iter().find(|(b, _)| *b == id).map_or(0, |(_, n)| *n);
            if let Some(run) = self.runs.get(id)
                && run.arrivals.len() > from
            {
                feed.push(WatchFeed::Arrived {
                    run: id,
                    spans: run.arrivals[from..].to_vec(),
                });
            }
        }
        if self.runs.dropped_spans > self.told_dropped {
            self.told_dropped = self.runs.dropped_spans;
            feed.push(WatchFeed::Dropped(self.told_dropped));
        }
        if self.runs.late_spans > self.told_late {
            self.told_late = self.runs.late_spans;
            feed.push(WatchFeed::Late(self.told_late));
        }
        feed
    }

    /// Settle the runs at `now`: each finished one summed up and recorded.
    pub(crate) fn settle(&mut self, now: tokio::time::Instant) -> Vec<WatchFeed> {
        let settled = self.runs.settle(now);
        self.finish(settled)
    }

    /// Runs `ids`, just marked finished: each summed up, recorded, and
    /// let go when no viewer looks at it again.
    fn finish(&mut self, ids: Vec<TraceId>) -> Vec<WatchFeed> {
        let mut feed = Vec::new();
        for id in ids {
            let Some(run) = self.runs.get(id) else {
                continue;
            };
            let mut summary = summarise(id, &run.forest, self.options.prices.as_ref());
            summary.steering = self.options.steering.as_ref().and_then(|s| s.finish(id));
            if let Some(dir) = &self.options.record_dir {
                match record::write(dir, run, &summary) {
                    Ok(path) => summary.recording = Some(path.display().to_string()),
                    Err(e) => feed.push(WatchFeed::Problem(format!(
                        "--record-dir {}: cannot record run {}: {e}",
                        dir.display(),
                        summary.trace_id
                    ))),
                }
            }
            if self.options.close_finished {
                self.runs.close(id);
            }
            self.finished += 1;
            feed.push(WatchFeed::Finished(Box::new(summary)));
        }
        feed
    }

    /// Whether `--runs N` runs have finished.
    pub(crate) fn done(&self) -> bool {
        self.options.runs.is_some_and(|n| self.finished >= n)
    }
}

/// Run the watch on `batches` until they end or `--runs N` runs have
/// finished, handing what happens to `feed`. A closed feed ends it too.
pub(crate) async fn watch(
    mut batches: mpsc::Receiver<Batch>,
    options: WatchOptions,
    feed: mpsc::Sender<WatchFeed>,
) -> Watch {
    let mut state = Watch::new(options);
    loop {
        let deadline = state.runs.next_settle();
        let settle_at = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let told = tokio::select! {
            batch = batches.recv() => match batch {
                Some(batch) => state.take(&batch),
                None => break,
            },
            () = settle_at => state.settle(tokio::time::Instant::now()),
        };
        for item in told {
            if feed.send(item).await.is_err() {
                return state;
            }
        }
        if state.done() {
            break;
        }
    }
    // The batches ended: what has a root settles now, without waiting.
    if !state.done() {
        let far = tokio::time::Instant::now() + state.options.limits.settle;
        for item in state.settle(far) {
            if feed.send(item).await.is_err() {
                break;
            }
        }
    }
    state
}
