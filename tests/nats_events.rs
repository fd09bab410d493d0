//! An engine's events on NATS JetStream, against a real nats-server on
//! loopback: every event of a run in the stream, in order, each with its
//! message id, under the limits the user set; a server that goes away
//! costs the run nothing but a warning; one that is not there is refused
//! before the run starts.

use crate::common;

use async_nats::jetstream::consumer::{DeliverPolicy, pull};
use common::cli::{conclave, result};
use common::nats::NatsServer;
use conclave::bus::{Event, EventKind, Hub};
use conclave::engine::LaunchOptions;
use conclave::nats::limits::EventLimits;
use conclave::nats::publish::{EventLink, PublishTo, Warn};
use futures_util::{StreamExt, TryStreamExt};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(60);

#[tokio::test]
async fn every_event_of_a_run_reaches_the_stream_in_order_with_its_message_id_and_limits() {
    the_stream_holds_every_event_of("scenarios/checkout_v2_launch.json", 0).await;
}

/// A graph run's events (its plan, activations, edges, joins and human
/// question) go on the stream as any pattern's do, and read back as the
/// same typed events; a stalled graph's run, which exits 3, too.
#[tokio::test]
async fn a_graph_run_s_events_reach_the_stream_as_they_were_recorded() {
    the_stream_holds_every_event_of("scenarios/graph_review_loop.json", 0).await;
    the_stream_holds_every_event_of("scenarios/graph_stalled_join.json", 3).await;
}

async fn the_stream_holds_every_event_of(scenario: &str, exit: i32) {
    let server = NatsServer::start();
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("local.jsonl");
    let recorded = recorded.to_str().unwrap();
    let local = conclave(&["run", scenario, "--headless", "--record", recorded]);
    let published = conclave(&[
        "run",
        scenario,
        "--headless",
        "--nats",
        &server.url(),
        "--nats-max-age",
        "2h",
        "--nats-max-bytes",
        "64MiB",
    ]);
    assert_eq!(published.status.code(), Some(exit), "{published:?}");
    assert_eq!(
        result(&published),
        result(&local),
        "publishing changes nothing"
    );

    let nats = conclave::nats::connect(&server.url()).await.unwrap();
    let mut stream = nats.js.get_stream("CONCLAVE_EVENTS").await.unwrap();
    let config = stream.info().await.unwrap().config.clone();
    assert_eq!(config.max_age, Duration::from_secs(2 * 3600));
    assert_eq!(config.max_bytes, 64 << 20);
    let subjects: Vec<(String, usize)> = stream
        .info_with_subjects("conclave.events.>")
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(subjects.len(), 1, "{subjects:?}");
    let subject = &subjects[0].0;
    let engine = subject
        .strip_prefix("conclave.events.")
        .and_then(|rest| rest.strip_suffix(".1"))
        .expect("conclave.events.<engine>.1");

    let want = conclave::record::read_recording(std::path::Path::new(recorded))
        .unwrap()
        .events;
    let consumer = stream
        .create_consumer(pull::OrderedConfig {
            filter_subject: subject.clone(),
            deliver_policy: DeliverPolicy::All,
            ..Default::default()
        })
        .await
        .unwrap();
    let mut messages = consumer.messages().await.unwrap().take(want.len());
    let mut got: Vec<Event> = Vec::new();
    while let Some(message) = tokio::time::timeout(DEADLINE, messages.next())
        .await
        .expect("the stream holds every event")
    {
        let message = message.unwrap();
        let event: Event = serde_json::from_slice(&message.payload).unwrap();
        let id = message
            .headers
            .as_ref()
            .and_then(|h| h.get("Nats-Msg-Id"))
            .map(|v| v.to_string());
        assert_eq!(id, Some(format!("{engine}/1/{}", event.seq)));
        got.push(event);
    }
    assert_eq!(got.len(), want.len());
    for (got, want) in got.iter().zip(&want) {
        assert_eq!(got.seq, want.seq);
        // The same run on the virtual clock: the same events, but for the
        // wall-clock start.
        match (&got.kind, &want.kind) {
            (EventKind::RunStarted(a), EventKind::RunStarted(b)) => {
                assert_eq!(
                    (a.seed, &a.flags, &a.scenario),
                    (b.seed, &b.flags, &b.scenario)
                );
            }
            (a, b) => assert_eq!(a, b),
        }
    }
    assert!(matches!(
        got.last().unwrap().kind,
        EventKind::RunFinished { .. }
    ));
    assert!(
        got.iter().any(|e| matches!(e.kind, EventKind::Pattern(_))),
        "{scenario}: the pattern's own events are on the stream"
    );
}

#[test]
fn a_server_that_goes_away_costs_the_run_nothing_but_a_warning() {
    let server = NatsServer::start();
    let warnings = Arc::new(Mutex::new(Vec::<String>::new()));
    let heard = Arc::clone(&warnings);
    let warn: Warn = Arc::new(move |w| heard.lock().unwrap().push(w));
    let link = EventLink::start(
        &PublishTo {
            url: server.url(),
            limits: EventLimits::default(),
        },
        warn,
    )
    .expect("the link connects");
    drop(server);

    let scenario = common::shipped("checkout_v2_launch.json");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let (with_link, alone) = runtime.block_on(async {
        let hub = Hub::default();
        let handle = link
            .launch(Arc::clone(&scenario), &hub, LaunchOptions::default())
            .expect("launches");
        let with_link = handle.finish().await.expect("the run ends");
        let alone = common::run_default(Arc::clone(&scenario)).await;
        (with_link, alone)
    });
    assert_eq!(with_link.result, alone.result);

    let deadline = std::time::Instant::now() + DEADLINE;
    while warnings.lock().unwrap().is_empty() {
        assert!(std::time::Instant::now() < deadline, "no warning");
        std::thread::park_timeout(Duration::from_millis(20));
    }
    let said = warnings.lock().unwrap().join("\n");
    assert!(said.contains("the run goes on"), "{said}");
    let closing = std::time::Instant::now();
    link.close(Duration::from_secs(2));
    assert!(closing.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_server_that_is_not_there_is_refused_before_the_run_starts() {
    let out = conclave(&[
        "run",
        "scenarios/checkout_v2_launch.json",
        "--headless",
        "--nats",
        "nats://127.0.0.1:9",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("127.0.0.1:9"), "{stderr}");
}
