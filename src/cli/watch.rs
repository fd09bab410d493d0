//! `conclave watch`'s arguments: where to listen for OTLP traces, how
//! runs settle and how many are kept, where they are recorded, and
//! whether they are printed (`--headless`) or drawn.

use super::parse::{parse_base_url, parse_dollars, parse_flag, pricing_file};
use clap::Args;
use conclave::scenario::PriceTable;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(crate) struct WatchCommand {
    /// The HTTP address OTLP/HTTP senders post to (/v1/traces). Beyond
    /// loopback it needs --token-env.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:4318")]
    pub(crate) listen: SocketAddr,
    /// The gRPC address OTLP/gRPC senders export to.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:4317")]
    pub(crate) grpc: SocketAddr,
    /// Do not listen for gRPC.
    #[arg(long)]
    pub(crate) no_grpc: bool,
    /// The environment variable holding the bearer token every sender
    /// must present (needed to listen beyond loopback).
    #[arg(long, value_name = "VAR")]
    pub(crate) token_env: Option<String>,
    /// A run is finished when its root span has arrived and nothing came
    /// for this many milliseconds.
    #[arg(long, value_name = "MS", default_value_t = conclave::watch::runs::DEFAULT_SETTLE_MS)]
    pub(crate) settle_ms: u64,
    /// A run whose top span has not come ends as incomplete (recorded,
    /// and printed with "incomplete": "idle") after this many seconds
    /// without a span.
    #[arg(long, value_name = "SECS", default_value_t = conclave::watch::runs::DEFAULT_IDLE_SECS,
          value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub(crate) idle_secs: u64,
    /// Exit after this many runs have finished.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) runs: Option<u64>,
    /// Record every finished run here, one JSONL file per run (the folder
    /// is made when missing).
    #[arg(long, value_name = "DIR")]
    pub(crate) record_dir: Option<PathBuf>,
    /// Print one JSON line per finished run on stdout instead of opening
    /// the dashboard.
    #[arg(long)]
    pub(crate) headless: bool,
    #[command(flatten)]
    pub(crate) look: crate::cli::LookArgs,
    /// Send every batch received, unchanged, on to this OTLP/HTTP
    /// collector too (repeat for more than one).
    #[arg(long, value_name = "URL")]
    pub(crate) forward: Vec<String>,
    /// Model prices (USD per million tokens) over the compiled-in ones,
    /// for model calls whose spans carry no cost.
    #[arg(long, value_name = "FILE", value_parser = pricing_file)]
    pub(crate) pricing: Option<PriceTable>,
    /// A steered run's flag over its hook's default (repeatable;
    /// docs/steer.md).
    #[arg(long = "flag", value_name = "NAME=on|off", value_parser = parse_flag)]
    pub(crate) flags: Vec<(String, bool)>,
    /// Approve this tool's calls at once when a hook asks (repeatable).
    #[arg(long, value_name = "TOOL")]
    pub(crate) approve: Vec<String>,
    /// Reject this tool's calls at once when a hook asks (repeatable).
    #[arg(long, value_name = "TOOL")]
    pub(crate) reject: Vec<String>,
    /// Serve an OpenAI-compatible model endpoint at
    /// /gateway/<run>/v1/ on the HTTP listener, calling this upstream
    /// (its base URL, with /v1; docs/gateway.md).
    #[arg(long, value_name = "URL", value_parser = parse_base_url)]
    pub(crate) upstream: Option<String>,
    /// The environment variable holding the upstream's key.
    #[arg(
        long,
        value_name = "VAR",
        default_value = "OPENAI_API_KEY",
        requires = "upstream"
    )]
    pub(crate) upstream_key_env: String,
    /// Each run's budget of tokens (input and output) through the
    /// endpoint; past it, its calls are refused with a 429 naming it.
    #[arg(long, value_name = "N", requires = "upstream")]
    pub(crate) max_tokens: Option<u64>,
    /// Each run's budget of US dollars through the endpoint.
    #[arg(long, value_name = "USD", value_parser = parse_dollars, requires = "upstream")]
    pub(crate) max_cost: Option<f64>,
    /// Each run's budget of model calls through the endpoint.
    #[arg(long, value_name = "N", requires = "upstream")]
    pub(crate) max_calls: Option<u64>,
    #[arg(long = "break", value_name = "NAME", help = conclave::watch::steer::protocol::BREAK_ARG_HELP)]
    pub(crate) breaks: Vec<String>,
}

impl WatchCommand {
    /// The watch's settings, as the library takes them.
    pub(crate) fn settings(self) -> conclave::watch::start::WatchSettings {
        use conclave::watch::receive::ReceiveConfig;
        let receive = ReceiveConfig {
            listen: self.listen,
            grpc: (!self.no_grpc).then_some(self.grpc),
            token_env: self.token_env,
            forward: self.forward,
            ..ReceiveConfig::default()
        };
        let limits = conclave::watch::runs::Limits {
            settle: std::time::Duration::from_millis(self.settle_ms),
            idle: std::time::Duration::from_secs(self.idle_secs),
            ..conclave::watch::runs::Limits::default()
        };
        let policy = conclave::watch::steer::Policy {
            flags: self.flags.into_iter().collect(),
            approve: self.approve,
            reject: self.reject,
            breaks: self.breaks.into_iter().collect(),
            person_present: !self.headless,
        };
        let limits_steer = conclave::watch::steer::Limits::default();
        let steering = conclave::watch::steer::Steering::new(limits_steer, policy);
        let gateway = self
            .upstream
            .map(|upstream| conclave::watch::start::EndpointConfig {
                upstream,
                key_env: self.upstream_key_env,
                budgets: conclave::watch::start::Budgets {
                    max_tokens: self.max_tokens,
                    max_cost_usd: self.max_cost,
                    max_calls: self.max_calls,
                },
                pricing: self.pricing.clone(),
            });
        conclave::watch::start::WatchSettings {
            gateway,
            receive,
            options: conclave::watch::consume::WatchOptions {
                limits,
                record_dir: self.record_dir,
                runs: self.runs,
                prices: self.pricing,
                close_finished: self.headless,
                steering: Some(steering),
                // The dashboard draws each run from the events the watch
                // tells of it; `--headless` prints summaries alone.
                tell: !self.headless,
            },
        }
    }
}
