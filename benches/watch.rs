//! `conclave watch` at scale: a loopback client sends 1,000,000 spans
//! (10,000 traces of 100 spans: a workflow root, agents, model calls with
//! GenAI attributes, tool calls) over OTLP/HTTP protobuf, five whole
//! traces a request, children before their root, four requests at once,
//! and the bench prints spans per second (from the first request to the
//! consumer having taken the last span) and the process's peak resident
//! memory (`VmHWM`). The target: at least 20,000 spans/s and at most
//! 300 MiB on two cores.
//!
//! Rows, each in a process of its own (so that each peak is its own):
//! - `drain`: the receiver and a consumer that only drains batches.
//! - `watch`: the receiver and the real watch (`watch::start`, as
//!   `conclave watch --headless` runs it): runs assembled, read, settled
//!   and summed up; finished runs closed.
//! - `dashboard`: the receiver, the watch as `conclave watch` runs it for
//!   the dashboard (each run told as the bus's events, finished runs kept
//!   until room is wanted), and the dashboard folding every feed item
//!   into its runs and drawing a 160x48 frame whenever something
//!   changed, at most every 33 ms, as its loop does.
//!
//! - `one-run-headless` and `one-run-drawn`: one trace of 20,000 spans
//!   (the per-run limit; 1,818 agents of 10 calls and a root), posted in
//!   200 requests of 100 spans one after the other, children first, read
//!   by the watch as `--headless` reads it and as the dashboard reads and
//!   draws it. Each prints the process's CPU time (user + system, the
//!   sender's share included, the same in both): the drawn row's target is
//!   at most twice the headless one, a run's cost not growing with its
//!   size.
//!
//! Each row runs on the allocator the binary runs on, mimalloc, with its
//! purge delay at 0 as the binary sets it.
//!
//! A 429 (the watch's queue full) is counted and the request sent again
//! after 20 ms, so every span arrives; the counts say how often.
//! `cargo bench --bench watch -- drain` runs the rows whose name holds
//! `drain`; `CONCLAVE_WATCH_TRACES` changes the 10,000.

use conclave::tui::watch_offscreen::WatchOffscreen;
use conclave::watch::consume::{WatchFeed, WatchOptions};
use conclave::watch::receive::{Batch, ReceiveConfig, Receiving, serve};
use conclave::watch::start::{WatchSettings, start};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// The allocator the `conclave` binary runs with (`src/allocator.rs`),
/// tuned as it tunes it: freed memory goes back at once.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const ALONE: &str = "CONCLAVE_WATCH_ALONE";
const ROWS: [&str; 5] = [
    "drain",
    "watch",
    "dashboard",
    "one-run-headless",
    "one-run-drawn",
];
/// Agents in the one-run rows' trace: 11 spans each, and the root.
const ONE_RUN_AGENTS: u64 = 1_818;
const ONE_RUN_BATCH: usize = 100;
const SPANS_PER_TRACE: usize = 100;
const TRACES_PER_REQUEST: usize = 5;
const SENDERS: usize = 4;

fn main() {
    if let Ok(row) = std::env::var(ALONE) {
        return run_row(&row);
    }
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for row in ROWS {
        if !filters.is_empty() && !filters.iter().any(|f| row.contains(f.as_str())) {
            continue;
        }
        let exe = std::env::current_exe().expect("the bench's own path");
        let status = Command::new(exe)
            .env(ALONE, row)
            // The binary sets mimalloc's purge delay to 0 in `main`; the
            // row's process is given it as mimalloc reads it at start.
            .env("MIMALLOC_PURGE_DELAY", "0")
            .status()
            .expect("the row runs");
        assert!(status.success(), "row {row} failed");
    }
}

fn traces() -> usize {
    std::env::var("CONCLAVE_WATCH_TRACES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000)
}

fn run_row(row: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        match row {
            "drain" => drain_row().await,
            "watch" => watch_row(Load::Many).await,
            "dashboard" => dashboard_row(Load::Many).await,
            "one-run-headless" => watch_row(Load::OneRun).await,
            "one-run-drawn" => dashboard_row(Load::OneRun).await,
            other => panic!("no row {other}"),
        }
    });
    println!("  peak RSS {:.1} MiB", peak_rss_kib() as f64 / 1024.0);
    println!("  CPU {:.3} s (user + system)", cpu_seconds());
}

/// What a row sends.
#[derive(Clone, Copy, PartialEq)]
enum Load {
    /// `traces()` traces of 100 spans, five a request, four requests at once.
    Many,
    /// One trace of 20,000 spans, 100 a request, one request at a time.
    OneRun,
}

impl Load {
    async fn send(self, receiving: &Receiving) -> u64 {
        match self {
            Load::Many => send_all(receiving).await,
            Load::OneRun => send_one_run(receiving).await,
        }
    }

    fn spans(self) -> usize {
        match self {
            Load::Many => traces() * SPANS_PER_TRACE,
            Load::OneRun => one_run().len(),
        }
    }
}

