//! Runs as OpenTelemetry traces over OTLP/HTTP, following the GenAI
//! semantic conventions. The exporter is a lossless viewer of the bus like
//! the recorder: it queues events and never makes the engine wait. It
//! knows nothing of the dashboard; the mapping from events to spans
//! (`trace`) is apart from the sending (`export`). What a pattern's events
//! make of the trace lives with the pattern, which the telemetry never
//! imports: the patterns implement the trace's `Shapes` and the layer
//! above both hands them to the exporter ([`TraceShapes`]).

mod bounds;
mod config;
mod config_error;
mod export;
mod ids;
pub(crate) mod names;
mod sdk_span;
mod span;
mod trace;
mod watch;

pub(crate) use span::{Attrs, SpanNo};
pub use trace::TraceShapes;
pub(crate) use trace::{ROOT, Shapes, TraceSpans, wire};

pub use bounds::Bounds;
pub(crate) use config::{HEADERS, TRACES_HEADERS, parse_headers};
pub use config::{OtlpChoice, OtlpConfig, Protocol};
pub use config_error::OtlpConfigError;
pub use export::{ExportError, Exporter};
