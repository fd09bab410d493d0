//! Scripted model outputs of the sim provider, as a scenario writes them: a
//! string is the model's raw text, `{"$fault": ...}` a failed call, any other
//! value the JSON the model returned; a list is one output per call.

use super::error::Problem;
use super::json_text::JsonText;
use super::path::JsonPath;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ScriptedOutput {
    /// Raw model text; the pattern parses it as the reference does.
    Text(String),
    /// JSON the model returned, already parsed.
    Json(Value),
    /// JSON the model returned, still as the scenario wrote it: a planner's
    /// plan, read into tasks as the pattern checks it.
    JsonText(JsonText),
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

    /// Read one output the caller owns, without copying it.
    pub(crate) fn from_value(value: Value) -> Result<ScriptedOutput, String> {
        if let Some(fault) = Self::fault(&value)? {
            return Ok(ScriptedOutput::Fault(fault));
        }
        Ok(match value {
            Value::String(text) => ScriptedOutput::Text(text),
            other => ScriptedOutput::Json(other),
        })
    }

    /// Whether `value` reads as an output, without copying it.
    pub(crate) fn check(value: &Value) -> Result<(), String> {
        Self::fault(value).map(|_| ())
    }

    /// Whether the JSON `text` reads as an output, without building it (a
    /// planner's scripted plan of 100,000 tasks is stepped over): only an
    /// object's `$fault` is read, and the names of its other keys.
    pub(crate) fn check_text(text: &str) -> Result<(), String> {
        if plainly_no_fault(text) {
            return Ok(());
        }
        match serde_json::from_str::<FaultProbe>(text) {
            Ok(FaultProbe(Some(probe))) => Self::check(&Value::Object(probe)),
            // Not an object: no fault. Text that is not JSON was refused
            // before any check runs.
            Ok(FaultProbe(None)) | Err(_) => Ok(()),
        }
    }

    /// Read one output written as JSON `text` within `script`: an object
    /// that is not a fault stays text; any other output is parsed.
    pub(crate) fn from_text(script: &JsonText, text: &str) -> Result<ScriptedOutput, String> {
        let object = plainly_no_fault(text)
            || matches!(
                serde_json::from_str::<FaultProbe>(text),
                Ok(FaultProbe(Some(probe))) if !probe.contains_key(FAULT_KEY)
            );
        if object && let Some(part) = script.part(text) {
            return Ok(ScriptedOutput::JsonText(part));
        }
        // The loader checked that the script is JSON.
        Self::from_value(serde_json::from_str(text).unwrap_or(Value::Null))
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

/// The outputs of a script written as JSON `text`, in call order, as
/// their texts: a list gives one per call, a single value is the only one.
pub(crate) fn script_entry_texts(text: &str) -> Vec<&str> {
    if !text.trim_start().starts_with('[') {
        return vec![text];
    }
    serde_json::from_str::<Vec<&RawValue>>(text)
        .map(|entries| entries.into_iter().map(RawValue::get).collect())
        .unwrap_or_default()
}

/// Each output of the sim script `script`, written at `path`, read as an
/// output: what every pattern's checks ask of the scripts it names.
pub(crate) fn check_script(script: &Value, path: &JsonPath, problems: &mut Vec<Problem>) {
    let entries = script_entries(script);
    check_entries(
        entries,
        script.is_array(),
        ScriptedOutput::check,
        path,
        problems,
    );
}

/// [`check_script`] of a script kept as text, without building it.
pub(crate) fn check_script_text(script: &JsonText, path: &JsonPath, problems: &mut Vec<Problem>) {
    let entries = script_entry_texts(script.text());
    let check = |entry: &&str| ScriptedOutput::check_text(entry);
    check_entries(&entries, script.is_array(), check, path, problems);
}

/// Each of a script's outputs read as an output; `listed` when the script
/// is a list of them rather than the only one.
fn check_entries<E>(
    entries: &[E],
    listed: bool,
    check: impl Fn(&E) -> Result<(), String>,
    path: &JsonPath,
    problems: &mut Vec<Problem>,
) {
    if entries.is_empty() {
        problems.push(Problem::at(path.clone(), "expected at least one output"));
    }
    for (i, entry) in entries.iter().enumerate() {
        if let Err(message) = check(entry) {
            let at = if listed { path.index(i) } else { path.clone() };
            problems.push(Problem::at(at.key(FAULT_KEY), message));
        }
    }
}

/// Whether the JSON `text` is an object without a `$fault` key, seen
/// without reading it: it opens with a brace, and `$fault` is nowhere in
/// it, nor could be written with escapes, as it holds no backslash. A
/// 16 MB plan is looked over in milliseconds rather than parsed.
fn plainly_no_fault(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.trim_start().starts_with('{')
        && memchr::memchr(b'\\', bytes).is_none()
        && memchr::memmem::find(bytes, FAULT_KEY.as_bytes()).is_none()
}

/// An object's `$fault` and the names of its other keys (their values
/// stepped over, as `null`); `None` for any other JSON value.
struct FaultProbe(Option<Map<String, Value>>);

impl<'de> Deserialize<'de> for FaultProbe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FaultProbeVisitor)
    }
}

struct FaultProbeVisitor;

impl<'de> Visitor<'de> for FaultProbeVisitor {
    type Value = FaultProbe;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FaultProbe, A::Error> {
        let mut probe = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = if key == FAULT_KEY {
                map.next_value::<Value>()?
            } else {
                map.next_value::<IgnoredAny>()?;
                Value::Null
            };
            probe.insert(key, value);
        }
        Ok(FaultProbe(Some(probe)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FaultProbe, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(FaultProbe(None))
    }

    fn visit_bool<E>(self, _: bool) -> Result<FaultProbe, E> {
        Ok(FaultProbe(None))
    }

    fn visit_i64<E>(self, _: i64) -> Result<FaultProbe, E> {
        Ok(FaultProbe(None))
    }

    fn visit_u64<E>(self, _: u64) -> Result<FaultProbe, E> {
        Ok(FaultProbe(None))
    }

    fn visit_f64<E>(self, _: f64) -> Result<FaultProbe, E> {
        Ok(FaultProbe(None))
    }

    fn visit_str<E>(self, _: &str) -> Result<FaultProbe, E> {
        Ok(FaultProbe(None))
    }

    fn visit_unit<E>(self) -> Result<FaultProbe, E> {
        Ok(FaultProbe(None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_fault_is_found_however_it_is_written() {
        let script =
            |text: &str| JsonText::in_text(std::sync::Arc::new(text.into()), 0..text.len());
        let timeout = Ok(ScriptedOutput::Fault(Fault::Timeout));
        for (text, plainly, fault) in [
            (r#"{"kind": "plan", "tasks": []}"#, true, false),
            (r#" {"$fault": "timeout"}"#, false, true),
            (r#"{"\u0024fault": "timeout"}"#, false, true),
            (r#"{"note": "$fault", "a": 1}"#, false, false),
            (r#"{"note": "a \"quote\""}"#, false, false),
            (r#"["$fault"]"#, false, false),
        ] {
            assert_eq!(plainly_no_fault(text), plainly, "{text}");
            let script = script(text);
            let read = ScriptedOutput::from_text(&script, script.text());
            assert_eq!(read == timeout, fault, "{text}: {read:?}");
            if text.starts_with('{') && !fault {
                assert!(matches!(read, Ok(ScriptedOutput::JsonText(_))), "{text}");
            }
            assert_eq!(ScriptedOutput::check_text(text), Ok(()), "{text}");
        }
        assert!(ScriptedOutput::check_text(r#"{"$fault": "timeout", "a": 1}"#).is_err());
    }

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
