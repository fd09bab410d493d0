//! Scripted model outputs of the sim provider, as a scenario writes them: a
//! string is the model's raw text, `{"$fault": ...}` a failed call, any other
//! value the JSON the model returned; a list is one output per call.

use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ScriptedOutput {
    /// Raw model text; the pattern parses it as the reference does.
    Text(String),
    /// JSON the model returned, already parsed.
    Json(Value),
    Fault(Fault),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The call did not answer in time.
    Timeout,
    /// The call answered with no content.
    Empty,
}

pub(crate) const FAULT_KEY: &str = "$fault";

impl ScriptedOutput {
    /// Read one output. The error says what was expected.
    pub(crate) fn parse(value: &Value) -> Result<ScriptedOutput, String> {
        if let Some(fault) = Self::fault(value)? {
            return Ok(ScriptedOutput::Fault(fault));
        }
        Ok(match value {
            Value::String(text) => ScriptedOutput::Text(text.clone()),
            other => ScriptedOutput::Json(other.clone()),
        })
    }

    /// Whether `value` reads as an output, without copying it (a planner's
    /// scripted plan of 100,000 tasks is checked as it stands).
    pub(crate) fn check(value: &Value) -> Result<(), String> {
        Self::fault(value).map(|_| ())
    }

    /// The fault `value` stands for; `None` for any other output.
    fn fault(value: &Value) -> Result<Option<Fault>, String> {
        let Value::Object(map) = value else {
            return Ok(None);
        };
        if !map.contains_key(FAULT_KEY) {
            return Ok(None);
        }
        if map.len() > 1 {
            return Err(format!(
                "a {FAULT_KEY} output has no other keys; found {}",
                map.keys()
                    .filter(|k| *k != FAULT_KEY)
                    .map(|k| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        match map[FAULT_KEY].as_str() {
            Some("timeout") => Ok(Some(Fault::Timeout)),
            Some("empty") => Ok(Some(Fault::Empty)),
            _ => Err(format!(
                "expected {FAULT_KEY} to be \"timeout\" or \"empty\", found {}",
                map[FAULT_KEY]
            )),
        }
    }
}

/// The outputs of a script entry in call order: a list gives one per call, a
/// single value is the only one.
pub(crate) fn script_entries(value: &Value) -> &[Value] {
    match value {
        Value::Array(items) => items,
        single => std::slice::from_ref(single),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_every_kind_of_output() {
        assert_eq!(
            ScriptedOutput::parse(&json!("{\"a\": 1}")),
            Ok(ScriptedOutput::Text("{\"a\": 1}".into()))
        );
        assert_eq!(
            ScriptedOutput::parse(&json!({"$fault": "timeout"})),
            Ok(ScriptedOutput::Fault(Fault::Timeout))
        );
        assert_eq!(
            ScriptedOutput::parse(&json!([1, 2])),
            Ok(ScriptedOutput::Json(json!([1, 2])))
        );
        let err = ScriptedOutput::parse(&json!({"$fault": "slow"})).unwrap_err();
        assert!(err.contains("\"timeout\" or \"empty\""), "{err}");
    }

    #[test]
    fn a_single_value_is_a_one_entry_script() {
        assert_eq!(script_entries(&json!([1, 2])).len(), 2);
        assert_eq!(script_entries(&json!({"agent": "x"})).len(), 1);
    }
}
