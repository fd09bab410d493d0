//! The scenario's shared facts (`context`) as a model call's payload
//! carries them: the scenario's own text, shared by every call and written
//! into each prompt as it is sent or hashed, never copied into a tree of
//! values per call (a 50 MB context would be a gigabyte at every call).
//! Facts of a size a prompt carries are written as compact JSON once, on
//! the first call, and that text is shared by the calls after it: a
//! coordinator's 100,000 member calls (`cargo bench --bench scale --
//! coordinator`) would otherwise read the scenario's text 100,000 times.

use super::ModelRequest;
use crate::scenario::JsonText;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::{Arc, OnceLock};

/// What a payload holds at its key: the shared facts and, after a person
/// answered an escalation, their notes (`human_notes`, added to an object
/// as a member, around any other value).
#[derive(Clone, Debug)]
pub(crate) struct SharedFacts {
    /// The payload's key it stands at.
    pub(crate) key: &'static str,
    pub(crate) context: JsonText,
    pub(crate) notes: Vec<String>,
    /// The facts as compact JSON, written the first time they are and
    /// shared by every clone; `None` inside for facts over [`KEPT_UP_TO`]
    /// bytes written.
    compact: Arc<OnceLock<Option<Box<RawValue>>>>,
}

/// The key the notes go under.
const NOTES: &str = "human_notes";

/// Facts up to this many bytes, written, are kept; bigger ones are written
/// from the scenario's text at every call rather than held twice.
const KEPT_UP_TO: usize = 1 << 20;

impl SharedFacts {
    pub(crate) fn new(key: &'static str, context: &JsonText) -> Self {
        SharedFacts {
            key,
            context: context.clone(),
            notes: Vec::new(),
            compact: Arc::default(),
        }
    }

    /// With a person's notes.
    pub(crate) fn with_notes(mut self, notes: &[String]) -> Self {
        self.notes = notes.to_vec();
        self.compact = Arc::default();
        self
    }

    /// The facts as compact JSON, written once, when they are small
    /// enough to keep.
    fn compact(&self) -> Option<&RawValue> {
        self.compact
            .get_or_init(|| {
                let mut text = Bounded(Vec::new());
                serde_json::to_writer(&mut text, &FromText(self)).ok()?;
                RawValue::from_string(String::from_utf8(text.0).ok()?).ok()
            })
            .as_deref()
    }

    /// Write the facts as compact JSON, as serde_json writes them: the
    /// kept text; or, for facts too big to keep, the scenario's text
    /// without its whitespace where that is serde's text
    /// ([`JsonText::write_compact`]), parsed and written again only where
    /// it is not.
    pub(crate) fn write_compact(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        if let Some(kept) = self.compact() {
            return out.write_all(kept.get().as_bytes());
        }
        if self.notes.is_empty() && self.context.write_compact(out)? {
            return Ok(());
        }
        serde_json::to_writer(out, self).map_err(std::io::Error::from)
    }

    /// The facts as one value, built whole: for a reader that needs a
    /// value (a real endpoint's request), where the text will be copied
    /// anyway.
    pub(crate) fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for SharedFacts {
    /// As `json!` wrote the context with the notes inserted. A payload is
    /// written compact (hashed, counted) or built into a value, and both
    /// take the kept text as the value it was written from.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.compact() {
            Some(text) => text.serialize(serializer),
            None => FromText(self).serialize(serializer),
        }
    }
}

/// Facts written from the scenario's text.
struct FromText<'a>(&'a SharedFacts);

/// Bytes written, up to [`KEPT_UP_TO`]: writing more fails.
struct Bounded(Vec<u8>);

impl std::io::Write for Bounded {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + bytes.len() > KEPT_UP_TO {
            return Err(std::io::ErrorKind::FileTooLarge.into());
        }
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Serialize for FromText<'_> {
    /// An object's own `human_notes` member is replaced where it stands,
    /// or the notes follow its last member.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let facts = self.0;
        if facts.notes.is_empty() {
            return facts.context.serialize(serializer);
        }
        let text = facts.context.text();
        if !text.trim_start().starts_with('{') {
            let mut map = serializer.serialize_map(Some(2))?;
            map.serialize_entry("context", &facts.context)?;
            map.serialize_entry(NOTES, &facts.notes)?;
            return map.end();
        }
        let members = crate::scenario::json_members(text, 0..text.len())
            .map_err(serde::ser::Error::custom)?;
        let mut map = serializer.serialize_map(None)?;
        let mut placed = false;
        for (key, at) in &members {
            if key == NOTES {
                map.serialize_entry(key, &facts.notes)?;
                placed = true;
            } else {
                let part = facts.context.part(&text[at.clone()]);
                map.serialize_entry(key, &part)?;
            }
        }
        if !placed {
            map.serialize_entry(NOTES, &facts.notes)?;
        }
        map.end()
    }
}

