//! The OTLP exporter: one thread that folds each run's events into spans
//! and hands them to the SDK's batch processor, which sends them over
//! HTTP from a thread of its own. An observer's `accept` only queues: the
//! engine never waits for a span to be built or sent, and a collector that
//! is down costs a run nothing but the one warning [`Exporter::finish`]
//! returns.

use super::config::{OtlpConfig, Protocol};
use super::span::{AttrValue, FinishedSpan, SpanNo, SpanStatus};
use super::trace::TraceBuilder;
use super::watch::{Failure, Watched};
use crate::bus::{Event, EventSink};
use crate::exit::Exit;
use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{InstrumentationScope, KeyValue, Value};
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, IdGenerator, RandomIdGenerator, SpanData, SpanEvents,
    SpanLinks, SpanProcessor,
};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, UNIX_EPOCH};

/// Spans the processor may hold before the exporter thread makes it send
/// them; past this the SDK would drop spans, so a run of any size flushes
/// in steps instead.
const MAX_QUEUE: usize = 8192;
const FLUSH_AT: usize = MAX_QUEUE / 2;
const MAX_BATCH: usize = 512;

/// Why export cannot start.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the OTLP export to {endpoint}: {problem}")]
pub struct ExportError {
    endpoint: String,
    problem: String,
}

enum Message {
    Event(u64, Arc<Event>),
    /// Send everything finished so far, then answer.
    Flush(mpsc::Sender<()>),
    /// End every open trace, send what is left and stop, whoever still
    /// holds an observer (a run's bus may outlive its run).
    Stop,
}

/// Sends runs as traces. Dropping it finishes it.
#[derive(Debug)]
pub struct Exporter {
    endpoint: String,
    queue: Mutex<Option<mpsc::Sender<Message>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    failure: Arc<Failure>,
    next_run: AtomicU64,
}

impl Exporter {
    /// Start exporting as `config` says. Nothing is sent until a run's
    /// events arrive.
    pub fn start(config: &OtlpConfig) -> Result<Exporter, ExportError> {
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
            .with_endpoint(config.endpoint.clone())
            .with_protocol(protocol)
            .with_headers(headers)
            .build()
            .map_err(|e| failed(e.to_string()))?;
        let failure = Arc::new(Failure::default());
        let batch = BatchConfigBuilder::default()
            .with_max_queue_size(MAX_QUEUE)
            .with_max_export_batch_size(MAX_BATCH)
            .with_scheduled_delay(config.schedule_delay)
            .build();
        let mut processor =
            BatchSpanProcessor::builder(Watched::new(exporter, Arc::clone(&failure)))
                .with_batch_config(batch)
                .build();
        processor.set_resource(
            &Resource::builder_empty()
                .with_service_name(config.service_name.clone())
                .build(),
        );
        let (queue, events) = mpsc::channel();
        let content = config.content;
        let worker = std::thread::Builder::new()
            .name("conclave-otlp".into())
            .spawn(move || work(&events, &processor, content))
            .map_err(|e| failed(e.to_string()))?;
        Ok(Exporter {
            endpoint: crate::secrets::scrub(&config.endpoint).into_owned(),
            queue: Mutex::new(Some(queue)),
            worker: Mutex::new(Some(worker)),
            failure,
            next_run: AtomicU64::new(1),
        })
    }

