//! The parts of a scenario that may be of any size, kept as the file's
//! text until something reads them: the `context` (the shared facts every
//! agent sees) and the sim's scripted `plan` (a planner's output of 100,000
//! tasks). Checking a scenario then costs memory in the file's size rather
//! than in its number of values. A run parses the context once, the first
//! time it needs it whole; a scripted plan object reaches the orchestrator
//! as its text, which reads it one task at a time.

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

#[derive(Clone)]
pub(crate) struct JsonText {
    /// The text holding the value at `span`: the scenario file's, when the
    /// value was loaded from one. A value read some other way (a recorded
    /// scenario's) is written as text only when its text is asked for.
    text: Arc<OnceLock<Arc<String>>>,
    /// `None` for the whole text.
    span: Option<Range<usize>>,
    parsed: Arc<OnceLock<Value>>,
    /// Whether no object of the text names a key twice, once looked at.
    unique_keys: Arc<OnceLock<bool>>,
    /// Whether the text without its whitespace is what serde_json writes
    /// for its value, once looked at.
    serde_form: Arc<OnceLock<bool>>,
}

impl JsonText {
    /// The value written at `span` of `text`, which must hold valid JSON
    /// there (the loader has checked it).
    pub(crate) fn in_text(text: Arc<String>, span: Range<usize>) -> Self {
        JsonText {
            text: Arc::new(OnceLock::from(text)),
            span: Some(span),
            parsed: Arc::new(OnceLock::new()),
            unique_keys: Arc::new(OnceLock::new()),
            serde_form: Arc::new(OnceLock::new()),
        }
    }

    /// The value written at `span` of `text`, a scenario file the loader
    /// has accepted: valid JSON in which no object names a key twice (its
    /// pass over the structure looks at every object), which writing the
    /// value then need not step through the text again to learn.
    pub(crate) fn in_checked_text(text: Arc<String>, span: Range<usize>) -> Self {
        JsonText {
            unique_keys: Arc::new(OnceLock::from(true)),
            ..JsonText::in_text(text, span)
        }
    }

    pub(crate) fn from_value(value: Value) -> Self {
        JsonText {
            text: Arc::new(OnceLock::new()),
            span: None,
            parsed: Arc::new(OnceLock::from(value)),
            unique_keys: Arc::new(OnceLock::new()),
            serde_form: Arc::new(OnceLock::new()),
        }
    }

    /// The whole text the value stands in.
    fn whole(&self) -> &Arc<String> {
        // A value without text was given one when it was made.
        self.text
            .get_or_init(|| Arc::new(self.parsed.get().map(Value::to_string).unwrap_or_default()))
    }

    /// The value as written in the file.
    pub(crate) fn text(&self) -> &str {
        let whole = self.whole();
        match &self.span {
            Some(span) => whole.get(span.clone()).unwrap_or("null"),
            None => whole,
        }
    }

    /// The value's text when it is held already, never written for the
    /// asking.
    pub(crate) fn held_text(&self) -> Option<&str> {
        self.text.get().map(|_| self.text())
    }

    /// Write the value as compact JSON, byte for byte as serde_json
    /// writes it, when the text without its whitespace is that: a copy of
    /// the text rather than a parse of it. `Ok(false)`, with nothing
    /// written, where it is not (see [`super::compact_json`]): the caller
    /// writes the value through serde.
    pub(crate) fn write_compact(&self, out: &mut impl std::io::Write) -> std::io::Result<bool> {
        if self.parsed.get().is_some()
            || !*self.unique_keys.get_or_init(|| unique_keys(self.text()))
            || !*self
                .serde_form
                .get_or_init(|| super::compact_json::in_serde_form(self.text()))
        {
            return Ok(false);
        }
        super::compact_json::write_without_whitespace(self.text(), out)?;
        Ok(true)
    }

    /// The whole value, parsed on first use and kept.
    pub(crate) fn value(&self) -> &Value {
        self.parsed
            .get_or_init(|| serde_json::from_str(self.text()).unwrap_or(Value::Null))
    }

    /// The whole value, parsed anew (or copied, once kept) for a caller
    /// that owns it; nothing is kept.
    pub(crate) fn to_value(&self) -> Value {
        match self.parsed.get() {
            Some(value) => value.clone(),
            None => serde_json::from_str(self.text()).unwrap_or(Value::Null),
        }
    }

    /// The value written at `part`, a slice of this one's text, sharing
    /// the text rather than copying it; `None` when `part` is not a slice
    /// of it.
    pub(crate) fn part(&self, part: &str) -> Option<JsonText> {
        let own = self.text();
        let at = part.as_ptr().addr().checked_sub(own.as_ptr().addr())?;
        if at + part.len() > own.len() {
            return None;
        }
        let whole = self.whole();
        let start = own.as_ptr().addr() - whole.as_ptr().addr() + at;
        Some(JsonText::in_text(
            Arc::clone(whole),
            start..start + part.len(),
        ))
    }

