//! Bus throughput: events published per second with the recorder and one
//! live subscriber attached (and an OTLP exporter besides), next to a raw `tokio::sync::broadcast` channel
//! carrying the same events to one subscriber, in the same run and with the
//! allocator the `conclave` binary uses.

use conclave::bus::{
    Bus, CallOutcome, ClockMode, Delivery, Event, EventKind, EventSink, Hub, Subscription,
};
use conclave::clock::RunClock;
use conclave::record::Recorder;
use conclave::telemetry::{Exporter, OtlpConfig};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EVENTS: u64 = 100_000;
const CAPACITY: usize = 4096;

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

/// A live viewer: a tokio task on its own thread, reading until the channel
/// closes, as the dashboard does.
fn viewer<F>(read: F) -> JoinHandle<u64>
where
    F: AsyncFnOnce() -> u64 + Send + 'static,
{
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(read())
    })
}

fn raw_broadcast(iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let (tx, mut rx) = broadcast::channel::<Arc<Event>>(CAPACITY);
        let reader = viewer(async move || {
            let mut seen = 0;
            loop {
                match rx.recv().await {
                    Ok(_) => seen += 1,
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return seen,
                }
            }
        });
        let start = Instant::now();
        for i in 0..EVENTS {
            let event = Arc::new(Event {
                run: 1,
                seq: i + 1,
                t_ms: 0,
                kind: kind(i),
            });
            let _ = tx.send(event);
        }
        total += start.elapsed();
        drop(tx);
        reader.join().unwrap();
    }
    total
}

fn read_bus(mut sub: Subscription) -> JoinHandle<u64> {
    viewer(async move || {
        let mut seen = 0;
        loop {
            match sub.next().await {
                Delivery::Event(_) => seen += 1,
                Delivery::Missed(_) => {}
                Delivery::Closed => return seen,
            }
        }
    })
}

/// Publish through a run's bus; with `record`, every event also goes to a
/// JSONL file, which must hold all of them afterwards; with `exported`,
/// to an OTLP exporter too (whose collector is a loopback port nobody
/// listens on: what is measured is what the exporter costs the engine).
fn conclave_bus(iters: u64, record: bool, exported: bool) -> Duration {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut total = Duration::ZERO;
    for n in 0..iters {
        let (sink, recorder) = if record {
            let (sink, recorder) =
                Recorder::create(&dir.path().join(format!("{n}.jsonl"))).unwrap();
            (Some(Box::new(sink) as Box<dyn EventSink>), Some(recorder))
        } else {
            (None, None)
        };
        let hub = Hub::new(CAPACITY);
        let reader = read_bus(hub.subscribe());
        let exporter = exported.then(dead_collector);
        let observers = exporter.iter().map(Exporter::observer).collect();
        let bus = runtime.block_on(async {
            Bus::new(1, RunClock::start_on(ClockMode::Real), hub, sink).with_observers(observers)
        });
        let start = Instant::now();
        runtime.block_on(async {
            for i in 0..EVENTS {
                bus.publish(kind(i));
            }
        });
        total += start.elapsed();
        drop(bus);
        reader.join().unwrap();
        if let Some(exporter) = exporter {
            exporter.finish();
        }
        if let Some(recorder) = recorder {
            assert_eq!(
                recorder.finish().unwrap(),
                EVENTS,
                "the recorder kept every event"
            );
        }
    }
    total
}

/// An exporter to a loopback port nobody listens on.
fn dead_collector() -> Exporter {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = OtlpConfig::to(&format!("http://127.0.0.1:{port}")).unwrap();
    Exporter::start(&config, conclave::patterns::trace_shapes()).unwrap()
}

fn bus_throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("publish");
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(20);
    group.bench_function("raw_broadcast", |b| b.iter_custom(raw_broadcast));
    group.bench_function("bus_recorded", |b| {
        b.iter_custom(|iters| conclave_bus(iters, true, false))
    });
    group.bench_function("bus_unrecorded", |b| {
        b.iter_custom(|iters| conclave_bus(iters, false, false))
    });
    group.bench_function("bus_recorded_and_exported", |b| {
        b.iter_custom(|iters| conclave_bus(iters, true, true))
    });
    group.finish();
}

criterion_group!(benches, bus_throughput);
criterion_main!(benches);
