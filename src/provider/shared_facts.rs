//! The scenario's shared facts (`context`) as a model call's payload
//! carries them: the scenario's own text, shared by every call and written
//! into each prompt as it is sent or hashed, never copied into a tree of
//! values per call (a 50 MB context would be a gigabyte at every call).

use super::ModelRequest;
use crate::scenario::JsonText;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

/// What a payload holds at its key: the shared facts and, after a person
/// answered an escalation, their notes (`human_notes`, added to an object
/// as a member, around any other value).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SharedFacts {
    /// The payload's key it stands at.
    pub(crate) key: &'static str,
    pub(crate) context: JsonText,
    pub(crate) notes: Vec<String>,
}

/// The key the notes go under.
const NOTES: &str = "human_notes";

impl SharedFacts {
    pub(crate) fn new(key: &'static str, context: &JsonText) -> Self {
        SharedFacts {
            key,
            context: context.clone(),
            notes: Vec::new(),
        }
    }

    /// With a person's notes.
    pub(crate) fn with_notes(mut self, notes: &[String]) -> Self {
        self.notes = notes.to_vec();
        self
    }

    /// The facts as one value, built whole: for a reader that needs a
    /// value (a real endpoint's request), where the text will be copied
    /// anyway.
    pub(crate) fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for SharedFacts {
    /// As `json!` wrote the context with the notes inserted: an object's
    /// own `human_notes` member is replaced where it stands, or the notes
    /// follow its last member.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.notes.is_empty() {
            return self.context.serialize(serializer);
        }
        let text = self.context.text();
        if !text.trim_start().starts_with('{') {
            let mut map = serializer.serialize_map(Some(2))?;
            map.serialize_entry("context", &self.context)?;
            map.serialize_entry(NOTES, &self.notes)?;
            return map.end();
        }
        let members = crate::scenario::json_members(text, 0..text.len())
            .map_err(serde::ser::Error::custom)?;
        let mut map = serializer.serialize_map(None)?;
        let mut placed = false;
        for (key, at) in &members {
            if key == NOTES {
                map.serialize_entry(key, &self.notes)?;
                placed = true;
            } else {
                let part = self.context.part(&text[at.clone()]);
                map.serialize_entry(key, &part)?;
            }
        }
        if !placed {
            map.serialize_entry(NOTES, &self.notes)?;
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
        }
    }
}