impl ModelRequest {
    /// The request, its payload holding the scenario's `shared` facts at
    /// their key.
    pub(crate) fn sharing(mut self, shared: SharedFacts) -> Self {
        if let Value::Object(members) = &mut self.payload {
            members.insert(shared.key.to_string(), Value::Null);
        }
        self.shared = Some(shared);
        self.payload_chars = std::sync::OnceLock::new();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    fn context(text: &str) -> JsonText {
        JsonText::in_text(Arc::new(text.to_string()), 0..text.len())
    }

    #[test]
    fn a_payload_is_written_as_the_same_payload_built_whole_would_be() {
        let cases = [
            (r#"{"a": [1, {"b": 2.5}], "c": "é\n"}"#, vec![]),
            (r#"{"a": 1}"#, vec!["go".to_string()]),
            (r#"{"human_notes": 0, "a": 1}"#, vec!["x".to_string()]),
            (r#"[1, 2]"#, vec!["y".to_string()]),
            (r#"{"a": {"k": 1, "k": 2}}"#, vec![]),
        ];
        for (text, notes) in cases {
            let whole: Value = serde_json::from_str(text).unwrap();
            let mut built = whole.clone();
            if !notes.is_empty() {
                built = match built {
                    Value::Object(mut map) => {
                        map.insert(NOTES.into(), json!(notes));
                        Value::Object(map)
                    }
                    other => json!({"context": other, "human_notes": notes}),
                };
            }
            let payload = json!({"goal": "g", "shared_context": null, "z": [1]});
            let want = json!({"goal": "g", "shared_context": built, "z": [1]});
            let shared = SharedFacts::new("shared_context", &context(text)).with_notes(&notes);
            let written = crate::provider::payload::PayloadJson {
                payload: &payload,
                shared: Some(&shared),
                written: None,
            };
            assert_eq!(
                serde_json::to_string(&written).unwrap(),
                want.to_string(),
                "{text} with {notes:?}"
            );
            // Written again from the kept text, and built into a value.
            assert_eq!(serde_json::to_string(&written).unwrap(), want.to_string());
            assert_eq!(shared.to_value(), want["shared_context"]);
            // Written for a prompt's hash.
            assert_eq!(written_compact(&written), want.to_string());
        }
    }

    fn written_compact(payload: &crate::provider::payload::PayloadJson) -> String {
        let mut out = Vec::new();
        payload.write_compact(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Facts too big to keep, in serde_json's form or not, with notes or
    /// without: a prompt's hash reads what serde_json writes for the
    /// payload built whole, whether the text's whitespace is dropped or
    /// the text is parsed and written again.
    #[test]
    fn big_facts_are_written_for_a_hash_as_the_payload_built_whole_is() {
        // Rows up to twice the size kept: over it once written compact.
        let rows = |row: &dyn Fn(usize) -> String| {
            let mut rows: Vec<String> = Vec::new();
            let mut size = 0;
            while size < 2 * KEPT_UP_TO {
                rows.push(row(rows.len()));
                size += rows[rows.len() - 1].len() + 6;
            }
            format!(
                "{{\n  \"rows\": [\n    {}\n  ],\r\n\t\"z\": \"a b/c\"}}",
                rows.join(",\n    ")
            )
        };
        let cases = [
            (
                rows(&|i| format!("{{\"i\": {i}, \"s\": \"q\\\"\\u001f\\n\"}}")),
                true,
            ),
            (rows(&|i| format!("{{\"x\": {i}.5}}")), false),
            (rows(&|i| format!("\"a\\/{i}\"")), false),
            (rows(&|i| format!("-{i}")), false),
            (rows(&|i| format!("-{}", i + 1)), true),
            (rows(&|i| format!("{}", i + 1)), true),
        ];
        for (n, (text, in_form)) in cases.into_iter().enumerate() {
            assert_eq!(
                crate::scenario::compact_json::in_serde_form(&text),
                in_form,
                "{:.80}",
                text
            );
            let whole: Value = serde_json::from_str(&text).unwrap();
            // With notes, the facts are written through serde; the first
            // case is enough to see it.
            let notes = [vec![], vec!["go".to_string()]];
            for notes in &notes[..if n == 0 { 2 } else { 1 }] {
                let mut built = whole.clone();
                if !notes.is_empty() {
                    built[NOTES] = json!(notes);
                }
                let payload = json!({"goal": "g", "shared_context": null, "z": [1]});
                let want = json!({"goal": "g", "shared_context": built, "z": [1]});
                let shared = SharedFacts::new("shared_context", &context(&text)).with_notes(notes);
                assert!(shared.compact().is_none(), "not kept");
                let written = crate::provider::payload::PayloadJson {
                    payload: &payload,
                    shared: Some(&shared),
                    written: None,
                };
                // Compared without printing: megabytes of text.
                let expected = want.to_string();
                assert!(
                    written_compact(&written) == expected,
                    "{:.80} with {notes:?}",
                    text
                );
            }
        }
    }

    #[test]
    fn facts_too_big_to_keep_are_written_from_the_text_each_time() {
        let rows: Vec<String> = (0..KEPT_UP_TO / 8)
            .map(|i| format!("{{\"i\": {i}}}"))
            .collect();
        let text = format!("{{\"rows\": [{}]}}", rows.join(", "));
        let shared = SharedFacts::new("shared_context", &context(&text));
        let whole: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&shared).unwrap(), whole.to_string());
        assert!(shared.compact().is_none(), "not kept");
        let small = SharedFacts::new("shared_context", &context(r#"{"a": [1]}"#));
        assert_eq!(
            small.clone().compact().map(RawValue::get),
            Some(r#"{"a":[1]}"#)
        );
        assert!(
            small.compact.get().is_some(),
            "kept, and shared with its clones"
        );
    }
}
