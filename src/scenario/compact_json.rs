//! JSON text written compactly by dropping its whitespace, where that is
//! byte for byte what serde_json writes for the value the text parses to.
//! A prompt carries the scenario's context at every model call, and its
//! hash and the sim's token count read it as compact JSON: parsing 50 MB
//! of context and writing it again at each call cost more than the rest
//! of the run together. Dropping whitespace is a copy.
//!
//! serde_json writes a value back as the text only where the text is
//! already in its form ([`in_serde_form`]): every number an integer that
//! reads as one (not `-0`, not past the 64-bit range), which is written as
//! read, and every escape in a string one serde_json writes itself (`\"`,
//! `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00xx` in lower case for the
//! other control characters). A fraction, an exponent or any other escape
//! is written otherwise, and such text is written through serde.

use std::io::{self, Write};

/// Whether `text` (valid JSON) is in the form serde_json writes: dropping
/// its whitespace gives what serde_json writes for its value.
pub(crate) fn in_serde_form(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => match string_end(bytes, at + 1) {
                Some(end) => at = end + 1,
                None => return false,
            },
            b'-' | b'0'..=b'9' => {
                let end = bytes[at..]
                    .iter()
                    .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(bytes.len(), |n| at + n);
                if !integer_as_written(&text[at..end]) {
                    return false;
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    true
}

/// The index of the quote that closes the string whose contents start at
/// `from`, when every escape in it is one serde_json writes.
fn string_end(bytes: &[u8], from: usize) -> Option<usize> {
    closing_quote(bytes, from, escape_as_written)
}

/// The index of the quote that closes the string whose contents start at
/// `from`: none where the text ends first or `escape` refuses an escape
/// (given what follows a backslash, it says how long the escape is).
fn closing_quote(
    bytes: &[u8],
    from: usize,
    escape: impl Fn(&[u8]) -> Option<usize>,
) -> Option<usize> {
    let mut at = from;
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        if bytes[at] == b'"' {
            return Some(at);
        }
        at += 1 + escape(&bytes[at + 1..])?;
    }
}

/// The length of the escape after a backslash, when serde_json writes
/// that character with that very escape.
fn escape_as_written(after: &[u8]) -> Option<usize> {
    match after.first()? {
        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => Some(1),
        b'u' => {
            let hex = after.get(1..5)?;
            let lower = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
            // serde_json writes `\u00xx` only for a control character
            // without a short escape.
            let short = [b"0008", b"0009", b"000a", b"000c", b"000d"];
            (hex.starts_with(b"00")
                && matches!(hex[2], b'0' | b'1')
                && hex.iter().all(lower)
                && !short.iter().any(|s| hex == *s))
            .then_some(5)
        }
        _ => None,
    }
}

/// Whether the number written `number` is an integer serde_json reads as
/// one and writes back the same: a negative one fits an `i64` and is not
/// zero, a positive one fits a `u64`.
fn integer_as_written(number: &str) -> bool {
    let (negative, digits) = match number.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, number),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    // JSON allows no leading zeros, so the length orders the magnitudes.
    let fits = |limit: &str| {
        digits.len() < limit.len() || (digits.len() == limit.len() && digits <= limit)
    };
    if negative {
        digits != "0" && fits("9223372036854775808")
    } else {
        fits("18446744073709551615")
    }
}

