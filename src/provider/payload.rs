//! A model call's payload as it is written (hashed, counted, sent): the
//! pattern's tree of values with the parts that stand in it as text put in
//! place, the scenario's shared facts and a part the pattern wrote before
//! the call. A coordinator's last turn is told the answers of 100,000
//! member calls: written once as text, they are never built into a tree
//! of values that the call would hash, count and drop. The payload is
//! written once per call: the prompt's hash counts its characters on the
//! way, for the sim's token estimate.

use super::ModelRequest;
use super::shared_facts::SharedFacts;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::io::{BufWriter, Write};
use std::sync::{Arc, OnceLock};

/// How many bytes of a payload are written on at once.
const PIECE: usize = 4096;

/// A writer that passes its bytes on to `out` and counts the characters
/// among them (every byte but a UTF-8 continuation byte starts one).
pub(crate) struct CharCount<W> {
    out: W,
    pub(crate) chars: u64,
}

impl<W: Write> CharCount<W> {
    pub(crate) fn new(out: W) -> Self {
        CharCount { out, chars: 0 }
    }
}

impl<W: Write> Write for CharCount<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.out.write(bytes)?;
        let bytes = &bytes[..written];
        // Whole characters are counted by the standard library's own
        // (optimised even in a debug build: a 50 MB context is counted at
        // every call); a piece that cuts a character, byte by byte.
        let starts = match std::str::from_utf8(bytes) {
            Ok(text) => text.chars().count(),
            Err(_) => bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count(),
        };
        self.chars += starts as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A member of the payload the pattern wrote as compact JSON text, as
/// serde_json writes the value it stands for: the payload is written byte
/// for byte as it would be with the value in place, so a prompt's hash
/// does not change for being written ahead.
#[derive(Clone, Debug)]
pub(crate) struct WrittenPart {
    /// The payload's key it stands at.
    pub(crate) key: &'static str,
    pub(crate) text: Arc<RawValue>,
}

impl ModelRequest {
    /// The request, its payload holding `text` at `key`. The sim's
    /// unscripted answers read the payload's values, not a written part.
    pub(crate) fn writing(mut self, key: &'static str, text: Arc<RawValue>) -> Self {
        if let Value::Object(members) = &mut self.payload {
            members.insert(key.to_string(), Value::Null);
        }
        self.written = Some(WrittenPart { key, text });
        self.payload_chars = OnceLock::new();
        self
    }

    /// Write the payload as the model is given it into `out` (a prompt's
    /// hash), its characters counted on the way and kept. serde_json
    /// writes a key, a quote or a comma at a time; they reach the count
    /// and `out` in pieces of [`PIECE`] bytes, as a hash takes them best
    /// (a member call's payload is hashed at every call: the scale
    /// bench's `coordinator_100k`).
    pub(crate) fn write_payload(&self, out: impl Write) {
        let mut pieces = BufWriter::with_capacity(PIECE, CharCount::new(out));
        // Only `out` could fail, and a hash or a count does not.
        let written = self.payload_json().write_compact(&mut pieces);
        if let (Ok(()), Ok(counted)) = (written, pieces.into_inner()) {
            let _ = self.payload_chars.set(counted.chars);
        }
    }

    /// Characters of the payload as written: the count its hash kept, or
    /// counted now.
    pub(crate) fn payload_chars(&self) -> u64 {
        if let Some(chars) = self.payload_chars.get() {
            return *chars;
        }
        self.write_payload(std::io::sink());
        self.payload_chars.get().copied().unwrap_or_default()
    }

    /// The payload as the model is given it, to write (hash, count, send).
    pub(crate) fn payload_json(&self) -> PayloadJson<'_> {
        PayloadJson {
            payload: &self.payload,
            shared: self.shared.as_ref(),
            written: self.written.as_ref(),
        }
    }

    /// The payload as one value, its shared facts and written part built
    /// in: for a real endpoint, whose request copies the text anyway.
    pub(crate) fn payload_value(&self) -> Cow<'_, Value> {
        let Value::Object(members) = &self.payload else {
            return Cow::Borrowed(&self.payload);
        };
        if self.shared.is_none() && self.written.is_none() {
            return Cow::Borrowed(&self.payload);
        }
        let mut members = members.clone();
        if let Some(shared) = &self.shared {
            members.insert(shared.key.to_string(), shared.to_value());
        }
        if let Some(written) = &self.written {
            // Text serde_json wrote: it reads back as the value it was.
            let value = serde_json::from_str(written.text.get()).unwrap_or(Value::Null);
            members.insert(written.key.to_string(), value);
        }
        Cow::Owned(Value::Object(members))
    }
}