fn receive_config() -> ReceiveConfig {
    ReceiveConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        grpc: None,
        ..ReceiveConfig::default()
    }
}

async fn drain_row() {
    let (sink, mut batches) = mpsc::channel::<Batch>(64);
    let receiving = serve(receive_config(), sink)
        .await
        .expect("the receiver starts");
    let consumer = tokio::spawn(async move {
        let mut spans = 0usize;
        while let Some(batch) = batches.recv().await {
            spans += batch
                .request
                .resource_spans
                .iter()
                .flat_map(|r| &r.scope_spans)
                .map(|s| s.spans.len())
                .sum::<usize>();
        }
        spans
    });
    let began = Instant::now();
    let refused = send_all(&receiving).await;
    let counts = receiving.counts();
    receiving.shutdown().await;
    let spans = consumer.await.unwrap();
    report(Load::Many, began.elapsed(), spans, refused, &counts);
}

async fn watch_row(load: Load) {
    let settings = WatchSettings {
        gateway: None,
        receive: receive_config(),
        options: WatchOptions {
            close_finished: true,
            ..WatchOptions::default()
        },
    };
    let started = start(settings).await.expect("the watch starts");
    let mut feed = started.feed;
    let reader = tokio::spawn(async move {
        let (mut runs, mut spans, mut dropped) = (0u64, 0u64, 0u64);
        let mut no_room = 0u64;
        while let Some(item) = feed.recv().await {
            match item {
                WatchFeed::Finished(summary) => {
                    runs += 1;
                    spans += summary.spans;
                    dropped += summary.dropped_spans;
                }
                WatchFeed::Dropped(total) => no_room = total,
                _ => {}
            }
        }
        dropped += no_room;
        (runs, spans, dropped)
    });
    let began = Instant::now();
    let refused = load.send(&started.receiving).await;
    let counts = started.receiving.counts();
    started.receiving.shutdown().await;
    started.task.await.unwrap();
    let (runs, spans, dropped) = reader.await.unwrap();
    report(load, began.elapsed(), spans as usize, refused, &counts);
    println!(
        "  runs finished {runs}, spans in them {spans}, dropped by the watch's limits {dropped}"
    );
}

async fn dashboard_row(load: Load) {
    let settings = WatchSettings {
        gateway: None,
        receive: receive_config(),
        // As `conclave watch` runs it for the dashboard: each run told as
        // events, finished runs kept until room is wanted.
        options: WatchOptions {
            tell: true,
            ..WatchOptions::default()
        },
    };
    let limits = settings.options.limits;
    let started = start(settings).await.expect("the watch starts");
    let mut feed = started.feed;
    let drawer = tokio::spawn(async move {
        let mut screen = WatchOffscreen::new(limits);
        let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("a test terminal");
        let (mut frames, mut runs, mut spans) = (0u64, 0u64, 0u64);
        let (mut dropped, mut no_room) = (0u64, 0u64);
        let mut dirty = false;
        let mut tick = tokio::time::interval(Duration::from_millis(33));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                item = feed.recv() => match item {
                    Some(item) => {
                        match &item {
                            WatchFeed::Finished(summary) => {
                                runs += 1;
                                spans += summary.spans;
                                dropped += summary.dropped_spans;
                            }
                            WatchFeed::Dropped(total) => no_room = *total,
                            _ => {}
                        }
                        screen.take(item);
                        dirty = true;
                    }
                    None => break,
                },
                _ = tick.tick(), if dirty => {
                    terminal.draw(|frame| screen.draw(frame)).expect("a frame");
                    frames += 1;
                    dirty = false;
                }
            }
        }
        (frames, runs, spans, dropped + no_room)
    });
    let began = Instant::now();
    let refused = load.send(&started.receiving).await;
    let counts = started.receiving.counts();
    started.receiving.shutdown().await;
    started.task.await.unwrap();
    let (frames, runs, spans, dropped) = drawer.await.unwrap();
    report(load, began.elapsed(), spans as usize, refused, &counts);
    println!(
        "  runs finished {runs}, spans in them {spans}, dropped by the watch's limits {dropped}, frames drawn {frames}"
    );
}

fn report(
    load: Load,
    took: Duration,
    consumed: usize,
    refused: u64,
    counts: &conclave::watch::receive::ReceiveCounts,
) {
    let row = std::env::var(ALONE).unwrap_or_default();
    let sent = load.spans();
    println!(
        "{row}: {sent} spans sent, {consumed} taken by the consumer in {:.2} s: {:.0} spans/s",
        took.as_secs_f64(),
        consumed as f64 / took.as_secs_f64()
    );
    println!(
        "  requests accepted {}, answered 429 {refused} (sent again), spans accepted {}",
        counts.requests_accepted, counts.spans_accepted
    );
}

