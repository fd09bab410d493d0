//! The `provider` fields the command line sets over a scenario's own:
//! `--output`, `--output-retries`, `--temperature`, `--max-output-tokens`,
//! `--reasoning-effort` and `--call-timeout`, so that a first try against
//! an endpoint needs no edited scenario. Each is parsed and checked as the
//! scenario's field is (the same range, the same words), so that a wrong
//! one is refused as it is parsed, naming the flag.

use super::checks::MAX_OUTPUT_RETRIES;
use super::provider_spec::{OutputMode, ProviderSpec, given};
use serde::{Deserialize, Serialize};

/// The highest temperature a scenario or `--temperature` may give.
pub const MAX_TEMPERATURE: f64 = 2.0;

/// What the command line sets over the scenario's `provider` section;
/// `None` leaves the scenario's field as it is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProviderKnobs {
    /// `--output MODE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputMode>,
    /// `--output-retries N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_retries: Option<u32>,
    /// `--temperature X|none`: `Some(None)` sends none.
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub temperature: Option<Option<f64>>,
    /// `--max-output-tokens N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// `--reasoning-effort E`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// `--call-timeout SECONDS`: the scenario's `timeout_seconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
}

impl ProviderKnobs {
    /// Whether no knob is set.
    pub fn is_empty(&self) -> bool {
        *self == ProviderKnobs::default()
    }

    /// `spec` with every knob that is set in place of its field.
    pub(crate) fn over(&self, spec: &ProviderSpec) -> ProviderSpec {
        let mut spec = spec.clone();
        if let Some(output) = self.output {
            spec.output = Some(output);
        }
        if let Some(retries) = self.output_retries {
            spec.output_retries = Some(retries);
        }
        if let Some(temperature) = self.temperature {
            spec.temperature = Some(temperature);
        }
        if let Some(limit) = self.max_output_tokens {
            spec.max_output_tokens = Some(limit);
        }
        if let Some(effort) = &self.reasoning_effort {
            spec.reasoning_effort = Some(effort.clone());
        }
        if let Some(seconds) = self.timeout_seconds {
            spec.timeout_seconds = Some(seconds);
        }
        spec
    }
}

/// `--output MODE`: one of the modes `provider.output` takes.
pub fn parse_output_mode(text: &str) -> Result<OutputMode, String> {
    serde_json::from_value(text.into())
        .map_err(|_| format!("expected auto, native, tool, json or prompted, found {text:?}"))
}

/// `--output-retries N`: 0 to 10, as `output_retries`.
pub fn parse_output_retries(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n <= MAX_OUTPUT_RETRIES => Ok(n),
        _ => Err(format!(
            "expected a number of repairs from 0 to {MAX_OUTPUT_RETRIES}, found {text:?}"
        )),
    }
}

/// `--temperature X|none`: a number from 0 to 2, or `none` to send none
/// (the scenario's `null`).
pub fn parse_temperature(text: &str) -> Result<Option<f64>, String> {
    if text == "none" {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(t) if (0.0..=MAX_TEMPERATURE).contains(&t) => Ok(Some(t)),
        _ => Err(format!(
            "expected a temperature from 0 to 2, or none to send none, found {text:?}"
        )),
    }
}

/// `--max-output-tokens N`: 1 or more, as `max_output_tokens`.
pub fn parse_max_output_tokens(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "expected a whole number of tokens, 1 or more, found {text:?}"
        )),
    }
}

/// `--reasoning-effort E`: any word the endpoint takes, not blank.
pub fn parse_reasoning_effort(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err(format!(
            "expected a reasoning effort such as low, medium or high, found {text:?}"
        ));
    }
    Ok(text.to_string())
}

/// `--call-timeout SECONDS`: a duration as `timeout_seconds` is one:
/// finite, 0 or more, at most a week (an endpoint refuses 0 when the run
/// starts, as it refuses the scenario's 0).
pub fn parse_call_timeout(text: &str) -> Result<f64, String> {
    let seconds = text
        .parse::<f64>()
        .map_err(|_| format!("expected a number of seconds such as 60, found {text:?}"))?;
    crate::duration::from_seconds(seconds)
        .map(|_| seconds)
        .map_err(|e| format!("expected {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_knob_replaces_its_field_and_leaves_the_rest() {
        let spec: ProviderSpec = serde_json::from_value(json!({
            "kind": "openai", "model": "m", "temperature": 0.3, "output": "json",
            "output_retries": 2, "timeout_seconds": 30
        }))
        .unwrap();
        assert_eq!(ProviderKnobs::default().over(&spec), spec);
        let knobs = ProviderKnobs {
            output: Some(OutputMode::Tool),
            temperature: Some(None),
            max_output_tokens: Some(400),
            reasoning_effort: Some("low".into()),
            timeout_seconds: Some(120.0),
            ..ProviderKnobs::default()
        };
        let over = knobs.over(&spec);
        assert_eq!(over.output, Some(OutputMode::Tool));
        assert_eq!(over.temperature, Some(None), "none, not the scenario's 0.3");
        assert_eq!(over.output_retries, Some(2), "not set: the scenario's");
        assert_eq!(over.max_output_tokens, Some(400));
        assert_eq!(over.reasoning_effort.as_deref(), Some("low"));
        assert_eq!(over.timeout_seconds, Some(120.0));
        assert_eq!(over.model.as_deref(), Some("m"));
    }

    #[test]
    fn knobs_travel_as_json_with_none_told_from_unset() {
        for knobs in [
            ProviderKnobs::default(),
            ProviderKnobs {
                temperature: Some(None),
                ..ProviderKnobs::default()
            },
            ProviderKnobs {
                temperature: Some(Some(0.7)),
                output: Some(OutputMode::Prompted),
                output_retries: Some(0),
                timeout_seconds: Some(1.5),
                ..ProviderKnobs::default()
            },
        ] {
            let text = serde_json::to_string(&knobs).unwrap();
            assert_eq!(serde_json::from_str::<ProviderKnobs>(&text).unwrap(), knobs);
        }
        assert_eq!(
            serde_json::to_string(&ProviderKnobs::default()).unwrap(),
            "{}"
        );
    }

    #[test]
    fn values_are_checked_as_the_scenarios_are() {
        assert_eq!(parse_output_mode("tool"), Ok(OutputMode::Tool));
        assert!(parse_output_mode("tools").unwrap_err().contains("prompted"));
        assert_eq!(parse_output_retries("10"), Ok(10));
        assert!(parse_output_retries("11").is_err());
        assert!(parse_output_retries("-1").is_err());
        assert_eq!(parse_temperature("none"), Ok(None));
        assert_eq!(parse_temperature("2"), Ok(Some(2.0)));
        for wrong in ["2.1", "-0.1", "NaN", "inf", "warm", ""] {
            assert!(parse_temperature(wrong).is_err(), "{wrong}");
        }
        assert_eq!(parse_max_output_tokens("1"), Ok(1));
        assert!(parse_max_output_tokens("0").is_err());
        assert!(parse_reasoning_effort(" ").is_err());
        assert_eq!(parse_call_timeout("0"), Ok(0.0));
        assert_eq!(parse_call_timeout("90.5"), Ok(90.5));
        for wrong in ["-1", "NaN", "inf", "1e9", "soon"] {
            assert!(parse_call_timeout(wrong).is_err(), "{wrong}");
        }
    }
}
