//! The simulated model's token counts. No tokenizer runs: a call's tokens
//! are estimated from the length of its text, one token for every four
//! characters, rounded up (the usual rule of thumb for English): the
//! request's payload as compact JSON in, the answer out (a JSON answer as
//! compact JSON). The same call always counts the same, so a run's usage
//! is as reproducible as its result.

use crate::bus::TokenUsage;
use crate::provider::payload::CharCount;
use crate::provider::{ModelOutput, ModelRequest};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

/// Characters a token stands for.
const CHARS_PER_TOKEN: u64 = 4;

pub(crate) fn estimate(request: &ModelRequest, output: &ModelOutput) -> TokenUsage {
    let out = match output {
        ModelOutput::Text(text) => text.chars().count() as u64,
        ModelOutput::Json(value) => json_chars(value),
        ModelOutput::JsonText(text) => {
            text_chars(text.text()).unwrap_or_else(|| json_chars(&text.to_value()))
        }
    };
    TokenUsage {
        // Counted as the prompt's hash wrote the payload.
        input: tokens(request.payload_chars()),
        output: tokens(out),
        estimated: true,
        ..TokenUsage::default()
    }
}

/// Tokens `chars` characters stand for, by the rule of thumb.
pub(crate) fn tokens(chars: u64) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN)
}

/// Characters of `value` written as compact JSON, counted as it is
/// written rather than held.
fn json_chars<T: serde::Serialize + ?Sized>(value: &T) -> u64 {
    let mut counter = CharCount::new(std::io::sink());
    // Writing to a counter cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.chars
}

/// Characters of the value JSON `text` stands for, written as compact
/// JSON (what [`json_chars`] counts), read without building the value.
/// `None` when an object repeats a key, which the value holds once.
fn text_chars(text: &str) -> Option<u64> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let chars = CompactChars.deserialize(&mut reader).ok()?;
    reader.end().ok()?;
    Some(chars)
}

/// Counts one value's characters as compact JSON.
struct CompactChars;

impl<'de> DeserializeSeed<'de> for CompactChars {
    type Value = u64;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<u64, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CompactChars {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<u64, E> {
        Ok(if value { 4 } else { 5 })
    }

    fn visit_unit<E>(self) -> Result<u64, E> {
        Ok(4)
    }

    fn visit_i64<E>(self, value: i64) -> Result<u64, E> {
        Ok(json_chars(&Value::from(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<u64, E> {
        Ok(json_chars(&Value::from(value)))
    }

    fn visit_f64<E>(self, value: f64) -> Result<u64, E> {
        Ok(json_chars(&Value::from(value)))
    }

    fn visit_str<E>(self, value: &str) -> Result<u64, E> {
        Ok(json_chars(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<u64, A::Error> {
        let mut chars = 2;
        let mut count = 0;
        while let Some(item) = items.next_element_seed(CompactChars)? {
            chars += item;
            count += 1;
        }
        Ok(chars + count.max(1) - 1)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<u64, A::Error> {
        // Most objects have a few keys, looked through in a list; one with
        // many moves them to a set.
        const FEW: usize = 16;
        let mut few: Vec<Cow<'de, str>> = Vec::new();
        let mut many: HashSet<Cow<'de, str>> = HashSet::new();
        let mut chars = 2;
        let mut count = 0u64;
        while let Some(key) = members.next_key_seed(Key)? {
            chars += CompactChars.visit_str::<A::Error>(&key)? + 1;
            let repeated = if many.is_empty() && few.len() < FEW {
                let seen = few.contains(&key);
                few.push(key);
                seen
            } else {
                many.extend(few.drain(..));
                !many.insert(key)
            };
            if repeated {
                return Err(serde::de::Error::custom("a repeated key"));
            }
            chars += members.next_value_seed(CompactChars)?;
            count += 1;
        }
        Ok(chars + count.max(1) - 1)
    }
}

/// An object's key, borrowed from the text when it has no escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arbitrary_json::any_json;
    use crate::provider::Purpose;
    use crate::provider::prompts::Prompt;
    use crate::scenario::JsonText;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn four_characters_make_a_token_rounded_up() {
        let request = ModelRequest::new(
            Purpose::unscripted("plan"),
            &Prompt::UNUSED,
            json!({"goal": "é"}),
        );
        // {"goal":"é"} is 12 characters; "Ready." is 6.
        let usage = estimate(&request, &ModelOutput::Text("Ready.".into()));
        assert_eq!((usage.input, usage.output, usage.estimated), (3, 2, true));
        let usage = estimate(&request, &ModelOutput::Json(json!({"a": 1})));
        assert_eq!(usage.output, 2, "{{\"a\":1}} is 7 characters");
        assert_eq!(
            estimate(&request, &ModelOutput::Text(String::new())).output,
            0
        );
        assert_eq!(usage.cost_usd, None, "the gateway prices it");
    }

    #[test]
    fn text_with_a_repeated_key_counts_as_its_value() {
        let text = r#"{"a": 1, "b": [true, null], "a": "é"}"#;
        assert_eq!(text_chars(text), None);
        let value: Value = serde_json::from_str(text).unwrap();
        let scripted = JsonText::in_text(std::sync::Arc::new(text.to_string()), 0..text.len());
        let request = ModelRequest::new(Purpose::unscripted("plan"), &Prompt::UNUSED, json!({}));
        assert_eq!(
            estimate(&request, &ModelOutput::JsonText(scripted)),
            estimate(&request, &ModelOutput::Json(value))
        );
    }

    #[test]
    fn a_key_repeated_among_many_is_found() {
        let members: Vec<String> = (0..40).map(|n| format!("\"k{n}\": {n}")).collect();
        let unique = format!("{{{}}}", members.join(", "));
        let value: Value = serde_json::from_str(&unique).unwrap();
        assert_eq!(text_chars(&unique), Some(json_chars(&value)));
        for repeat in [0, 15, 16, 17, 39] {
            let repeated = format!("{{{}, \"k{repeat}\": null}}", members.join(", "));
            assert_eq!(text_chars(&repeated), None, "k{repeat} again");
        }
    }

    proptest! {
        #[test]
        fn text_counts_as_the_value_it_stands_for(value in any_json()) {
            let want = Some(json_chars(&value));
            prop_assert_eq!(text_chars(&value.to_string()), want);
            prop_assert_eq!(text_chars(&serde_json::to_string_pretty(&value).unwrap()), want);
        }
    }
}
