//! What publishing a run's events to NATS costs the engine: events per
//! second through a run's bus with the recorder, with and without the
//! NATS link as an observer, against a real nats-server on loopback. The
//! link publishes behind the engine; how fast it gets every event stored
//! (all acknowledged) is printed once, apart.

#[allow(dead_code)]
#[path = "../tests/common/nats/mod.rs"]
mod nats;

use conclave::bus::{Bus, CallOutcome, ClockMode, EventKind, EventSink, Hub};
use conclave::clock::RunClock;
use conclave::nats::limits::EventLimits;
use conclave::nats::publish::{EventLink, PublishTo, Warn};
use conclave::record::Recorder;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EVENTS: u64 = 20_000;

fn kind(i: u64) -> EventKind {
    EventKind::CallFinished {
        call: i,
        tool: "model".to_string(),
        attempt: 1,
        latency_ms: 5,
        outcome: CallOutcome::Ok,
        usage: None,
        error: None,
        http_status: None,
        first_token_ms: None,
        tokens_per_s: None,
        reasoning: None,
        record: None,
        served: false,
        extracted: None,
        fallback: false,
    }
}

fn link(url: &str) -> EventLink {
    let warn: Warn = Arc::new(|w| panic!("the link warned: {w}"));
    EventLink::start(
        &PublishTo {
            url: url.to_string(),
            limits: EventLimits::default(),
        },
        warn,
    )
    .expect("the link connects")
}

/// The engine's side: `EVENTS` events through a recorded bus, with the
/// link as an observer when one is given. Returns the time publishing took
/// and, with a link, the time until every event was stored.
fn publish(dir: &std::path::Path, n: u64, link: Option<&EventLink>) -> Duration {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let (sink, recorder) = Recorder::create(&dir.join(format!("{n}.jsonl"))).unwrap();
    let observers = link.map(|l| vec![l.observer()]).unwrap_or_default();
    let bus = runtime.block_on(async {
        Bus::new(
            1,
            RunClock::start_on(ClockMode::Real),
            Hub::new(4096),
            Some(Box::new(sink) as Box<dyn EventSink>),
        )
        .with_observers(observers)
    });
    let start = Instant::now();
    runtime.block_on(async {
        for i in 0..EVENTS {
            bus.publish(kind(i));
        }
    });
    let took = start.elapsed();
    drop(bus);
    assert_eq!(recorder.finish().unwrap(), EVENTS);
    took
}

fn nats_publish(c: &mut Criterion) {
    let server = nats::NatsServer::start();
    let dir = tempfile::tempdir().unwrap();

    // The link's own pace, once: every event published and acknowledged.
    let timed = link(&server.url());
    let start = Instant::now();
    publish(dir.path(), u64::MAX, Some(&timed));
    timed.close(Duration::from_secs(120));
    let stored = start.elapsed();
    println!(
        "the link stored {EVENTS} events in {stored:.2?} ({:.0} events/s)",
        EVENTS as f64 / stored.as_secs_f64()
    );

    let mut group = c.benchmark_group("engine_publish");
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(10);
    group.bench_function("recorded", |b| {
        b.iter_custom(|iters| (0..iters).map(|n| publish(dir.path(), n, None)).sum())
    });
    group.bench_function("recorded_and_on_nats", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|n| {
                    let link = link(&server.url());
                    let took = publish(dir.path(), n, Some(&link));
                    link.close(Duration::from_secs(120));
                    took
                })
                .sum()
        })
    });
    group.finish();
}

criterion_group!(benches, nats_publish);
criterion_main!(benches);