    /// The exporter `config` asks for, if any, started. When it cannot
    /// start, the reason is said on stderr and the command is to exit 2
    /// (the setting is the user's to fix).
    pub fn start_or_say(config: Option<&OtlpConfig>) -> Result<Option<Exporter>, Exit> {
        config.map(Exporter::start).transpose().map_err(|e| {
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

    /// Send every span finished so far and wait until it is sent (or
    /// failed).
    pub fn flush(&self) {
        let (done, wait) = mpsc::channel();
        let sent = self
            .queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .is_some_and(|queue| queue.send(Message::Flush(done)).is_ok());
        if sent {
            let _ = wait.recv();
        }
    }

    /// End every trace still open (a run cut short ends where its events
    /// end), send what is left and stop; the warning to show when any
    /// export failed. Later calls do nothing.
    pub fn finish(&self) -> Option<String> {
        let queue = self
            .queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(queue) = queue {
            let _ = queue.send(Message::Stop);
        }
        let worker = self
            .worker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(worker) = worker {
            let _ = worker.join();
        }
        self.failure.take().map(|problem| {
            format!(
                "conclave: could not send the trace to {}: {problem} (the run itself is unaffected)",
                self.endpoint
            )
        })
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.finish();
    }
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

/// One run's trace: its builder and the ids its spans go out with.
struct Trace {
    builder: TraceBuilder,
    trace_id: TraceId,
    ids: HashMap<SpanNo, SpanId>,
}

/// The exporter thread: events in, spans out, until every observer and
/// the exporter are gone; then every open trace ends and the processor
/// sends what is left.
fn work(events: &mpsc::Receiver<Message>, processor: &BatchSpanProcessor, content: bool) {
    let ids = RandomIdGenerator::default();
    let scope = InstrumentationScope::builder("conclave")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build();
    let mut traces: HashMap<u64, Trace> = HashMap::new();
    let mut unflushed = 0;
    let hand = |trace: &mut Trace, spans: Vec<FinishedSpan>, unflushed: &mut usize| {
        for span in spans {
            processor.on_end(span_data(trace, &span, &ids, &scope));
            *unflushed += 1;
        }
        if *unflushed >= FLUSH_AT {
            let _ = processor.force_flush();
            *unflushed = 0;
        }
    };
    while let Ok(message) = events.recv() {
        match message {
            Message::Event(run, event) => {
                let trace = traces.entry(run).or_insert_with(|| Trace {
                    builder: TraceBuilder::new(content),
                    trace_id: ids.new_trace_id(),
                    ids: HashMap::new(),
                });
                let spans = trace.builder.apply(&event);
                hand(trace, spans, &mut unflushed);
                if trace.builder.is_done() {
                    traces.remove(&run);
                    // Each run's trace leaves when the run ends.
                    let _ = processor.force_flush();
                    unflushed = 0;
                }
            }
            Message::Flush(done) => {
                let _ = processor.force_flush();
                unflushed = 0;
                let _ = done.send(());
            }
            Message::Stop => break,
        }
    }
    for trace in traces.values_mut() {
        let spans = trace.builder.finish();
        hand(trace, spans, &mut unflushed);
    }
    let _ = processor.shutdown_with_timeout(Duration::from_secs(30));
}

/// A finished span as the SDK exports it, every text scrubbed.
fn span_data(
    trace: &mut Trace,
    span: &FinishedSpan,
    ids: &RandomIdGenerator,
    scope: &InstrumentationScope,
) -> SpanData {
    let mut id_of = |no: SpanNo| *trace.ids.entry(no).or_insert_with(|| ids.new_span_id());
    let span_id = id_of(span.no);
    let parent_span_id = span.parent.map_or(SpanId::INVALID, &mut id_of);
    let mut events = SpanEvents::default();
    for event in &span.events {
        events.events.push(opentelemetry::trace::Event::new(
            event.name,
            at(event.at_ms),
            attributes(&event.attrs.0),
            0,
        ));
    }
    SpanData {
        span_context: SpanContext::new(
            trace.trace_id,
            span_id,
            TraceFlags::SAMPLED,
            false,
            TraceState::default(),
        ),
        parent_span_id,
        parent_span_is_remote: false,
        span_kind: if span.name.starts_with(super::names::OP_CHAT) {
            SpanKind::Client
        } else {
            SpanKind::Internal
        },
        name: Cow::Owned(crate::secrets::scrub(&span.name).into_owned()),
        start_time: at(span.start_ms),
        end_time: at(span.end_ms),
        attributes: attributes(&span.attrs.0),
        dropped_attributes_count: 0,
        events,
        links: SpanLinks::default(),
        status: match &span.status {
            SpanStatus::Unset => Status::Unset,
            SpanStatus::Error(words) => Status::error(crate::secrets::scrub(words).into_owned()),
        },
        instrumentation_scope: scope.clone(),
    }
}

fn at(ms: u64) -> std::time::SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

fn attributes(attrs: &[(&'static str, AttrValue)]) -> Vec<KeyValue> {
    attrs
        .iter()
        .map(|(key, value)| {
            let text = |s: &str| crate::secrets::scrub(s).into_owned();
            let value = match value {
                AttrValue::Str(s) => Value::from(text(s)),
                AttrValue::Int(i) => Value::I64(*i),
                AttrValue::Float(x) => Value::F64(*x),
                AttrValue::Bool(b) => Value::Bool(*b),
                AttrValue::List(items) => Value::Array(opentelemetry::Array::String(
                    items.iter().map(|s| text(s).into()).collect(),
                )),
            };
            KeyValue::new(*key, value)
        })
        .collect()
}