/// Send every trace, `SENDERS` requests at once; the 429s answered.
async fn send_all(receiving: &Receiving) -> u64 {
    let url = format!("http://{}/v1/traces", receiving.http_addr());
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let next = Arc::new(AtomicU64::new(0));
    let refused = Arc::new(AtomicU64::new(0));
    let requests = (traces() / TRACES_PER_REQUEST) as u64;
    let senders: Vec<_> = (0..SENDERS)
        .map(|_| {
            let (client, url, next, refused) = (
                client.clone(),
                url.clone(),
                Arc::clone(&next),
                Arc::clone(&refused),
            );
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= requests {
                        return;
                    }
                    let body = request(n).encode_to_vec();
                    let again = post_until_taken(&client, &url, body).await;
                    refused.fetch_add(again, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for sender in senders {
        sender.await.unwrap();
    }
    refused.load(Ordering::Relaxed)
}

/// Send the one-run trace, 100 spans a request, one request at a time
/// (the root in the last); the 429s answered.
async fn send_one_run(receiving: &Receiving) -> u64 {
    let url = format!("http://{}/v1/traces", receiving.http_addr());
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let mut refused = 0;
    for spans in one_run().chunks(ONE_RUN_BATCH) {
        let body = wrapped(spans.to_vec()).encode_to_vec();
        refused += post_until_taken(&client, &url, body).await;
    }
    refused
}

/// POST `body` until the receiver takes it; how many times it answered
/// 429 (each waited 20 ms for).
async fn post_until_taken(client: &reqwest::Client, url: &str, body: Vec<u8>) -> u64 {
    let mut refused = 0;
    loop {
        let response = client
            .post(url)
            .header("content-type", "application/x-protobuf")
            .body(body.clone())
            .send()
            .await
            .expect("the receiver answers");
        match response.status().as_u16() {
            200 => return refused,
            429 => {
                refused += 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            other => panic!("answered {other}"),
        }
    }
}

/// The one-run rows' trace: children first, the root last.
fn one_run() -> Vec<Span> {
    trace_of(0, ONE_RUN_AGENTS)
}

fn string(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..KeyValue::default()
    }
}

fn int(key: &str, value: i64) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::IntValue(value)),
        }),
        ..KeyValue::default()
    }
}

/// Request `n`: five whole traces, each root last.
fn request(n: u64) -> ExportTraceServiceRequest {
    let spans = (0..TRACES_PER_REQUEST as u64)
        .flat_map(|t| trace_of(n * TRACES_PER_REQUEST as u64 + t, 9))
        .collect();
    wrapped(spans)
}

/// `spans` in one request of one resource and scope.
fn wrapped(spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![string("service.name", "bench")],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "bench".into(),
                    ..InstrumentationScope::default()
                }),
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
}

/// Trace `t`: a workflow root, `agents` agents under it (9 make 100
/// spans), each with 5 model calls and 5 tool calls; children first.
fn trace_of(t: u64, agents: u64) -> Vec<Span> {
    let trace_id = [(t + 1).to_be_bytes(), 0xabcd_u64.to_be_bytes()].concat();
    let id = |i: u64| ((t << 16) | (i + 1)).to_be_bytes().to_vec();
    let start = 1_700_000_000_000_000_000 + t * 1_000_000_000;
    let span = |i: u64, parent: Option<u64>, name: String, attributes: Vec<KeyValue>| Span {
        trace_id: trace_id.clone(),
        span_id: id(i),
        parent_span_id: parent.map(id).unwrap_or_default(),
        name,
        kind: 1,
        start_time_unix_nano: start + i * 1_000_000,
        end_time_unix_nano: start + i * 1_000_000 + 500_000,
        attributes,
        ..Span::default()
    };
    let mut spans = Vec::with_capacity(usize::try_from(agents * 11 + 1).unwrap_or(0));
    for agent in 0..agents {
        let a = 1 + agent * 11;
        let name = format!("agent_{agent}");
        for call in 0..10u64 {
            let i = a + 1 + call;
            spans.push(if call % 2 == 0 {
                span(
                    i,
                    Some(a),
                    "chat gpt-4o".into(),
                    vec![
                        string("gen_ai.operation.name", "chat"),
                        string("gen_ai.request.model", "gpt-4o"),
                        int("gen_ai.usage.input_tokens", 120),
                        int("gen_ai.usage.output_tokens", 40),
                    ],
                )
            } else {
                span(
                    i,
                    Some(a),
                    "execute_tool lookup".into(),
                    vec![
                        string("gen_ai.operation.name", "execute_tool"),
                        string("gen_ai.tool.name", "lookup"),
                    ],
                )
            });
        }
        spans.push(span(
            a,
            Some(0),
            format!("invoke_agent {name}"),
            vec![
                string("gen_ai.operation.name", "invoke_agent"),
                string("gen_ai.agent.name", &name),
            ],
        ));
    }
    spans.push(span(
        0,
        None,
        "invoke_workflow bench".into(),
        vec![string("gen_ai.operation.name", "invoke_workflow")],
    ));
    spans
}

/// The process's CPU time so far, user and system, in seconds.
fn cpu_seconds() -> f64 {
    // SAFETY: `getrusage` writes the whole struct it is given.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// The process's peak resident memory, KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
