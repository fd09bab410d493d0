//! A scenario's `context`: the shared facts every agent sees, any JSON value
//! of any size. It stays the file's text until something reads it, so that
//! checking a scenario costs memory in the file's size rather than in its
//! number of values; a run parses it once, the first time it needs it whole.

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

#[derive(Clone)]
pub(crate) struct Context {
    /// The text holding the context at `span`: the scenario file's, when
    /// the context was loaded from one.
    text: Arc<String>,
    span: Range<usize>,
    parsed: Arc<OnceLock<Value>>,
}

impl Context {
    /// The context written at `span` of `text`, which must hold valid JSON
    /// there (the loader has checked it).
    pub(crate) fn in_text(text: Arc<String>, span: Range<usize>) -> Self {
        Context {
            text,
            span,
            parsed: Arc::new(OnceLock::new()),
        }
    }

    pub(crate) fn from_value(value: Value) -> Self {
        let text = value.to_string();
        let span = 0..text.len();
        Context {
            text: Arc::new(text),
            span,
            parsed: Arc::new(OnceLock::from(value)),
        }
    }

    /// The context as written in the file.
    pub(crate) fn text(&self) -> &str {
        self.text.get(self.span.clone()).unwrap_or("null")
    }

    /// The whole context, parsed on first use.
    pub(crate) fn value(&self) -> &Value {
        self.parsed
            .get_or_init(|| serde_json::from_str(self.text()).unwrap_or(Value::Null))
    }

    /// A top-level fact of the context, when the context is an object that
    /// has it. Before the whole context is needed, only this fact is parsed.
    pub(crate) fn get(&self, key: &str) -> Option<Value> {
        if let Some(value) = self.parsed.get() {
            return value.get(key).cloned();
        }
        serde_json::Deserializer::from_str(self.text())
            .deserialize_map(Lookup(key))
            .ok()
            .flatten()
    }
}

/// Finds one member of a JSON object and steps over the others unread.
struct Lookup<'k>(&'k str);

impl<'de> Visitor<'de> for Lookup<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(wanted) = map.next_key_seed(IsKey(self.0))? {
            if wanted && found.is_none() {
                found = Some(map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Reads a key as whether it is the one wanted.
struct IsKey<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for IsKey<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for IsKey<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E>(self, key: &str) -> Result<bool, E> {
        Ok(key == self.0)
    }
}

impl PartialEq for Context {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Context({})", self.text())
    }
}

impl Serialize for Context {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Context {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Context::from_value)
    }
}

impl From<Value> for Context {
    fn from(value: Value) -> Self {
        Context::from_value(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn in_file(file: &str, context: &str) -> Context {
        let start = file.find(context).unwrap();
        Context::in_text(Arc::new(file.to_string()), start..start + context.len())
    }

    #[test]
    fn reads_one_fact_without_parsing_the_rest() {
        let context = in_file(
            r#"{"context": {"rows": [1, 2, 3], "re\u0067ion": "US", "n": {"a": 1}}, "x": 1}"#,
            r#"{"rows": [1, 2, 3], "re\u0067ion": "US", "n": {"a": 1}}"#,
        );
        assert_eq!(context.get("region"), Some(json!("US")));
        assert_eq!(context.get("n"), Some(json!({"a": 1})));
        assert_eq!(context.get("missing"), None);
        assert!(context.parsed.get().is_none(), "nothing parsed whole yet");
        assert_eq!(context.value()["rows"], json!([1, 2, 3]));
        assert_eq!(context.get("region"), Some(json!("US")));
    }

    #[test]
    fn a_context_that_is_not_an_object_has_no_facts() {
        assert_eq!(in_file("[1, 2]", "[1, 2]").get("a"), None);
        assert_eq!(Context::from_value(json!("text")).get("a"), None);
    }

    #[test]
    fn writes_and_reads_as_the_json_it_holds() {
        let context = in_file(
            r#"{"context": {"a": [1, {"b": null}]}}"#,
            r#"{"a": [1, {"b": null}]}"#,
        );
        let written = serde_json::to_value(&context).unwrap();
        assert_eq!(written, json!({"a": [1, {"b": null}]}));
        let read: Context = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(read, context);
        assert_eq!(
            json!({"shared_context": context}),
            json!({"shared_context": written})
        );
    }
}