    /// Whether `other` stands in the very same text as this value (one
    /// is the other, or a part of the same file at the same place).
    pub(crate) fn same_text(&self, other: &JsonText) -> bool {
        std::ptr::eq(self.text(), other.text())
    }

    /// Whether the value is a list, read from its first character.
    pub(crate) fn is_array(&self) -> bool {
        self.text().trim_start().starts_with('[')
    }

    /// A top-level member of the value, when it is an object that has it.
    /// Before the whole value is needed, only this member is parsed.
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

/// What an object's text starts with.
const OPEN_OBJECT: char = '{';

/// The object written at `span` of `text`, parsed but for its member
/// `key`, which is left out and given as where its value stands in `text`
/// (not when it is `null`, which is as good as absent). Text that is not an
/// object is parsed whole, for the schema to say what it is.
pub(crate) fn object_but(
    text: &str,
    span: Range<usize>,
    key: &str,
) -> serde_json::Result<(Value, Option<Range<usize>>)> {
    let written = &text[span.clone()];
    if !written.trim_start().starts_with(OPEN_OBJECT) {
        return serde_json::from_str(written).map(|value| (value, None));
    }
    let members = members(text, span)?;
    let mut object = Map::with_capacity(members.len());
    let mut left_out = None;
    for (name, at) in members {
        if name == key && &text[at.clone()] != "null" {
            left_out = Some(at);
        } else {
            object.insert(name, serde_json::from_str(&text[at])?);
        }
    }
    Ok((Value::Object(object), left_out))
}

/// The members of the object written at `span` of `text`, in order, each
/// key with where its value stands in `text`. A key given twice is refused,
/// as serde refuses a field given twice.
pub(crate) fn members(
    text: &str,
    span: Range<usize>,
) -> serde_json::Result<Vec<(String, Range<usize>)>> {
    let written = &text[span];
    let mut reader = serde_json::Deserializer::from_str(written);
    let members = reader.deserialize_map(Members)?;
    reader.end()?;
    Ok(members
        .into_iter()
        .map(|(key, raw)| {
            // The raw value borrows its text from `written`, a slice of `text`.
            let start = raw.get().as_ptr().addr() - text.as_ptr().addr();
            (key, start..start + raw.get().len())
        })
        .collect())
}

/// An object's members, its values left as their text.
struct Members;

impl<'de> Visitor<'de> for Members {
    type Value = Vec<(String, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members: Vec<(String, &'de RawValue)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!("duplicate key `{key}`")));
            }
            members.push((key, map.next_value()?));
        }
        Ok(members)
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

impl PartialEq for JsonText {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl fmt::Debug for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsonText({})", self.text())
    }
}

impl Serialize for JsonText {
    /// Written from its text, value by value, as its parsed value would
    /// write it: a 50 MB context of small objects parses into a tree of
    /// over a gigabyte, which no run, prompt or recording needs. Text
    /// that repeats a key is written from its value, which holds it once.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(value) = self.parsed.get() {
            return value.serialize(serializer);
        }
        if !*self.unique_keys.get_or_init(|| unique_keys(self.text())) {
            return self.value().serialize(serializer);
        }
        let mut reader = serde_json::Deserializer::from_str(self.text());
        serde_transcode::transcode(&mut reader, serializer)
    }
}

/// Whether no object in the JSON `text` names a key twice (and the text
/// is JSON).
fn unique_keys(text: &str) -> bool {
    let mut reader = serde_json::Deserializer::from_str(text);
    UniqueKeys.deserialize(&mut reader).is_ok() && reader.end().is_ok()
}

/// Steps through one value, failing at an object that names a key twice.
struct UniqueKeys;

impl<'de> DeserializeSeed<'de> for UniqueKeys {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueKeys {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        while items.next_element_seed(UniqueKeys)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = members.next_key::<std::borrow::Cow<'de, str>>()? {
            if !seen.insert(key) {
                return Err(serde::de::Error::custom("a repeated key"));
            }
            members.next_value_seed(UniqueKeys)?;
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for JsonText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(JsonText::from_value)
    }
}

