//! The OTLP exporter: one thread that folds each run's events into spans
//! and hands them to the SDK's batch processor, which sends them over
//! HTTP from a thread of its own. An observer's `accept` only queues: the
//! engine never waits for a span to be built or sent.
//!
//! The collector never holds a run or a command's end. Spans wait for the
//! collector in the processor's bounded queue ([`MAX_QUEUE`]); while the
//! collector answers, the exporter thread waits for it before the queue
//! fills, so nothing is lost, but once an export has failed or a flush
//! has timed out it waits no more and what does not fit is dropped. Each
//! request has a timeout and follows no redirect (a secret header never
//! reaches another host), and [`Exporter::finish`] waits at most the flush
//! bound ([`Bounds`]) before it gives up, saying once how many spans were
//! not sent and why.

use super::bounds::Bounds;
use super::config::{OtlpConfig, Protocol};
use super::sdk_span::{Trace, span_data};
use super::span::FinishedSpan;
use super::trace::{TraceBuilder, TraceShapes};
use super::watch::{Delivery, Watched};
use crate::bus::{Event, EventSink};
use crate::exit::Exit;
use opentelemetry::InstrumentationScope;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SpanProcessor};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Spans the processor may hold; past this, spans the collector could
/// not take in time are dropped (and counted).
const MAX_QUEUE: usize = 8192;
/// While the collector answers, the exporter thread has the processor
/// send what it holds at this many spans, before the queue is full.
const FLUSH_AT: usize = MAX_QUEUE / 2;
const MAX_BATCH: usize = 512;
/// What [`Exporter::finish`] allows past the flush bound for the exporter
/// thread to notice it (the processor's own wait is the bound).
const FINISH_GRACE: Duration = Duration::from_millis(200);

/// Why export cannot start.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the OTLP export to {endpoint}: {problem}")]
pub struct ExportError {
    endpoint: String,
    problem: String,
}

enum Message {
    Event(u64, Arc<Event>),
    /// End every open trace, send what is left until the deadline and
    /// stop, whoever still holds an observer (a run's bus may outlive its
    /// run).
    Stop(Instant),
}

/// Sends runs as traces. Dropping it finishes it.
#[derive(Debug)]
pub struct Exporter {
    endpoint: String,
    bounds: Bounds,
    queue: Mutex<Option<mpsc::Sender<Message>>>,
    /// The exporter thread, and whether it sent everything in time.
    worker: Mutex<Option<(JoinHandle<()>, mpsc::Receiver<bool>)>>,
    delivery: Arc<Delivery>,
    next_run: AtomicU64,
}

