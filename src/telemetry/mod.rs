//! Runs as OpenTelemetry traces over OTLP/HTTP, following the GenAI
//! semantic conventions. The exporter is a lossless viewer of the bus like
//! the recorder: it queues events and never makes the engine wait. It
//! knows nothing of the dashboard; the mapping from events to spans
//! (`trace`) is apart from the sending (`export`).

mod bounds;
mod config;
mod config_error;
mod export;
pub(crate) mod names;
mod sdk_span;
mod span;
mod trace;
mod watch;

pub use bounds::Bounds;
pub(crate) use config::{HEADERS, TRACES_HEADERS, parse_headers};
pub use config::{OtlpChoice, OtlpConfig, Protocol};
pub use config_error::OtlpConfigError;
pub use export::{ExportError, Exporter};
