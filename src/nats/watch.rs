//! The viewer's side of NATS (`conclave attach`): which runs of which
//! engines are live, a run's events from its first one, and commands sent
//! to a run's engine. It reads and asks; it never publishes an event.
//!
//! A run is live when its last event in the stream is not its finish and
//! its engine answers a ping on the run's control subject: a run whose
//! engine was killed stops being listed even though its finish never came.

use super::command::{RemoteCommand, Reply};
use super::subjects::{EVENTS_ALL, EVENTS_STREAM, RemoteRunId};
use crate::bus::{Event, EventKind};
use crate::scenario::{PatternKind, Scenario};
use async_nats::jetstream::{self, consumer};
use futures_util::{Stream, StreamExt, TryStreamExt};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

/// How long a command waits for the engine's reply.
const REPLY_WITHIN: Duration = Duration::from_secs(5);
/// How long a ping waits before the run is left out of this listing.
const PING_WITHIN: Duration = Duration::from_secs(2);

/// A live run as the attach list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveRun {
    pub id: RemoteRunId,
    /// The scenario, from the run's first event.
    pub scenario: Arc<Scenario>,
    pub pattern: PatternKind,
    /// Events published so far.
    pub events: u64,
}

/// A viewer's connection to the server.
#[derive(Clone, Debug)]
pub struct Watcher {
    client: async_nats::Client,
    js: jetstream::Context,
    url: String,
}

/// What a listing remembers between two looks: what never changes again
/// about a run (its start, or that it is over).
#[derive(Debug, Default)]
pub struct Listing {
    over: HashSet<RemoteRunId>,
    started: HashMap<RemoteRunId, (Arc<Scenario>, PatternKind)>,
}

