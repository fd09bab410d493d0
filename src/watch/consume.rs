//! The watch's loop, where the network, the clock and the viewers meet
//! the pure parts: batches from the receiver go into the runs, the runs
//! settle on tokio's clock, and each finished run is summed up, recorded
//! (`--record-dir`) and handed on: printed as one JSON line
//! (`--headless`) or sent to the dashboard as a [`WatchFeed`].

use super::journals::Journals;
use super::receive::Batch;
use super::record;
use super::runs::{Came, Limits, Runs};
use super::steer::words::decision_words;
use super::summary::{WatchSummary, summarise_read};
use super::translate::Translator;
use crate::bus::Event;
use crate::scenario::PriceTable;
use crate::span::{TraceId, spans_of};
use std::collections::{HashMap, VecDeque};
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
    /// Tell each run as the bus's events ([`WatchFeed::Told`]), for the
    /// dashboard to draw it as a run of its own; `--headless` prints
    /// summaries and tells nothing.
    pub tell: bool,
}

/// What the watch tells a viewer, in order.
#[derive(Clone, Debug)]
pub enum WatchFeed {
    /// A run appeared: its first span arrived.
    Opened(TraceId),
    /// What a run did since it was last told, as the bus's events, in
    /// order (its start first, its end last); numbered from 1 as run 0,
    /// for the viewer to number as its own run ([`WatchOptions::tell`]).
    Told { run: TraceId, events: Vec<Event> },
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
    /// Each run's telling as events, while it is going (`tell`).
    telling: Telling,
    /// Each run's recording as it goes (`--record-dir`).
    journals: Option<Journals>,
}

/// The runs told as events: a translator per run until it finished, the
/// steering decisions told of each, and the runs lately finished (a
/// hook that speaks after its run's end opens no run again).
#[derive(Default)]
struct Telling {
    translators: HashMap<TraceId, Translator>,
    decisions: HashMap<TraceId, usize>,
    ended: VecDeque<TraceId>,
}

impl std::fmt::Debug for Telling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telling")
            .field("runs", &self.translators.len())
            .finish()
    }
}

/// How many finished runs' ids the telling remembers.
const ENDED: usize = 1024;

impl Watch {
    pub(crate) fn new(options: WatchOptions) -> Watch {
        let mut runs = Runs::new(options.limits);
        runs.keep_arrivals = options.record_dir.is_some();
        let journals = options.record_dir.clone().map(Journals::new);
        Watch {
            runs,
            options,
            finished: 0,
            told_dropped: 0,
            told_late: 0,
            telling: Telling::default(),
            journals,
        }
    }