impl From<Value> for JsonText {
    fn from(value: Value) -> Self {
        JsonText::from_value(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn in_file(file: &str, context: &str) -> JsonText {
        let start = file.find(context).unwrap();
        JsonText::in_text(Arc::new(file.to_string()), start..start + context.len())
    }

    /// A shipped scenario whose context is `context`.
    fn scenario_with_context(context: &str) -> String {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/checkout_v2_launch.json"
        );
        let mut document: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        document["context"] = json!("CONTEXT");
        document.to_string().replace("\"CONTEXT\"", context)
    }

    #[test]
    fn a_loaded_context_has_no_key_twice_and_is_written_without_a_pass_to_learn_it() {
        let context = r#"{"rows": [{"k": 1, "v": {"k": 2}}, {"k": 3}], "k": 4}"#;
        let text = scenario_with_context(context);
        let loaded = crate::scenario::parse(&text, "s.json").unwrap();
        assert_eq!(loaded.context.unique_keys.get(), Some(&true));
        let mut written = Vec::new();
        assert!(loaded.context.write_compact(&mut written).unwrap());
        assert_eq!(written, context.replace(' ', "").as_bytes());
        // A recording's scenario was not checked so: its keys are looked at
        // when it is written.
        let recorded = super::super::recorded::recorded(text).unwrap();
        assert_eq!(recorded.context.unique_keys.get(), None);
    }

    /// What `in_checked_text` relies on: the loader refuses a key twice in
    /// any object of the context, however deep.
    #[test]
    fn the_loader_refuses_a_key_twice_anywhere_in_the_context() {
        for context in [
            r#"{"k": 1, "k": 2}"#,
            r#"{"rows": [{"a": 1}, {"a": 1, "b": {"c": 1, "c": 2}}]}"#,
            r#"[[[{"x": [], "\u0078": {}}]]]"#,
        ] {
            let refused = crate::scenario::parse(&scenario_with_context(context), "s.json")
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(refused.contains("duplicate key"), "{context}: {refused}");
        }
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
    fn a_value_is_written_as_text_only_when_asked_and_its_parts_share_it() {
        let plan = JsonText::from_value(json!([{"kind": "plan"}, "b"]));
        assert!(plan.text.get().is_none(), "not written yet");
        assert_eq!(plan.text(), r#"[{"kind":"plan"},"b"]"#);
        let entry = &plan.text()[1..16];
        let part = plan.part(entry).unwrap();
        assert_eq!(part.text(), r#"{"kind":"plan"}"#);
        assert!(
            Arc::ptr_eq(part.whole(), plan.whole()),
            "shared, not copied"
        );
        assert_eq!(part.value(), &json!({"kind": "plan"}));
        assert!(plan.part("elsewhere").is_none());
        let file = in_file(r#"{"plan": [1, {"a": 2}]}"#, r#"[1, {"a": 2}]"#);
        let inner = file.part(&file.text()[4..12]).unwrap();
        assert_eq!(inner.text(), r#"{"a": 2}"#);
    }

    #[test]
    fn members_are_given_as_places_in_the_text_and_a_repeated_key_is_refused() {
        let text = r#"[{"a": 1, "b" : [2, "}"]}]"#;
        let span = 1..text.len() - 1;
        let read: Vec<(String, &str)> = members(text, span.clone())
            .unwrap()
            .into_iter()
            .map(|(key, at)| (key, &text[at]))
            .collect();
        let want = [("a".to_string(), "1"), ("b".to_string(), r#"[2, "}"]"#)];
        assert_eq!(read, want);
        let (object, left_out) = object_but(text, span, "b").unwrap();
        assert_eq!(object, json!({"a": 1}));
        assert_eq!(&text[left_out.unwrap()], r#"[2, "}"]"#);
        let repeated = r#"{"a": 1, "\u0061": 2}"#;
        let error = members(repeated, 0..repeated.len()).unwrap_err();
        assert!(error.to_string().contains("duplicate key `a`"), "{error}");
        assert!(object_but(repeated, 0..repeated.len(), "b").is_err());
        // Not an object: parsed whole, for the schema to name it.
        assert_eq!(object_but("[1]", 0..3, "b").unwrap(), (json!([1]), None));
    }

    #[test]
    fn a_context_that_is_not_an_object_has_no_facts() {
        assert_eq!(in_file("[1, 2]", "[1, 2]").get("a"), None);
        assert_eq!(JsonText::from_value(json!("text")).get("a"), None);
    }

    #[test]
    fn writes_and_reads_as_the_json_it_holds() {
        let context = in_file(
            r#"{"context": {"a": [1, {"b": null}]}}"#,
            r#"{"a": [1, {"b": null}]}"#,
        );
        let written = serde_json::to_value(&context).unwrap();
        assert_eq!(written, json!({"a": [1, {"b": null}]}));
        let read: JsonText = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(read, context);
        assert_eq!(
            json!({"shared_context": context}),
            json!({"shared_context": written})
        );
    }
}
