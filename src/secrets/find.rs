//! Finding a secret in JSON text without building its tree: the text is
//! read as a stream and only its strings and keys, decoded, are looked
//! at. A 50 MB context of numbers costs one walk and the depth of its
//! nesting, where a tree of it would cost twenty times its size.

use super::Scrubber;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Whether any string or key of the JSON `text` holds something
/// `scrubber` masks. Text that does not read as JSON (or nests past the
/// reader's depth limit) answers yes, so that the caller takes the
/// careful way.
pub(super) fn holds_secret(scrubber: &Scrubber, text: &str) -> bool {
    let mut reader = serde_json::Deserializer::from_str(text);
    match Finder(scrubber).deserialize(&mut reader) {
        Ok(found) => found || reader.end().is_err(),
        Err(_) => true,
    }
}

#[derive(Clone, Copy)]
struct Finder<'a>(&'a Scrubber);

impl<'de> DeserializeSeed<'de> for Finder<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Finder<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E>(self, text: &str) -> Result<bool, E> {
        Ok(!self.0.regions(text).is_empty())
    }

    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<bool, A::Error> {
        let mut found = false;
        while let Some(here) = items.next_element_seed(self)? {
            found |= here;
        }
        Ok(found)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<bool, A::Error> {
        let mut found = false;
        while let Some(key) = entries.next_key_seed(self)? {
            found |= key;
            found |= entries.next_value_seed(self)?;
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scrubber() -> Scrubber {
        let mut scrubber = Scrubber::new();
        scrubber.add("sk-find-Qw3Er5Ty7Ui9");
        scrubber
    }

    #[test]
    fn a_secret_is_found_in_strings_and_keys_whatever_their_escapes() {
        let s = scrubber();
        assert!(holds_secret(
            &s,
            r#"{"a": [1, {"b": "key sk-find-Qw3Er5Ty7Ui9"}]}"#
        ));
        assert!(holds_secret(&s, r#"{"sk-find-Qw3Er5Ty7Ui9": 1}"#));
        // Escaped characters are decoded before looking.
        assert!(holds_secret(&s, r#"["sk-find-\u0051w3Er5Ty7Ui9"]"#));
        // A run of WINDOW characters of it counts too.
        assert!(holds_secret(&s, r#""tail Er5Ty7Ui9""#));
    }

    #[test]
    fn text_without_a_secret_or_not_json_answers_as_it_should() {
        let s = scrubber();
        let numbers = format!("{{\"xs\": [{}1]}}", "1,".repeat(100_000));
        assert!(!holds_secret(&s, &numbers));
        assert!(!holds_secret(
            &s,
            r#"{"a": "plain", "b": null, "c": true, "d": -1.5}"#
        ));
        assert!(holds_secret(&s, "{not json"), "unsure means look closer");
        assert!(holds_secret(&s, "1 2"), "trailing text means look closer");
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        assert!(holds_secret(&s, &deep), "past the depth limit, look closer");
    }
}
