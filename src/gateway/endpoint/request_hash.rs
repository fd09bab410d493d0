//! A request to the endpoint as a cassette matches it: the SHA-256 of its
//! body's meaning, the JSON with every object's keys in sorted order and
//! no whitespace, leaving out `stream_options` (how the answer is
//! delivered, which Conclave itself may splice in, not what is asked).

use crate::gateway::prompt_hash::lowercase_hex;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The top-level fields that do not count.
const NOT_ASKED: &[&str] = &["stream_options"];

/// The request `body`'s hash, as lowercase hex.
pub(crate) fn request_sha256(body: &Value) -> String {
    // Written whole, then hashed at once: many small updates of the hash
    // cost more than the copy.
    let mut canonical = Vec::new();
    feed(body, &mut canonical, true);
    lowercase_hex(&Sha256::digest(&canonical))
}

/// Write `value` into `out` in its canonical form. The nesting is the
/// parser's (at most 128 deep), so the recursion is bounded.
fn feed(value: &Value, out: &mut Vec<u8>, top: bool) {
    match value {
        Value::Object(fields) => {
            let mut keys: Vec<&String> = fields
                .keys()
                .filter(|key| !(top && NOT_ASKED.contains(&key.as_str())))
                .collect();
            keys.sort();
            out.extend_from_slice(b"{");
            for (at, key) in keys.into_iter().enumerate() {
                if at > 0 {
                    out.extend_from_slice(b",");
                }
                write(key, out);
                out.extend_from_slice(b":");
                feed(&fields[key], out, false);
            }
            out.extend_from_slice(b"}");
        }
        Value::Array(items) => {
            out.extend_from_slice(b"[");
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.extend_from_slice(b",");
                }
                feed(item, out, false);
            }
            out.extend_from_slice(b"]");
        }
        other => write(other, out),
    }
}

/// `value` as compact JSON, written onto `out`.
fn write(value: &(impl serde::Serialize + ?Sized), out: &mut Vec<u8>) {
    // Writing onto a vector cannot fail, nor can serializing a string or
    // a value already parsed.
    let _ = serde_json::to_writer(out, value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hash(text: &str) -> String {
        request_sha256(&serde_json::from_str(text).unwrap())
    }

    #[test]
    fn the_hash_is_of_what_is_asked_not_of_its_bytes() {
        let asked = hash(r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#);
        assert_eq!(asked.len(), 64);
        assert_eq!(
            asked,
            hash(
                "{ \"messages\" : [ {\"content\":\"hi\", \"role\":\"user\"} ],\n \"model\":\"m\" }"
            ),
            "key order and whitespace do not count"
        );
        assert_eq!(
            hash(r#"{"model":"m","stream":true}"#),
            hash(r#"{"stream_options":{"include_usage":true},"model":"m","stream":true}"#),
            "stream_options does not count"
        );
        assert_ne!(
            hash(r#"{"model":"m","stream":true}"#),
            hash(r#"{"model":"m","stream":false}"#)
        );
        assert_ne!(
            asked,
            hash(r#"{"model":"m","messages":[{"role":"user","content":"ho"}]}"#)
        );
        assert_ne!(
            hash(r#"{"a":{"stream_options":1}}"#),
            hash(r#"{"a":{}}"#),
            "only the top-level field is left out"
        );
        assert_ne!(
            request_sha256(&json!([1, 2])),
            request_sha256(&json!([2, 1]))
        );
    }
}
