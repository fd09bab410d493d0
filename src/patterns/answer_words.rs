//! What was wrong with a model's answer, in words the model can act on
//! when it is asked again (`missing key "stance"`), from the stop reason
//! its pattern's contract gave it. Shared by every pattern's repair check.

use crate::stop::{PatternReason, StopFacts};
use serde_json::Value;

/// The problem of `raw`, an answer read as JSON, that its contract
/// refused with `reason`; `required` are the contract's keys.
pub(crate) fn problem(reason: &impl PatternReason, raw: &Value, required: &[&str]) -> String {
    match raw {
        // How 000 and 001 read text that is not JSON.
        Value::Object(fields)
            if fields.contains_key("raw")
                && (fields.get("invalid") == Some(&Value::Bool(true))
                    || fields.get("kind") == Some(&Value::from("invalid"))) =>
        {
            "the answer is not JSON: answer with one JSON object".to_string()
        }
        Value::Object(fields) => {
            let missing: Vec<String> = required
                .iter()
                .filter(|key| !fields.contains_key(**key))
                .map(|key| format!("\"{key}\""))
                .collect();
            match missing.len() {
                0 => in_words(reason),
                1 => format!("missing key {}", missing[0]),
                _ => format!("missing keys {}", missing.join(", ")),
            }
        }
        _ => "the answer is not one JSON object".to_string(),
    }
}

/// A refusal as its reason says it: `invalid_contribution:stance` and
/// what that means.
pub(crate) fn in_words(reason: &impl PatternReason) -> String {
    format!("{reason}: {}", reason.explain(&StopFacts::default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::collaboration::stops::{ContributionError, RoundStop};
    use serde_json::json;

    #[test]
    fn the_words_name_the_missing_keys_or_the_rule() {
        let reason = RoundStop::InvalidContribution(ContributionError::MissingKeys);
        let keys = ["agent", "stance", "summary"];
        assert_eq!(
            problem(&reason, &json!({"agent": "a", "summary": "s"}), &keys),
            "missing key \"stance\""
        );
        assert_eq!(
            problem(&reason, &json!({"agent": "a"}), &keys),
            "missing keys \"stance\", \"summary\""
        );
        assert_eq!(
            problem(&reason, &json!({"invalid": true, "raw": "hm"}), &keys),
            "the answer is not JSON: answer with one JSON object"
        );
        let stance = RoundStop::InvalidContribution(ContributionError::Stance);
        assert_eq!(
            problem(
                &stance,
                &json!({"agent": "a", "stance": "x", "summary": "s"}),
                &keys
            ),
            "invalid_contribution:stance: a contribution broke the contribution contract (stance)"
        );
        assert_eq!(
            problem(&stance, &json!([1]), &keys),
            "the answer is not one JSON object"
        );
    }
}