/// A payload with its shared facts and written part in place, written as
/// one JSON object in the payload's key order.
pub(crate) struct PayloadJson<'a> {
    pub(crate) payload: &'a Value,
    pub(crate) shared: Option<&'a SharedFacts>,
    pub(crate) written: Option<&'a WrittenPart>,
}

impl PayloadJson<'_> {
    /// Write the payload as compact JSON, byte for byte as serde_json
    /// writes it ([`Serialize`] below), the shared facts as
    /// [`SharedFacts::write_compact`] writes them: a 50 MB context is
    /// copied into each prompt's hash, not parsed and written again.
    pub(crate) fn write_compact(&self, out: &mut impl Write) -> std::io::Result<()> {
        let (Value::Object(members), Some(shared)) = (self.payload, self.shared) else {
            return serde_json::to_writer(out, self).map_err(std::io::Error::from);
        };
        out.write_all(b"{")?;
        for (n, (key, value)) in members.iter().enumerate() {
            if n > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, key)?;
            out.write_all(b":")?;
            match self.written {
                _ if key == shared.key => shared.write_compact(out)?,
                Some(written) if key == written.key => {
                    serde_json::to_writer(&mut *out, &written.text)?;
                }
                _ => serde_json::to_writer(&mut *out, value)?,
            }
        }
        out.write_all(b"}")
    }
}

impl Serialize for PayloadJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Value::Object(members) = self.payload else {
            return self.payload.serialize(serializer);
        };
        if self.shared.is_none() && self.written.is_none() {
            return self.payload.serialize(serializer);
        }
        let mut map = serializer.serialize_map(Some(members.len()))?;
        for (key, value) in members {
            match (self.shared, self.written) {
                (Some(shared), _) if key == shared.key => map.serialize_entry(key, shared)?,
                (_, Some(written)) if key == written.key => {
                    map.serialize_entry(key, &written.text)?;
                }
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Purpose;
    use crate::provider::prompts::Prompt;
    use serde_json::json;

    fn request(payload: Value) -> ModelRequest {
        ModelRequest::new(Purpose::unscripted("turn:lead"), &Prompt::UNUSED, payload)
    }

    #[test]
    fn a_written_part_is_written_hashed_and_sent_as_the_value_in_its_place_would_be() {
        let part = json!({"members": [{"name": "a0", "description": "é\n\"x\""}],
            "recent": [{"turn": 1, "agent": "lead", "output": {"reply": 2.5e-7, "n": -3}}]});
        let whole = request(json!({"goal": "g", "context": part.clone(), "z": [1]}));
        let text: Arc<RawValue> = serde_json::value::to_raw_value(&part).unwrap().into();
        let written = request(json!({"goal": "g", "z": [1]})).writing("context", text);
        let write = |request: &ModelRequest| serde_json::to_string(&request.payload_json());
        // The key keeps the place it is given, as a value inserted there
        // would: the payload's keys come in the order the pattern built.
        let placed = request(json!({"goal": "g", "context": null, "z": [1]})).writing(
            "context",
            serde_json::value::to_raw_value(&part).unwrap().into(),
        );
        // What a prompt's hash and the sim's token count read.
        assert_eq!(write(&placed).unwrap(), write(&whole).unwrap());
        // What an endpoint is sent.
        assert_eq!(placed.payload_value().into_owned(), whole.payload);
        // Put at the end when the payload had no such key.
        assert_eq!(
            write(&written).unwrap(),
            r#"{"goal":"g","z":[1],"context":"#.to_string() + &part.to_string() + "}"
        );
    }

    #[test]
    fn the_characters_counted_as_the_payload_is_hashed_are_those_it_is_written_with() {
        let raw =
            |text: &str| -> Arc<RawValue> { RawValue::from_string(text.into()).unwrap().into() };
        let chars = |request: &ModelRequest| {
            let text = serde_json::to_string(&request.payload_json()).unwrap();
            text.chars().count() as u64
        };
        let request = request(json!({"goal": "é\n€", "context": null}))
            .writing("context", raw(r#"{"a":"ü","b":[1,2.5]}"#));
        let mut hashed = Vec::new();
        request.write_payload(&mut hashed);
        assert_eq!(
            String::from_utf8(hashed).unwrap(),
            serde_json::to_string(&request.payload_json()).unwrap()
        );
        assert_eq!(request.payload_chars.get(), Some(&chars(&request)));
        // A request given more after it was counted is counted again.
        let more = request.clone().writing("z", raw(r#"["ß"]"#));
        assert_eq!(more.payload_chars(), chars(&more));
        let shared = crate::scenario::JsonText::from_value(json!({"région": "US"}));
        // The request was counted before its facts were shared.
        let sharing = request.sharing(SharedFacts::new("shared_context", &shared));
        assert_eq!(sharing.payload_chars(), chars(&sharing));
    }
}