impl Watcher {
    /// Connect to the server at `url`; the error names it.
    pub async fn connect(url: &str) -> Result<Watcher, String> {
        let nats = super::connect(url).await.map_err(|e| e.to_string())?;
        Ok(Watcher {
            client: nats.client.clone(),
            js: nats.js.clone(),
            url: url.to_string(),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every live run of every engine, oldest engine and run first.
    pub async fn live_runs(&self, listing: &mut Listing) -> Result<Vec<LiveRun>, String> {
        let stream = match self.js.get_stream(EVENTS_STREAM).await {
            Ok(stream) => stream,
            // No engine has published yet.
            Err(e)
                if matches!(
                    e.kind(),
                    jetstream::context::GetStreamErrorKind::JetStream(error)
                        if error.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND
                ) =>
            {
                return Ok(Vec::new());
            }
            Err(e) => return Err(format!("{}: cannot read {EVENTS_STREAM}: {e}", self.url)),
        };
        let subjects: Vec<(String, usize)> = stream
            .info_with_subjects(EVENTS_ALL)
            .await
            .map_err(|e| format!("{}: cannot list the runs: {e}", self.url))?
            .try_collect()
            .await
            .map_err(|e| format!("{}: cannot list the runs: {e}", self.url))?;
        let candidates: Vec<(RemoteRunId, u64)> = subjects
            .into_iter()
            .filter_map(|(subject, count)| {
                let id = RemoteRunId::of_events_subject(&subject)?;
                (!listing.over.contains(&id)).then_some((id, count as u64))
            })
            .collect();
        let looks = candidates.iter().map(|(id, _)| self.look(&stream, id));
        let looked = futures_util::future::join_all(looks).await;
        let mut live = Vec::new();
        for ((id, events), look) in candidates.into_iter().zip(looked) {
            match look {
                Look::Over => {
                    listing.over.insert(id);
                }
                Look::Unsure => {}
                Look::Live => {
                    if !listing.started.contains_key(&id)
                        && let Some(started) = first_event(&stream, &id).await
                    {
                        listing.started.insert(id.clone(), started);
                    }
                    if let Some((scenario, pattern)) = listing.started.get(&id) {
                        live.push(LiveRun {
                            scenario: Arc::clone(scenario),
                            pattern: *pattern,
                            events,
                            id,
                        });
                    }
                }
            }
        }
        live.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(live)
    }

    /// Whether `id` is live: its last event, then its engine.
    async fn look(&self, stream: &jetstream::stream::Stream, id: &RemoteRunId) -> Look {
        match stream
            .get_last_raw_message_by_subject(&id.events_subject())
            .await
        {
            Ok(message) => {
                if decode(&message.payload)
                    .is_some_and(|e| matches!(e.kind, EventKind::RunFinished { .. }))
                {
                    return Look::Over;
                }
            }
            Err(_) => return Look::Unsure,
        }
        let ping = serde_json::to_vec(&RemoteCommand::Ping).unwrap_or_default();
        let asked = tokio::time::timeout(
            PING_WITHIN,
            self.client.request(id.control_subject(), ping.into()),
        )
        .await;
        match asked {
            Ok(Ok(_)) => Look::Live,
            // Nobody serves the run: its engine is gone.
            Ok(Err(e)) if e.kind() == async_nats::RequestErrorKind::NoResponders => Look::Over,
            _ => Look::Unsure,
        }
    }

    /// Run `id`'s events from its first one, live after that, each read as
    /// a recording's line is. A message that is not one of the run's
    /// events (not UTF-8, not an event, another run's, one its engine did
    /// not publish, one already shown) is skipped, saying why: it costs
    /// only itself. An error is the stream's own.
    pub async fn follow(
        &self,
        id: &RemoteRunId,
    ) -> Result<impl Stream<Item = Result<Followed, String>> + use<>, String> {
        let stream = self
            .js
            .get_stream(EVENTS_STREAM)
            .await
            .map_err(|e| format!("{}: cannot read {EVENTS_STREAM}: {e}", self.url))?;
        let consumer = stream
            .create_consumer(consumer::pull::OrderedConfig {
                filter_subject: id.events_subject(),
                deliver_policy: consumer::DeliverPolicy::All,
                ..Default::default()
            })
            .await
            .map_err(|e| format!("{}: cannot follow run {id}: {e}", self.url))?;
        let messages = consumer
            .messages()
            .await
            .map_err(|e| format!("{}: cannot follow run {id}: {e}", self.url))?;
        let id = id.clone();
        let mut last = 0;
        Ok(messages.map(move |message| {
            let message = message.map_err(|e| format!("run {id}: {e}"))?;
            let Some(event) = decode(&message.payload) else {
                return Ok(Followed::Skipped(not_an_event(&message.payload)));
            };
            let why = if event.run != id.run {
                format!("an event of run {}", event.run)
            } else if !published_by_its_engine(&message, &id, event.seq) {
                format!("event {} without its engine's message id", event.seq)
            } else if event.seq <= last {
                format!("event {} again, after event {last}", event.seq)
            } else {
                last = event.seq;
                return Ok(Followed::Event(Box::new(event)));
            };
            Ok(Followed::Skipped(why))
        }))
    }

    /// Send `command` to run `id`'s engine; the error is the engine's
    /// refusal, or why it could not be asked.
    pub async fn command(&self, id: &RemoteRunId, command: &RemoteCommand) -> Result<(), String> {
        let payload = serde_json::to_vec(command).map_err(|e| e.to_string())?;
        let asked = tokio::time::timeout(
            REPLY_WITHIN,
            self.client.request(id.control_subject(), payload.into()),
        )
        .await;
        let answer = match asked {
            Err(_) => return Err(format!("run {id}: its engine did not answer in time")),
            Ok(Err(e)) if e.kind() == async_nats::RequestErrorKind::NoResponders => {
                return Err(format!(
                    "run {id}: its engine does not answer (the run is over or its engine gone)"
                ));
            }
            Ok(Err(e)) => return Err(format!("run {id}: {e}")),
            Ok(Ok(answer)) => answer,
        };
        serde_json::from_slice::<Reply>(&answer.payload)
            .map_err(|e| format!("run {id}: the engine's reply is not one: {e}"))?
            .into_result()
    }
}

/// One message of a followed run's subject.
#[derive(Debug)]
pub enum Followed {
    Event(Box<Event>),
    /// A message that is none of the run's events, and what it was.
    Skipped(String),
}

/// Whether `message` carries the message id its engine gives event `seq`
/// of run `id` (`<engine>/<run>/<seq>`): anything else on the subject was
/// put there by someone else.
fn published_by_its_engine(message: &jetstream::Message, id: &RemoteRunId, seq: u64) -> bool {
    message
        .headers
        .as_ref()
        .and_then(|headers| headers.get(async_nats::header::NATS_MESSAGE_ID))
        .is_some_and(|value| value.as_str() == id.message_id(seq))
}

/// What a message that holds no event holds, in a few words fit for the
/// terminal: its kind, when it names one, cleaned and cut short.
fn not_an_event(payload: &[u8]) -> String {
    let Ok(text) = std::str::from_utf8(payload) else {
        return "bytes that are not UTF-8".into();
    };
    #[derive(serde::Deserialize)]
    struct Kind {
        #[serde(rename = "type")]
        kind: String,
    }
    match serde_json::from_str::<Kind>(text) {
        Ok(Kind { kind }) => {
            let kind: String = crate::sanitize::clean(&kind).chars().take(40).collect();
            format!("an event of a kind this Conclave does not read ({kind:?})")
        }
        Err(_) => "not an event".into(),
    }
}

enum Look {
    Live,
    Over,
    /// Not known this time (a slow reply): asked again at the next look.
    Unsure,
}

/// An event from a message's payload.
fn decode(payload: &[u8]) -> Option<Event> {
    Event::from_text(std::str::from_utf8(payload).ok()?)
}

/// The scenario and pattern, from the run's first event.
async fn first_event(
    stream: &jetstream::stream::Stream,
    id: &RemoteRunId,
) -> Option<(Arc<Scenario>, PatternKind)> {
    let message = stream
        .get_first_raw_message_by_subject(id.events_subject(), 1)
        .await
        .ok()?;
    match decode(&message.payload)?.kind {
        EventKind::RunStarted(started) => Some((started.scenario, started.pattern)),
        _ => None,
    }
}
