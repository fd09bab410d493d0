//! The arguments of `conclave probe`: which endpoint and model to probe,
//! how long each request may take, and where to keep the profile.

use super::parse_base_url;
use clap::{Args, ValueEnum};
use conclave::provider::openai::probe::ProbeOptions;
use conclave::scenario::knobs::parse_call_timeout;
use std::path::PathBuf;

/// What `conclave probe` is given.
#[derive(Args, Debug)]
pub(crate) struct ProbeCommand {
    /// The kind of endpoint: an OpenAI-compatible one (key from
    /// OPENAI_API_KEY, which is never printed).
    #[arg(long, value_enum, default_value = "openai")]
    pub(crate) provider: ProbeProvider,
    /// The endpoint's base URL (over OPENAI_BASE_URL), e.g.
    /// http://localhost:8089/v1.
    #[arg(long, value_name = "URL", value_parser = parse_base_url)]
    pub(crate) base_url: Option<String>,
    /// The model name sent to the endpoint (over OPENAI_MODEL).
    #[arg(long, value_name = "M")]
    pub(crate) model: Option<String>,
    /// How long each request may take, in seconds (over
    /// OPENAI_TIMEOUT_SECONDS; default 60).
    #[arg(long, value_name = "SECONDS", value_parser = parse_call_timeout, allow_negative_numbers = true)]
    pub(crate) call_timeout: Option<f64>,
    /// Keep what the endpoint accepts as a profile in FILE (written over),
    /// for run --endpoint-profile FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) write: Option<PathBuf>,
}

/// The endpoints a probe speaks to.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ProbeProvider {
    Openai,
}

impl ProbeCommand {
    pub(crate) fn options(self) -> ProbeOptions {
        let ProbeProvider::Openai = self.provider;
        ProbeOptions {
            base_url: self.base_url,
            model: self.model,
            call_timeout: self.call_timeout,
            write: self.write,
        }
    }
}
