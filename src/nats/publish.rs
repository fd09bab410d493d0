//! An engine's link to NATS: every event of its runs goes to the events
//! stream, in order, and each live run answers control requests through
//! its own [`Controller`]. The link is a viewer like the recorder: the bus
//! hands it events without waiting, and all NATS work happens on a thread
//! of its own with a real-time runtime (a run on the virtual clock would
//! otherwise fire the client's timeouts at once). A server that goes away
//! costs the runs nothing but a warning.

use super::command::{RemoteCommand, Reply};
use super::limits::{EventLimits, ensure_events_stream};
use super::subjects::RemoteRunId;
use crate::bus::{Event, EventKind, EventSink, Hub, RunId};
use crate::control::Controller;
use crate::engine::{self, LaunchError, LaunchOptions, RunHandle};
use crate::scenario::Scenario;
use async_nats::jetstream::context::{PublishAckFuture, PublishErrorKind};
use async_nats::jetstream::message::PublishMessage;
use futures_util::StreamExt;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Where the link's warnings go: stderr for a headless run, the footer
/// for the dashboard.
pub type Warn = Arc<dyn Fn(String) + Send + Sync>;

/// How many publishes may wait for their acknowledgement at once.
const ACKS_IN_FLIGHT: usize = 1024;

/// Where an engine publishes its runs: `--nats URL`, with the events
/// stream's limits (`--nats-max-age`, `--nats-max-bytes`).
#[derive(Clone, Debug)]
pub struct PublishTo {
    pub url: String,
    pub limits: EventLimits,
}

/// The connection that carries this engine's runs to NATS.
#[derive(Debug)]
pub struct EventLink {
    jobs: mpsc::UnboundedSender<Job>,
    engine: String,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Debug)]
enum Job {
    Event(Arc<Event>),
    Serve {
        run: RunId,
        controller: Controller,
    },
    /// Publish what is queued, wait for its acknowledgements, and stop.
    Close(std::sync::mpsc::Sender<()>),
}

/// The bus's side of the link: hands each event to the link's thread.
#[derive(Debug)]
struct Publisher {
    jobs: mpsc::UnboundedSender<Job>,
}

impl EventSink for Publisher {
    fn accept(&self, event: Arc<Event>) {
        // Never waits and never fails the run: a closed link means the
        // process is shutting its link down.
        let _ = self.jobs.send(Job::Event(event));
    }
}

impl EventLink {
    /// Connect to the server at `url` on a thread of the link's own, and
    /// make sure the events stream is there with `limits`. The error says
    /// why the link cannot be made (the server, the URL, the stream).
    pub fn start(to: &PublishTo, warn: Warn) -> Result<EventLink, String> {
        let (jobs, rx) = mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let PublishTo { url, limits } = to.clone();
        let thread = std::thread::Builder::new()
            .name("conclave-nats".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = ready_tx.send(Err(format!("cannot start the NATS runtime: {e}")));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let nats = match super::connect(&url).await {
                        Ok(nats) => nats,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e.to_string()));
                            return;
                        }
                    };
                    if let Err(e) = ensure_events_stream(&nats.js, limits).await {
                        let _ = ready_tx.send(Err(format!("{}: {e}", nats.url)));
                        return;
                    }
                    let _ = ready_tx.send(Ok(nats.engine.as_str().to_string()));
                    Pump::new(nats, warn).run(rx).await;
                });
            })
            .map_err(|e| format!("cannot start the NATS thread: {e}"))?;
        match ready_rx.recv() {
            Ok(Ok(engine)) => Ok(EventLink {
                jobs,
                engine,
                thread: Some(thread),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err("the NATS thread stopped before connecting".to_string()),
        }
    }

    /// This engine's id: the first half of its runs' remote ids.
    pub fn engine(&self) -> &str {
        &self.engine
    }

    /// The viewer to add to a run's `LaunchOptions.observers`: it publishes
    /// every event of the run. The run's number must be unique in this
    /// engine (the dashboard's and the worker's counters are).
    pub fn observer(&self) -> Arc<dyn EventSink> {
        Arc::new(Publisher {
            jobs: self.jobs.clone(),
        })
    }

    /// Answer the control requests of run `run` through `controller`,
    /// until the run's last event is published.
    pub fn serve(&self, run: RunId, controller: Controller) {
        let _ = self.jobs.send(Job::Serve { run, controller });
    }

    /// Launch a run that publishes its events here and answers control
    /// requests from other machines: the one call an engine needs.
    pub fn launch(
        &self,
        scenario: Arc<Scenario>,
        hub: &Hub,
        mut options: LaunchOptions,
    ) -> Result<RunHandle, LaunchError> {
        let run = options.run;
        options.observers.push(self.observer());
        let handle = engine::launch(scenario, hub, options)?;
        self.serve(run, handle.controller.clone());
        Ok(handle)
    }

    /// Publish every event handed over so far and wait, at most `within`,
    /// for the server to acknowledge them.
    pub fn close(mut self, within: Duration) {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        if self.jobs.send(Job::Close(done_tx)).is_ok()
            && done_rx.recv_timeout(within).is_ok()
            && let Some(thread) = self.thread.take()
        {
            let _ = thread.join();
        }
    }
}