/// Write `text` (valid JSON, [`in_serde_form`]) without its whitespace.
pub(crate) fn write_without_whitespace(text: &str, out: &mut impl Write) -> io::Result<()> {
    let bytes = text.as_bytes();
    // Raw tabs and carriage returns can only be whitespace between
    // values, as can newlines (a string holds them escaped); spaces can
    // be in strings too.
    let tabs_or_returns = memchr::memchr2(b'\t', b'\r', bytes).is_some();
    let mut at = 0;
    while at < bytes.len() {
        // Up to the next whitespace or string.
        let stop = if tabs_or_returns {
            bytes[at..]
                .iter()
                .position(|b| matches!(b, b' ' | b'\n' | b'\t' | b'\r' | b'"'))
        } else {
            memchr::memchr3(b' ', b'\n', b'"', &bytes[at..])
        };
        let Some(stop) = stop.map(|n| at + n) else {
            return out.write_all(&bytes[at..]);
        };
        out.write_all(&bytes[at..stop])?;
        if bytes[stop] == b'"' {
            // The text is valid JSON, so the character after a backslash
            // is never the closing quote; text that is not ends at its end.
            let end = closing_quote(bytes, stop + 1, |_| Some(1)).unwrap_or(bytes.len() - 1);
            out.write_all(&bytes[stop..=end])?;
            at = end + 1;
        } else {
            at = stop + 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// What serde_json writes for the value of `text`, compactly.
    fn serde_compact(text: &str) -> String {
        let value: Value = serde_json::from_str(text).unwrap();
        serde_json::to_string(&value).unwrap()
    }

    fn dropped(text: &str) -> String {
        let mut out = Vec::new();
        write_without_whitespace(text, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn text_in_serdes_form_is_written_as_serde_writes_its_value() {
        for text in [
            "{}",
            "[]",
            " [ 1 ,\t2 ,\r\n -3 ] ",
            "{\"a b\": [true, false, null], \"c\": {\"d\": \"e f\"}}",
            "[18446744073709551615, -9223372036854775808, 0]",
            r#"["q\"uote", "back\\slash", "\b\f\n\r\t", "\u0000 \u001f \u000b", "é € 😀 ", "/"]"#,
            "{\"i\": 7, \"v\": 3}",
        ] {
            assert!(in_serde_form(text), "{text}");
            assert_eq!(dropped(text), serde_compact(text), "{text}");
        }
    }

    /// Text cut inside a string, which the loader never lets through, is
    /// refused by the check and copied to its end without a panic.
    #[test]
    fn text_cut_after_an_escape_is_refused_and_copied_to_its_end() {
        for cut in [r#""a\"#, r#"["a\"#, r#"{"k": "\u00"#] {
            assert!(!in_serde_form(cut), "{cut}");
            assert_eq!(dropped(cut), cut.replace(": ", ":"), "{cut}");
        }
    }

    /// Every fraction and exponent is written through serde, even one
    /// serde writes back as it was (`1.5`); the others here serde writes
    /// otherwise.
    #[test]
    fn text_serde_writes_otherwise_is_not_in_its_form() {
        assert!(!in_serde_form("1.5"));
        assert!(!in_serde_form("[1.0]"));
        for text in [
            "1e3",
            "1E3",
            "-0",
            "18446744073709551616",
            "-9223372036854775809",
            r#""\/""#,
            r#""\u0041""#,
            r#""\u00e9""#,
            r#""\u000A""#,
            r#""\u000a""#,
            r#""\u007f""#,
            r#""\u0009""#,
            r#""\ud83d\ude00""#,
        ] {
            assert!(!in_serde_form(text), "{text}");
            assert_ne!(
                text.replace(' ', ""),
                serde_compact(text),
                "{text} would have been in serde's form after all"
            );
        }
    }

    /// Whether `value` holds a number that is not an integer.
    fn has_fraction(value: &Value) -> bool {
        match value {
            Value::Number(n) => n.is_f64(),
            Value::Array(items) => items.iter().any(has_fraction),
            Value::Object(map) => map.values().any(has_fraction),
            _ => false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any value, written pretty or compact with spaces and escapes
        /// added where JSON allows them: text found in serde's form drops
        /// its whitespace to exactly what serde writes, and serde's own
        /// compact text is always found in its form.
        #[test]
        fn whitespace_dropped_is_serdes_text_wherever_the_form_is_found(
            value in crate::arbitrary_json::any_json(),
            pretty in any::<bool>(),
            escaped in any::<bool>(),
        ) {
            let compact = serde_json::to_string(&value).unwrap();
            prop_assert_eq!(in_serde_form(&compact), !has_fraction(&value), "{}", compact);
            if in_serde_form(&compact) {
                prop_assert_eq!(dropped(&compact), compact.clone());
            }
            let mut text = if pretty {
                serde_json::to_string_pretty(&value).unwrap().replace('\n', "\r\n\t")
            } else {
                compact.clone()
            };
            if escaped {
                // An escape serde does not write: `/` as `\/`.
                text = text.replace('/', "\\/");
            }
            if in_serde_form(&text) {
                prop_assert_eq!(dropped(&text), compact);
            } else {
                prop_assert!(
                    has_fraction(&value) || (escaped && compact.contains('/')),
                    "{}", text
                );
            }
        }
    }
}
