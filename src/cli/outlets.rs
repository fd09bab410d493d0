//! Where runs go besides the screen and stdout: `--otlp` (traces to an
//! OpenTelemetry collector) and `--nats` (events and jobs through a NATS
//! server), shared by every command that runs scenarios.

use clap::Args;
use conclave::exit::Exit;
use conclave::output;
use conclave::telemetry::{OtlpChoice, OtlpConfig};

/// Sending runs as OpenTelemetry traces; shared by every command that
/// runs scenarios.
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct OtlpArgs {
    /// Send every run as an OpenTelemetry trace over OTLP/HTTP to the collector at URL
    /// (its base URL, e.g. http://localhost:4318; without URL OTEL_EXPORTER_OTLP_ENDPOINT
    /// or http://localhost:4318). OTEL_EXPORTER_OTLP_PROTOCOL=http/json sends JSON;
    /// OTEL_EXPORTER_OTLP_HEADERS and OTEL_SERVICE_NAME are read too.
    #[arg(long, value_name = "URL", num_args = 0..=1)]
    pub(crate) otlp: Option<Option<String>>,
    /// Put the goal and the model outputs in the trace too (secrets scrubbed).
    #[arg(long)]
    pub(crate) otlp_content: bool,
}

impl OtlpArgs {
    /// The export these options and the environment ask for, if any; a
    /// setting that cannot be used is the user's to fix.
    pub(crate) fn config(&self) -> Result<Option<OtlpConfig>, Exit> {
        let choice = OtlpChoice {
            flag: self.otlp.clone(),
            content: self.otlp_content,
        };
        OtlpConfig::resolve(&choice, |name| std::env::var(name).ok()).map_err(|e| {
            output::message(&format!("conclave: {e}"));
            Exit::BadInput
        })
    }
}

/// The NATS server (with JetStream) that carries jobs and events between
/// machines.
#[derive(Args, Debug, Default)]
pub(crate) struct NatsArgs {
    /// The NATS server with JetStream, e.g. nats://127.0.0.1:4222 (several
    /// separated by commas).
    #[arg(long, value_name = "URL", value_parser = parse_nats_url)]
    pub(crate) nats: Option<String>,
}

/// `--nats` is checked as it is parsed: a URL that names no NATS server is
/// refused (exit 2) before anything connects.
pub(crate) fn parse_nats_url(text: &str) -> Result<String, String> {
    conclave::nats::check_url(text)
        .map(|_| text.to_string())
        .map_err(|e| e.to_string())
}

/// Publishing runs to NATS, for `conclave attach` on any machine.
#[derive(Args, Debug, Default)]
pub(crate) struct PublishArgs {
    #[command(flatten)]
    pub(crate) server: NatsArgs,
    /// How long the server keeps the events of every engine's runs (the
    /// stream CONCLAVE_EVENTS), e.g. 90s, 30m, 12h or 7d; a new stream keeps
    /// them 24h, an existing one keeps its limit.
    #[arg(long, value_name = "AGE", value_parser = conclave::nats::limits::parse_max_age, requires = "nats")]
    pub(crate) nats_max_age: Option<std::time::Duration>,
    /// How many bytes of events the server keeps, the oldest dropped first,
    /// e.g. 512MiB or 2GiB; a new stream keeps 1GiB, an existing one keeps
    /// its limit.
    #[arg(long, value_name = "SIZE", value_parser = conclave::nats::limits::parse_max_bytes, requires = "nats")]
    pub(crate) nats_max_bytes: Option<u64>,
}

impl PublishArgs {
    /// Where the runs are published, if anywhere.
    pub(crate) fn to(&self) -> Option<conclave::nats::publish::PublishTo> {
        Some(conclave::nats::publish::PublishTo {
            url: self.server.nats.clone()?,
            limits: conclave::nats::limits::EventLimits {
                max_age: self.nats_max_age,
                max_bytes: self.nats_max_bytes,
            },
        })
    }
}