/// The link's thread: publishes in order, checks acknowledgements behind,
/// and serves each live run's control subject.
struct Pump {
    nats: super::Nats,
    url: String,
    warn: Warn,
    acks: mpsc::Sender<PublishAckFuture>,
    ack_checker: JoinHandle<()>,
    serving: HashMap<RunId, JoinHandle<()>>,
    finished: HashSet<RunId>,
    /// Events not published since the server went away.
    lost: Option<u64>,
}

impl Pump {
    fn new(nats: super::Nats, warn: Warn) -> Pump {
        let url = nats.url.clone();
        let (acks, pending) = mpsc::channel(ACKS_IN_FLIGHT);
        let ack_checker = tokio::spawn(check_acks(pending, url.clone(), Arc::clone(&warn)));
        Pump {
            nats,
            url,
            warn,
            acks,
            ack_checker,
            serving: HashMap::new(),
            finished: HashSet::new(),
            lost: None,
        }
    }

    async fn run(mut self, mut jobs: mpsc::UnboundedReceiver<Job>) {
        while let Some(job) = jobs.recv().await {
            match job {
                Job::Event(event) => self.publish(&event).await,
                Job::Serve { run, controller } => {
                    if !self.finished.contains(&run) {
                        let id = RemoteRunId::new(self.nats.engine.as_str(), run);
                        let client = self.nats.client.clone();
                        let task = tokio::spawn(serve(client, id, controller));
                        if let Some(old) = self.serving.insert(run, task) {
                            old.abort();
                        }
                    }
                }
                Job::Close(done) => {
                    self.close().await;
                    let _ = done.send(());
                    return;
                }
            }
        }
        self.close().await;
    }

    async fn publish(&mut self, event: &Event) {
        let id = RemoteRunId::new(self.nats.engine.as_str(), event.run);
        if matches!(event.kind, EventKind::RunFinished { .. }) {
            self.finished.insert(event.run);
            if let Some(task) = self.serving.remove(&event.run) {
                task.abort();
            }
        }
        let connected = matches!(
            self.nats.client.connection_state(),
            async_nats::connection::State::Connected
        );
        if !connected {
            return self.lose(&id, &"the connection is down");
        }
        let payload = match serde_json::to_vec(event) {
            Ok(payload) => payload,
            Err(e) => return self.skip(&id, event.seq, &e),
        };
        let sent = self
            .nats
            .js
            .send_publish(
                id.events_subject(),
                PublishMessage::build()
                    .payload(payload.into())
                    .message_id(id.message_id(event.seq)),
            )
            .await;
        match sent {
            Ok(ack) => {
                if let Some(lost) = self.lost.take() {
                    (self.warn)(format!(
                        "NATS server {} is back; {lost} events were not published while it was away",
                        self.url
                    ));
                }
                let _ = self.acks.send(ack).await;
            }
            // Too big for the server: this event only, the link is fine.
            Err(e) if e.kind() == PublishErrorKind::MaxPayloadExceeded => {
                self.skip(&id, event.seq, &e);
            }
            Err(e) => self.lose(&id, &e),
        }
    }

    /// The server cannot be reached: say so once, and count what is lost
    /// until it is back.
    fn lose(&mut self, id: &RemoteRunId, why: &dyn std::fmt::Display) {
        if self.lost.is_none() {
            (self.warn)(format!(
                "NATS: cannot publish the events of run {id} to {} ({why}); the run goes on",
                self.url
            ));
        }
        *self.lost.get_or_insert(0) += 1;
    }

    /// One event that cannot be published, whatever the server's state.
    fn skip(&self, id: &RemoteRunId, seq: u64, why: &dyn std::fmt::Display) {
        (self.warn)(format!(
            "NATS: event {seq} of run {id} was not published ({why}); the run goes on"
        ));
    }

    async fn close(self) {
        for (_, task) in self.serving {
            task.abort();
        }
        drop(self.acks);
        let _ = self.ack_checker.await;
        let _ = self.nats.client.flush().await;
    }
}

/// Wait for each publish's acknowledgement, in order; say once when they
/// stop coming, and again when they come back.
async fn check_acks(mut pending: mpsc::Receiver<PublishAckFuture>, url: String, warn: Warn) {
    let mut failing = false;
    while let Some(ack) = pending.recv().await {
        match ack.await {
            Ok(_) => failing = false,
            Err(e) if !failing => {
                failing = true;
                warn(format!(
                    "NATS server {url} did not store an event ({e}); the run goes on"
                ));
            }
            Err(_) => {}
        }
    }
}

/// Answer `id`'s control requests through `controller`: the same gate a
/// local key reaches, so a remote pause holds the run where a local one
/// would.
async fn serve(client: async_nats::Client, id: RemoteRunId, controller: Controller) {
    let Ok(mut requests) = client.subscribe(id.control_subject()).await else {
        return;
    };
    while let Some(request) = requests.next().await {
        let Some(reply_to) = request.reply else {
            continue;
        };
        let reply = match serde_json::from_slice::<RemoteCommand>(&request.payload) {
            Err(e) => Reply::refused(format!(
                "not a command ({e}); expected e.g. {{\"command\": \"pause\"}}"
            )),
            Ok(command) => match command.control() {
                None => Reply::ok(),
                Some(control) => match controller.send(control) {
                    Ok(()) => Reply::ok(),
                    Err(e) => Reply::refused(e.to_string()),
                },
            },
        };
        let payload = serde_json::to_vec(&reply).unwrap_or_default();
        let _ = client.publish(reply_to, payload.into()).await;
    }
}