    /// Take in one batch; what a viewer is told of it.
    pub(crate) fn take(&mut self, batch: &Batch) -> Vec<WatchFeed> {
        let mut spans = spans_of(&batch.request);
        // A framework's control-flow exception (LangGraph's handoffs) is
        // no failure: the span keeps its exception event, not an error.
        super::read::settle_control_flow(&mut spans);
        // Room for new traces: runs whose root came finish early rather
        // than a new trace being dropped.
        let wanted = self.runs.room_wanted(&spans);
        let early = self.runs.finish_early(wanted);
        let mut feed = self.finish(early, batch.received);
        let mut told = Vec::new();
        let opened = self.runs.accept_read(
            spans,
            batch.received,
            self.options.tell.then_some(&mut told),
        );
        if let Some(journals) = self.journals.as_mut() {
            journals.catch_up(&self.runs, &opened, self.options.steering.as_deref());
        }
        feed.extend(opened.iter().map(|id| WatchFeed::Opened(*id)));
        if self.options.tell {
            self.tell_arrivals(told, &mut feed);
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

    /// The spans just kept, told as their runs' events, each run's in
    /// the order they came.
    fn tell_arrivals(&mut self, told: Vec<(TraceId, Came)>, feed: &mut Vec<WatchFeed>) {
        let mut by_run: Vec<(TraceId, Vec<Came>)> = Vec::new();
        for (id, arrival) in told {
            match by_run.iter_mut().find(|(run, _)| *run == id) {
                Some((_, came)) => came.push(arrival),
                None => by_run.push((id, vec![arrival])),
            }
        }
        let prices = self.options.prices.as_ref();
        for (id, came) in by_run {
            let Some(run) = self.runs.get(id) else {
                continue;
            };
            let translator = self
                .telling
                .translators
                .entry(id)
                .or_insert_with(|| Translator::new(0, id));
            let events = translator.take_read(&came, &run.forest, &run.readings, prices);
            if !events.is_empty() {
                feed.push(WatchFeed::Told { run: id, events });
            }
        }
    }

    /// The steering changed: a hooked run with no span yet starts (it may
    /// be held at its first gate), and each run's new decisions are told.
    pub(crate) fn steering_changed(&mut self, now: tokio::time::Instant) -> Vec<WatchFeed> {
        let Some(steering) = self.options.steering.clone() else {
            return Vec::new();
        };
        if !self.options.tell {
            return Vec::new();
        }
        let mut feed = Vec::new();
        for view in steering.list() {
            let Ok(id) = u128::from_str_radix(&view.trace_id, 16) else {
                continue;
            };
            if self.telling.ended.contains(&id) {
                continue;
            }
            let at_ms = self.runs.get(id).map_or(0, |r| ms_since(r.first_at, now));
            let translator = self
                .telling
                .translators
                .entry(id)
                .or_insert_with(|| Translator::new(0, id));
            let mut events = Vec::new();
            if !translator.started() {
                feed.push(WatchFeed::Opened(id));
                events.extend(translator.start_hooked(at_ms));
            }
            let from = self.telling.decisions.get(&id).copied().unwrap_or(0);
            let new = steering.decisions(id, from);
            *self.telling.decisions.entry(id).or_default() += new.len();
            for timed in new {
                let said = decision_words(&timed.decision);
                let decision = serde_json::to_value(&timed.decision).unwrap_or_default();
                events.extend(translator.steered(timed.at_ms, said, decision));
            }
            if !events.is_empty() {
                feed.push(WatchFeed::Told { run: id, events });
            }
        }
        feed
    }

    /// Settle the runs at `now`: each finished one summed up and recorded.
    pub(crate) fn settle(&mut self, now: tokio::time::Instant) -> Vec<WatchFeed> {
        let settled = self.runs.settle(now);
        self.finish(settled, now)
    }

    /// The watch stops at `now`: every run still going ends (whole when
    /// its top came, else incomplete), summed up and recorded.
    pub(crate) fn stop(&mut self, now: tokio::time::Instant) -> Vec<WatchFeed> {
        let going = self.runs.finish_all();
        self.finish(going, now)
    }

    /// Runs `ids`, just marked finished at `now`: each summed up,
    /// recorded, told ended, and let go when no viewer looks at it again.
    fn finish(&mut self, ids: Vec<TraceId>, now: tokio::time::Instant) -> Vec<WatchFeed> {
        let mut feed = Vec::new();
        for id in ids {
            let Some(run) = self.runs.get(id) else {
                continue;
            };
            // The run's spans were read as they came: its summary takes
            // those readings rather than reading every span again.
            let prices = self.options.prices.as_ref();
            let mut summary = summarise_read(id, &run.forest, &run.readings, prices);
            let steering = self.options.steering.as_ref().and_then(|s| s.finish(id));
            super::steer::marks::with_steering(&mut summary, steering);
            summary.incomplete = run.incomplete;
            if let Some(dir) = &self.options.record_dir {
                let journaled = self.journals.as_mut().and_then(|j| j.write(run, &summary));
                match journaled.unwrap_or_else(|| record::write(dir, run, &summary)) {
                    Ok(path) => summary.recording = Some(path.display().to_string()),
                    Err(e) => feed.push(WatchFeed::Problem(format!(
                        "--record-dir {}: cannot record run {}: {e}",
                        dir.display(),
                        summary.trace_id
                    ))),
                }
            }
            if let Some(mut translator) = self.telling.translators.remove(&id) {
                let t_ms = ms_since(run.first_at, now);
                let events =
                    translator.finish((&run.forest, &run.readings), &summary, prices, t_ms);
                feed.push(WatchFeed::Told { run: id, events });
                self.telling.decisions.remove(&id);
                if self.telling.ended.len() == ENDED {
                    self.telling.ended.pop_front();
                }
                self.telling.ended.push_back(id);
            }
            if self.options.close_finished {
                self.runs.close(id);
            } else {
                self.runs.forget_readings(id);
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

fn ms_since(from: tokio::time::Instant, to: tokio::time::Instant) -> u64 {
    u64::try_from(to.saturating_duration_since(from).as_millis()).unwrap_or(u64::MAX)
}

/// Run the watch on `batches` until they end or `--runs N` runs have
/// finished, handing what happens to `feed`. A closed feed ends it too.
/// At its end every run still going ends and is recorded (whole when its
/// top came, else incomplete), told to the feed while it is read.
pub(crate) async fn watch(
    mut batches: mpsc::Receiver<Batch>,
    options: WatchOptions,
    feed: mpsc::Sender<WatchFeed>,
) -> Watch {
    let mut steered = match (&options.steering, options.tell) {
        (Some(steering), true) => Some(steering.subscribe()),
        _ => None,
    };
    let mut state = Watch::new(options);
    loop {
        let deadline = state.runs.next_settle();
        let settle_at = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let changed = async {
            match steered.as_mut() {
                Some(changes) => changes.changed().await.is_ok(),
                None => std::future::pending().await,
            }
        };
        let told = tokio::select! {
            batch = batches.recv() => match batch {
                Some(batch) => state.take(&batch),
                None => break,
            },
            () = settle_at => state.settle(tokio::time::Instant::now()),
            going = changed => {
                if !going {
                    steered = None;
                }
                state.steering_changed(tokio::time::Instant::now())
            }
        };
        if !send_all(&feed, told).await || state.done() {
            break;
        }
    }
    // The batches ended (or the viewer went): what is still going ends
    // now, without waiting, and is recorded.
    if !state.done() {
        let last = state.stop(tokio::time::Instant::now());
        send_all(&feed, last).await;
    }
    state
}

/// Hand `items` to `feed`, in order; whether its reader is still there.
async fn send_all(feed: &mpsc::Sender<WatchFeed>, items: Vec<WatchFeed>) -> bool {
    for item in items {
        if feed.send(item).await.is_err() {
            return false;
        }
    }
    true
}
