//! How an endpoint is asked, over the scenario's `provider` fields of the
//! same names: each flag parsed and checked as the scenario's field is, so
//! that a wrong value exits 2 naming the flag before anything runs.

use clap::Args;
use conclave::scenario::OutputMode;
use conclave::scenario::knobs::{
    ProviderKnobs, parse_call_timeout, parse_max_output_tokens, parse_output_mode,
    parse_output_retries, parse_reasoning_effort, parse_temperature,
};

/// `--temperature X|none` as parsed: `None` sends none.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Temperature(Option<f64>);

fn temperature(text: &str) -> Result<Temperature, String> {
    parse_temperature(text).map(Temperature)
}

/// The numbers take a minus sign as a value, so that `--call-timeout -1`
/// is refused naming the flag, not read as an unknown option.
#[derive(Args, Debug, Default)]
pub(crate) struct KnobArgs {
    /// How a request asks for an answer that keeps its contract: auto,
    /// native, tool, json or prompted (over the scenario's provider.output).
    #[arg(long, visible_alias = "output-mode", value_name = "MODE", value_parser = parse_output_mode)]
    pub(crate) output: Option<OutputMode>,
    /// How many times (0 to 10) an answer that breaks its contract is asked
    /// for again (over provider.output_retries).
    #[arg(long, value_name = "N", value_parser = parse_output_retries, allow_negative_numbers = true)]
    pub(crate) output_retries: Option<u32>,
    /// The sampling temperature, 0 to 2, or none to send none (over
    /// provider.temperature).
    #[arg(long, value_name = "X|none", value_parser = temperature, allow_negative_numbers = true)]
    pub(crate) temperature: Option<Temperature>,
    /// The most tokens an answer may take, sent as max_completion_tokens
    /// (over provider.max_output_tokens).
    #[arg(long, value_name = "N", value_parser = parse_max_output_tokens, allow_negative_numbers = true)]
    pub(crate) max_output_tokens: Option<u64>,
    /// Passed through as reasoning_effort, e.g. low (over
    /// provider.reasoning_effort).
    #[arg(long, value_name = "E", value_parser = parse_reasoning_effort)]
    pub(crate) reasoning_effort: Option<String>,
    /// How long one model call may take, in seconds (over
    /// provider.timeout_seconds and OPENAI_TIMEOUT_SECONDS).
    #[arg(long, value_name = "SECONDS", value_parser = parse_call_timeout, allow_negative_numbers = true)]
    pub(crate) call_timeout: Option<f64>,
}

impl KnobArgs {
    pub(crate) fn knobs(self) -> ProviderKnobs {
        ProviderKnobs {
            output: self.output,
            output_retries: self.output_retries,
            temperature: self.temperature.map(|Temperature(t)| t),
            max_output_tokens: self.max_output_tokens,
            reasoning_effort: self.reasoning_effort,
            timeout_seconds: self.call_timeout,
        }
    }
}
