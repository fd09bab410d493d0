//! Runs of other engines on the dashboard (`conclave attach`): the
//! listing of live runs, each attached run's events read from its first
//! one, and its controls sent as requests to its engine. What arrives
//! comes to the loop as a [`RemoteFeed`]; an attached run's events are
//! renumbered to its slot and folded by the same reducer as a local run's,
//! so no pane knows where a run is.

use crate::bus::{ClockMode, Event, EventKind, RunId};
use crate::control::Control;
use crate::nats::command::RemoteCommand;
use crate::nats::subjects::RemoteRunId;
use crate::nats::watch::{Followed, Listing, LiveRun, Watcher};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio::time::Instant;

/// How often the list of live runs is read again.
pub(crate) const LISTING_EVERY: Duration = Duration::from_secs(2);

/// What reaches the dashboard from NATS.
#[derive(Debug)]
pub enum RemoteFeed {
    /// The live runs of every engine, as just listed, or why they could
    /// not be.
    Listed(Result<Vec<LiveRun>, String>),
    /// An attached run's event, numbered as its slot's run.
    Event(Arc<Event>),
    /// An attached run's events stopped coming.
    Lost { run: RunId, error: String },
    /// Messages on an attached run's subject that were none of its events
    /// were skipped: how many so far, and what the last one was.
    Skipped {
        run: RunId,
        count: u64,
        last: String,
    },
    /// The engine's answer to a command sent to run `run`.
    Replied {
        run: RunId,
        command: Control,
        result: Result<(), String>,
    },
    /// This engine's link could not publish (the server went away).
    Warning(String),
}

/// Where attached runs come from: the viewer's connection and the loop's
/// feed.
#[derive(Clone, Debug)]
pub struct RemoteSource {
    watcher: Watcher,
    feed: mpsc::UnboundedSender<RemoteFeed>,
}

impl RemoteSource {
    pub fn new(watcher: Watcher, feed: mpsc::UnboundedSender<RemoteFeed>) -> RemoteSource {
        RemoteSource { watcher, feed }
    }

    /// List the live runs now and every [`LISTING_EVERY`] after, until the
    /// feed closes.
    pub fn keep_listing(&self) -> AbortHandle {
        let watcher = self.watcher.clone();
        let feed = self.feed.clone();
        tokio::spawn(async move {
            let mut listing = Listing::default();
            let mut every = tokio::time::interval(LISTING_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                let listed = watcher.live_runs(&mut listing).await;
                if feed.send(RemoteFeed::Listed(listed)).is_err() {
                    return;
                }
            }
        })
        .abort_handle()
    }

    /// Follow `id` from its first event as the dashboard's run `run`.
    pub(crate) fn attach(&self, id: RemoteRunId, run: RunId) -> RemoteRun {
        let watcher = self.watcher.clone();
        let feed = self.feed.clone();
        let followed = id.clone();
        let follower = tokio::spawn(async move {
            let error = match watcher.follow(&followed).await {
                Err(e) => e,
                Ok(events) => {
                    tokio::pin!(events);
                    let mut skipped = 0;
                    loop {
                        let sent = match events.next().await {
                            Some(Ok(Followed::Event(mut event))) => {
                                let last = matches!(event.kind, EventKind::RunFinished { .. });
                                event.run = run;
                                if last {
                                    let _ = feed.send(RemoteFeed::Event(Arc::new(*event)));
                                    return;
                                }
                                feed.send(RemoteFeed::Event(Arc::new(*event)))
                            }
                            // A bad message costs only itself.
                            Some(Ok(Followed::Skipped(last))) => {
                                skipped += 1;
                                feed.send(RemoteFeed::Skipped {
                                    run,
                                    count: skipped,
                                    last,
                                })
                            }
                            Some(Err(e)) => break e,
                            None => break format!("run {followed}: its events stopped"),
                        };
                        if sent.is_err() {
                            return;
                        }
                    }
                }
            };
            let _ = feed.send(RemoteFeed::Lost { run, error });
        })
        .abort_handle();
        RemoteRun {
            id,
            source: self.clone(),
            follower,
        }
    }
}

/// An attached run's follower, held by the loop: where its events come
/// from and where its commands go.
#[derive(Debug)]
pub(crate) struct RemoteRun {
    id: RemoteRunId,
    source: RemoteSource,
    follower: AbortHandle,
}

impl RemoteRun {
    /// Send `command` to the run's engine; the answer comes back as a
    /// [`RemoteFeed::Replied`].
    pub(crate) fn send(&self, run: RunId, command: Control) {
        let watcher = self.source.watcher.clone();
        let feed = self.source.feed.clone();
        let id = self.id.clone();
        tokio::spawn(async move {
            let result = watcher
                .command(&id, &RemoteCommand::Control(command.clone()))
                .await;
            let _ = feed.send(RemoteFeed::Replied {
                run,
                command,
                result,
            });
        });
    }
}

impl Drop for RemoteRun {
    fn drop(&mut self) {
        self.follower.abort();
    }
}

/// What the app knows of a run it shows from another engine: its name on
/// other machines, and when its last event arrived.
#[derive(Debug)]
pub(crate) struct AttachedRun {
    pub(crate) id: RemoteRunId,
    /// When its last event arrived, to move its clock between events.
    heard_at: Instant,
}

impl AttachedRun {
    pub(crate) fn new(id: RemoteRunId) -> AttachedRun {
        AttachedRun {
            id,
            heard_at: Instant::now(),
        }
    }

    /// An event of the run arrived.
    pub(crate) fn heard(&mut self) {
        self.heard_at = Instant::now();
    }

    /// The run clock now, as far as the viewer can tell: the last event's
    /// time, moved on by the time since it arrived while a real-clock run
    /// runs.
    pub(crate) fn clock_ms(&self, last_t_ms: u64, clock: Option<ClockMode>, running: bool) -> u64 {
        if running && clock == Some(ClockMode::Real) {
            let since = u64::try_from(self.heard_at.elapsed().as_millis()).unwrap_or(u64::MAX);
            last_t_ms.saturating_add(since)
        } else {
            last_t_ms
        }
    }
}
