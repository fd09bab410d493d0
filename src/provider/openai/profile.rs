//! An endpoint's profile, as `conclave probe --write FILE` keeps it and
//! `run --endpoint-profile FILE` starts from: the output mode `auto`
//! settles on and the parameters the endpoint refuses, each with the
//! endpoint's words. A run started from it asks in the settled shape from
//! its first request, so it pays no fallback the probe already learned.
//! It holds no key and no header: only the base URL (without a user or a
//! password), the model and what the endpoint said.

use super::{OpenAiConfig, OpenAiProvider};
use crate::provider::output::{Mode, TokenLimit};
use crate::scenario::OutputMode;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The version of the profile's format this Conclave writes and reads.
pub(super) const PROFILE_VERSION: u32 = 1;

/// What an endpoint accepts, as a probe found it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointProfile {
    /// The format's version: 1.
    pub endpoint_profile: u32,
    /// The endpoint probed.
    pub base_url: String,
    /// The model probed.
    pub model: String,
    /// The mode `auto` settles on: native, tool, json or prompted.
    pub output: OutputMode,
    /// The parameters the endpoint refused (or, for the token limit's
    /// name, ignored), each with its words.
    #[serde(default)]
    pub refused: BTreeMap<Refusable, String>,
    /// Whether a streamed answer brought its usage, as the probe found:
    /// `false` when none came (llama-cpp-python's server), so a run's
    /// tokens are estimated, and says so; absent when the probe could not
    /// tell (a profile written before it was kept, a stream refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_usage: Option<bool>,
}

/// A part of a request an endpoint may refuse, as a profile names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusable {
    /// `response_format: json_schema` (the `native` mode).
    JsonSchema,
    /// `tools` and `tool_choice` (the `tool` mode).
    Tools,
    /// `response_format: json_object` (the `json` mode).
    ResponseFormat,
    Temperature,
    /// The token limit under this name, refused or taken and ignored
    /// (`max_tokens` is sent instead).
    MaxCompletionTokens,
    /// `stream_options` with `include_usage` (answers are asked whole).
    StreamOptions,
}

impl Refusable {
    pub fn as_str(self) -> &'static str {
        match self {
            Refusable::JsonSchema => "json_schema",
            Refusable::Tools => "tools",
            Refusable::ResponseFormat => "response_format",
            Refusable::Temperature => "temperature",
            Refusable::MaxCompletionTokens => "max_completion_tokens",
            Refusable::StreamOptions => "stream_options",
        }
    }
}

impl EndpointProfile {
    /// The profile in `path`, checked; else what is wrong with it, naming
    /// the file, the place and what was expected.
    pub fn load(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the endpoint profile {shown}: {e}"))?;
        let profile: EndpointProfile = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{shown}: {}; expected an endpoint profile as conclave probe --write writes it",
                crate::sanitize::clean(&e.to_string())
            )
        })?;
        if profile.endpoint_profile != PROFILE_VERSION {
            return Err(format!(
                "{shown}: endpoint_profile: expected {PROFILE_VERSION}, the version this Conclave reads; found {}",
                profile.endpoint_profile
            ));
        }
        if profile.output == OutputMode::Auto {
            return Err(format!(
                "{shown}: output: expected the mode auto settles on (native, tool, json or prompted); found auto"
            ));
        }
        Ok(profile)
    }

    /// The profile as the file holds it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    pub(crate) fn refuses(&self, what: Refusable) -> bool {
        self.refused.contains_key(&what)
    }

    /// The settled mode as the policy names it.
    fn mode(&self) -> Mode {
        match self.output {
            OutputMode::Auto | OutputMode::Native => Mode::Native,
            OutputMode::Tool => Mode::Tool,
            OutputMode::Json => Mode::Json,
            OutputMode::Prompted => Mode::Prompted,
        }
    }

    /// A run's settings as the profile has them: answers asked whole when
    /// the endpoint refuses `stream_options`.
    pub(crate) fn shape(&self, config: &mut OpenAiConfig) {
        if self.refuses(Refusable::StreamOptions) {
            config.stream = false;
        }
    }

    /// A run's provider, asking from its first request as the profile has
    /// it.
    pub(crate) fn start(&self, provider: &OpenAiProvider) {
        let limit = if self.refuses(Refusable::MaxCompletionTokens) {
            TokenLimit::MaxTokens
        } else {
            TokenLimit::MaxCompletionTokens
        };
        provider
            .policy
            .start_from(self.mode(), self.refuses(Refusable::Temperature), limit);
    }
}

/// The mode as the scenario's `output` names it.
pub(super) fn output_mode(mode: Mode) -> OutputMode {
    match mode {
        Mode::Native => OutputMode::Native,
        Mode::Tool => OutputMode::Tool,
        Mode::Json => OutputMode::Json,
        Mode::Prompted => OutputMode::Prompted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<EndpointProfile, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.json");
        std::fs::write(&path, text).unwrap();
        EndpointProfile::load(&path)
    }

    #[test]
    fn a_profile_reads_back_as_written() {
        let profile = EndpointProfile {
            endpoint_profile: 1,
            base_url: "http://127.0.0.1:8089/v1".into(),
            model: "smollm2".into(),
            output: OutputMode::Tool,
            refused: BTreeMap::from([(Refusable::JsonSchema, "Input should be 'text'".into())]),
            stream_usage: Some(false),
        };
        assert!(profile.to_json().contains("\"stream_usage\": false"));
        assert_eq!(load(&profile.to_json()), Ok(profile.clone()));
        // A profile written before the stream's usage was kept reads as
        // one that cannot tell.
        let older = profile
            .to_json()
            .replace(",\n  \"stream_usage\": false", "");
        assert_eq!(load(&older).map(|p| p.stream_usage), Ok(None), "{older}");
    }

    #[test]
    fn a_wrong_profile_names_the_file_the_place_and_what_was_expected() {
        let base = r#""base_url": "http://h/v1", "model": "m""#;
        for (text, says) in [
            ("{", "EOF while parsing"),
            (
                &format!(r#"{{"endpoint_profile": 1, {base}, "output": "tools"}}"#) as &str,
                "unknown variant `tools`, expected one of",
            ),
            (
                &format!(r#"{{"endpoint_profile": 2, {base}, "output": "tool"}}"#),
                "endpoint_profile: expected 1",
            ),
            (
                &format!(r#"{{"endpoint_profile": 1, {base}, "output": "auto"}}"#),
                "output: expected the mode auto settles on",
            ),
            (
                &format!(
                    r#"{{"endpoint_profile": 1, {base}, "output": "tool", "refused": {{"top_p": ""}}}}"#
                ),
                "unknown variant `top_p`",
            ),
        ] {
            let error = load(text).unwrap_err();
            assert!(error.contains("p.json") && error.contains(says), "{error}");
        }
        assert!(
            load(r#"{"endpoint_profile": 1}"#)
                .unwrap_err()
                .contains("line 1 column")
        );
    }
}