impl Exporter {
    /// Start exporting as `config` says, each run's trace shaped by its
    /// pattern's `shapes`. Nothing is sent until a run's events arrive.
    pub fn start(config: &OtlpConfig, shapes: TraceShapes) -> Result<Exporter, ExportError> {
        crate::provider::http::install_crypto();
        let failed = |problem: String| ExportError {
            endpoint: crate::secrets::scrub(&config.endpoint).into_owned(),
            problem: crate::secrets::scrub(&problem).into_owned(),
        };
        let protocol = match config.protocol {
            Protocol::HttpProtobuf => opentelemetry_otlp::Protocol::HttpBinary,
            Protocol::HttpJson => opentelemetry_otlp::Protocol::HttpJson,
        };
        let headers: HashMap<String, String> = config.headers().iter().cloned().collect();
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client(config.bounds.request).map_err(&failed)?)
            .with_endpoint(config.endpoint.clone())
            .with_protocol(protocol)
            .with_timeout(config.bounds.request)
            .with_headers(headers)
            .build()
            .map_err(|e| failed(e.to_string()))?;
        let delivery = Arc::new(Delivery::default());
        let batch = BatchConfigBuilder::default()
            .with_max_queue_size(MAX_QUEUE)
            .with_max_export_batch_size(MAX_BATCH)
            .with_scheduled_delay(config.schedule_delay)
            .build();
        let mut processor =
            BatchSpanProcessor::builder(Watched::new(exporter, Arc::clone(&delivery)))
                .with_batch_config(batch)
                .build();
        processor.set_resource(
            &Resource::builder_empty()
                .with_service_name(config.service_name.clone())
                .build(),
        );
        let processor = Arc::new(processor);
        let nudge = start_flusher(&processor, &delivery).map_err(|e| failed(e.to_string()))?;
        let (queue, events) = mpsc::channel();
        let (finished, done) = mpsc::channel();
        let content = config.content;
        let watched = Arc::clone(&delivery);
        let worker = std::thread::Builder::new()
            .name("conclave-otlp".into())
            .spawn(move || {
                let sent_all = work(&events, &processor, nudge, &watched, content, shapes);
                let _ = finished.send(sent_all);
            })
            .map_err(|e| failed(e.to_string()))?;
        Ok(Exporter {
            endpoint: crate::secrets::scrub(&config.endpoint).into_owned(),
            bounds: config.bounds,
            queue: Mutex::new(Some(queue)),
            worker: Mutex::new(Some((worker, done))),
            delivery,
            next_run: AtomicU64::new(1),
        })
    }

    /// The exporter `config` asks for, if any, started. When it cannot
    /// start, the reason is said on stderr and the command is to exit 2
    /// (the setting is the user's to fix).
    pub(crate) fn start_or_say(
        config: Option<&OtlpConfig>,
        shapes: TraceShapes,
    ) -> Result<Option<Exporter>, Exit> {
        let started = config.map(|config| Exporter::start(config, shapes));
        started.transpose().map_err(|e| {
            crate::output::message(&e.to_string());
            Exit::BadInput
        })
    }

    /// A lossless viewer for one run: every event it is handed becomes
    /// part of that run's trace.
    pub fn observer(&self) -> Arc<dyn EventSink> {
        let queue = self
            .queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        Arc::new(RunObserver {
            run: self.next_run.fetch_add(1, Ordering::Relaxed),
            queue,
        })
    }

    /// End every trace still open (a run cut short ends where its events
    /// end), send what is left for at most the flush bound and stop; the
    /// warning to show when spans were not sent. Later calls do nothing.
    pub fn finish(&self) -> Option<String> {
        let deadline = Instant::now() + self.bounds.flush;
        let queue = self
            .queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(queue) = queue {
            let _ = queue.send(Message::Stop(deadline));
        }
        let worker = self
            .worker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let mut gave_up = false;
        if let Some((worker, done)) = worker {
            let wait = deadline.saturating_duration_since(Instant::now()) + FINISH_GRACE;
            match done.recv_timeout(wait) {
                Ok(sent_all) => {
                    gave_up = !sent_all;
                    let _ = worker.join();
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let _ = worker.join();
                }
                // The thread is left to end with the process: a request
                // it waits on has its own timeout.
                Err(mpsc::RecvTimeoutError::Timeout) => gave_up = true,
            }
        }
        self.warning(gave_up)
    }

    /// What the traces sent lack, to say after [`Exporter::finish`] (a
    /// fork's link to a parent whose recording cannot be read); each once.
    pub fn notes(&self) -> Vec<String> {
        self.delivery.take_asides()
    }

    /// What to say when spans were not sent: the first failure, or that
    /// the flush bound ran out, and how many of the spans made were sent.
    fn warning(&self, gave_up: bool) -> Option<String> {
        let (made, sent) = self.delivery.counts();
        let problem = self.delivery.take();
        if problem.is_none() && !gave_up && sent >= made {
            return None;
        }
        let why = match problem {
            Some(problem) => problem,
            None if sent < made && !gave_up => format!(
                "the collector did not keep up and {} were dropped from a queue of {MAX_QUEUE}",
                made - sent
            ),
            None => format!(
                "no answer within the flush bound of {} ({})",
                shown(self.bounds.flush),
                match self.bounds.set_by {
                    Some(name) => format!("set by {name}"),
                    None => "OTEL_EXPORTER_OTLP_TIMEOUT sets it, in milliseconds".to_string(),
                }
            ),
        };
        Some(format!(
            "conclave: could not send the trace to {}: {why}; {sent} of {made} spans sent (the run itself is unaffected)",
            self.endpoint
        ))
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// A bound as people write it: `1 s`, `250 ms`.
fn shown(bound: Duration) -> String {
    let ms = bound.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// The HTTP client for the exporter: `timeout` per request and no
/// redirect followed (a 3xx is a failed export). Built on a thread of its
/// own, as a blocking client may not be made inside an async runtime.
fn client(timeout: Duration) -> Result<reqwest::blocking::Client, String> {
    std::thread::Builder::new()
        .name("conclave-otlp-client".into())
        .spawn(move || {
            reqwest::blocking::Client::builder()
                .timeout(timeout)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| e.to_string())
        })
        .map_err(|e| e.to_string())?
        .join()
        .map_err(|_| "the HTTP client could not be built".to_string())?
}

/// The thread that sends a run's trace when the run ends, so that the
/// exporter thread goes on folding events meanwhile. A nudge while it is
/// sending is one already asked for; it stops when the nudges stop.
fn start_flusher(
    processor: &Arc<BatchSpanProcessor>,
    delivery: &Arc<Delivery>,
) -> std::io::Result<mpsc::SyncSender<()>> {
    let (nudge, nudges) = mpsc::sync_channel::<()>(1);
    let processor = Arc::clone(processor);
    let delivery = Arc::clone(delivery);
    std::thread::Builder::new()
        .name("conclave-otlp-flush".into())
        .spawn(move || {
            while nudges.recv().is_ok() {
                if !delivery.has_failed() && processor.force_flush().is_err() {
                    delivery.stall();
                }
            }
        })?;
    Ok(nudge)
}

/// One run's queue into the exporter thread.
#[derive(Debug)]
struct RunObserver {
    run: u64,
    queue: Option<mpsc::Sender<Message>>,
}

impl EventSink for RunObserver {
    fn accept(&self, event: Arc<Event>) {
        if let Some(queue) = &self.queue {
            // An error only means the exporter has finished.
            let _ = queue.send(Message::Event(self.run, event));
        }
    }
}

/// The exporter thread: events in, spans out, until every observer and
/// the exporter are gone; then every open trace ends and the processor
/// sends what is left, until the deadline [`Exporter::finish`] set;
/// whether it was all sent by then.
fn work(
    events: &mpsc::Receiver<Message>,
    processor: &BatchSpanProcessor,
    nudge: mpsc::SyncSender<()>,
    delivery: &Delivery,
    content: bool,
    shapes: TraceShapes,
) -> bool {
    let scope = InstrumentationScope::builder("conclave")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build();
    let mut traces: HashMap<u64, Trace> = HashMap::new();
    let mut unflushed = 0;
    // Before the queue is full, wait for the collector while it answers,
    // so that a large run loses nothing; never once it has not.
    let wait_for_collector = |unflushed: &mut usize| {
        *unflushed = 0;
        if !delivery.has_failed() && processor.force_flush().is_err() {
            delivery.stall();
        }
    };
    let hand = |trace: &mut Trace, spans: Vec<FinishedSpan>, unflushed: &mut usize| {
        for span in spans {
            processor.on_end(span_data(trace, &span, &scope));
            delivery.made_one();
            *unflushed += 1;
        }
        *unflushed >= FLUSH_AT
    };
    let mut deadline = None;
    while let Ok(message) = events.recv() {
        match message {
            Message::Event(run, event) => {
                let trace = traces
                    .entry(run)
                    .or_insert_with(|| Trace::of(TraceBuilder::new(content, shapes), &event));
                if let Some(why) = trace.unlinked.take() {
                    delivery.aside(format!(
                        "conclave: the trace goes without the link to the fork's parent: {why}"
                    ));
                }
                let spans = trace.builder.apply(&event);
                let full = hand(trace, spans, &mut unflushed);
                if full {
                    wait_for_collector(&mut unflushed);
                }
                if trace.builder.is_done() {
                    traces.remove(&run);
                    // Each run's trace leaves when the run ends, sent by
                    // the flusher while this thread goes on.
                    let _ = nudge.try_send(());
                }
            }
            Message::Stop(at) => {
                deadline = Some(at);
                break;
            }
        }
    }
    for trace in traces.values_mut() {
        let spans = trace.builder.finish();
        hand(trace, spans, &mut unflushed);
    }
    drop(nudge);
    let left = deadline.map_or(Duration::ZERO, |at| {
        at.saturating_duration_since(Instant::now())
    });
    processor.shutdown_with_timeout(left).is_ok()
}
