//! Pretty JSON from JSON text, byte for byte what serde_json's pretty
//! printer writes for the value the text stands for, without parsing the
//! text into a value or through serde: a 100,000-task run's result is tens
//! of megabytes of compact text, and re-indenting it is a single pass.
//!
//! What serde_json wrote is copied as it stands: its strings and integers.
//! A string or number it would write differently (an escape such as `\/` or
//! `\u00e9`, a float such as `1.50` or `1E5`) goes through serde_json, so
//! the output is the same for any valid JSON. Text that is not valid JSON
//! gives `None`, and so does text nested deeper than serde_json reads
//! ([`MAX_DEPTH`]): the printer goes down a level by calling itself, and a
//! hostile recording's result must not run it out of stack.

use serde_json::Value;

/// The most levels of lists and objects serde_json reads.
const MAX_DEPTH: usize = 127;

/// `text`, one JSON value and nothing else, as pretty JSON.
pub(crate) fn pretty_json(text: &str) -> Option<String> {
    let mut printer = Printer {
        bytes: text.as_bytes(),
        at: 0,
        // Pretty JSON of a compact document is about 1.6 times its size.
        out: Vec::with_capacity(text.len().saturating_mul(2)),
        depth: 0,
    };
    printer.value()?;
    printer.skip_space();
    if printer.at != printer.bytes.len() {
        return None;
    }
    String::from_utf8(printer.out).ok()
}

struct Printer<'t> {
    bytes: &'t [u8],
    at: usize,
    out: Vec<u8>,
    depth: usize,
}

impl Printer<'_> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.bytes.get(self.at).copied()
    }

    fn newline(&mut self) {
        /// A newline and the indentation of the levels most documents have.
        const INDENTED: &[u8; 65] =
            b"\n                                                                ";
        match INDENTED.get(..1 + 2 * self.depth) {
            Some(line) => self.out.extend_from_slice(line),
            None => {
                self.out.extend_from_slice(INDENTED);
                for _ in 32..self.depth {
                    self.out.extend_from_slice(b"  ");
                }
            }
        }
    }

    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'{' => self.container(b'}', true),
            b'[' => self.container(b']', false),
            b'"' => self.string(),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            _ => self.number(),
        }
    }

    /// An object (its members `"key": value`) or a list.
    fn container(&mut self, close: u8, object: bool) -> Option<()> {
        let open = self.bytes[self.at];
        self.at += 1;
        self.out.push(open);
        if self.peek()? == close {
            self.at += 1;
            self.out.push(close);
            return Some(());
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        loop {
            self.newline();
            if object {
                if self.peek()? != b'"' {
                    return None;
                }
                self.string()?;
                if self.peek()? != b':' {
                    return None;
                }
                self.at += 1;
                self.out.extend_from_slice(b": ");
            }
            self.value()?;
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    self.out.push(b',');
                }
                b if b == close => break,
                _ => return None,
            }
        }
        self.at += 1;
        self.depth -= 1;
        self.newline();
        self.out.push(close);
        Some(())
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        if !self.bytes[self.at..].starts_with(word) {
            return None;
        }
        self.at += word.len();
        self.out.extend_from_slice(word);
        Some(())
    }

    /// A string, copied when serde_json would write it the same.
    fn string(&mut self) -> Option<()> {
        let start = self.at;
        let mut canonical = true;
        let mut i = start + 1;
        loop {
            match *self.bytes.get(i)? {
                b'"' => break,
                b'\\' => {
                    canonical &= canonical_escape(&self.bytes[i..]);
                    // Step over the escaped byte, so that `\"` and `\\` do
                    // not end the string or start another escape.
                    i += 2;
                }
                0x00..=0x1F => return None,
                _ => i += 1,
            }
        }
        let token = &self.bytes[start..=i];
        self.at = i + 1;
        if canonical {
            self.out.extend_from_slice(token);
        } else {
            let text: String = serde_json::from_slice(token).ok()?;
            serde_json::to_writer(&mut self.out, &text).ok()?;
        }
        Some(())
    }

    /// A number, copied when it is an integer serde_json reads and writes
    /// back as it is; any other goes through serde_json.
    fn number(&mut self) -> Option<()> {
        let start = self.at;
        let end = self.bytes[start..]
            .iter()
            .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .map_or(self.bytes.len(), |n| start + n);
        let token = &self.bytes[start..end];
        self.at = end;
        let digits = token.strip_prefix(b"-").unwrap_or(token);
        let plain = !digits.is_empty()
            && digits.iter().all(u8::is_ascii_digit)
            && (digits.len() == 1 || digits[0] != b'0')
            // Up to 18 digits fits an i64 either way; "-0" reads as 0.
            && digits.len() <= 18
            && token != b"-0";
        if plain {
            self.out.extend_from_slice(token);
        } else {
            let number: Value = serde_json::from_slice(token).ok()?;
            if !number.is_number() {
                return None;
            }
            serde_json::to_writer(&mut self.out, &number).ok()?;
        }
        Some(())
    }
}

/// Whether the escape at the start of `escape` is the one serde_json
/// writes for its character: `\"`, `\\`, the short forms of five controls,
/// and `\u00xx` (lowercase) for the other controls below 0x20.
fn canonical_escape(escape: &[u8]) -> bool {
    match escape.get(1) {
        Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => true,
        Some(b'u') => match escape.get(2..6) {
            Some([b'0', b'0', high @ (b'0' | b'1'), low]) => {
                let code = (high - b'0') * 16
                    + match low {
                        b'0'..=b'9' => low - b'0',
                        b'a'..=b'f' => low - b'a' + 10,
                        _ => return false,
                    };
                !matches!(code, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D)
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arbitrary_json::any_json;
    use proptest::prelude::*;

    /// What serde_json's own pretty printer writes for `text`.
    fn serde_pretty(text: &str) -> String {
        let value: Value = serde_json::from_str(text).unwrap();
        serde_json::to_string_pretty(&value).unwrap()
    }

    #[test]
    fn text_deeper_than_serde_json_reads_is_refused_without_running_out_of_stack() {
        let at_limit = format!("{}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(pretty_json(&at_limit), Some(serde_pretty(&at_limit)));
        let deeper = format!(
            "{}1{}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        assert!(serde_json::from_str::<Value>(&deeper).is_err());
        assert_eq!(pretty_json(&deeper), None);
        let hostile = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        assert_eq!(pretty_json(&hostile), None);
    }

    #[test]
    fn indents_deep_documents_as_serde_json_does() {
        for depth in [31, 32, 33, 40] {
            let text = format!("{}1{}", "[{\"a\":".repeat(depth), "}]".repeat(depth));
            assert_eq!(
                pretty_json(&text),
                Some(serde_pretty(&text)),
                "{depth} deep"
            );
        }
    }

    #[test]
    fn writes_what_serde_json_writes_for_any_spelling_of_a_value() {
        for text in [
            r#"{"a":[1,2,{"b":null,"c":[]}],"d":{},"e":"x\"y\\z\n"}"#,
            "[]",
            "{}",
            "  [ 1 , true , false , null ]  ",
            r#"["\/", "\u00e9", "\u0041", "\u001F", "\u001f", "\u000a", "\ud83d\ude00"]"#,
            r#"["\b\f\n\r\t", "\u0008", "é ☃ 😀"]"#,
            "[1.50, 1E5, 1e-7, -0, -0.0, 0, 12345678901234567890, -9223372036854775809]",
            "[123456789012345678, -123456789012345678, 1234567890123456789]",
            "3.25",
            "\"alone\"",
            r#"{"k" : {"nested" : [[[]]], "n" : -1}}"#,
        ] {
            assert_eq!(
                pretty_json(text).as_deref(),
                Some(&*serde_pretty(text)),
                "{text}"
            );
        }
    }

    #[test]
    fn text_that_is_not_one_json_value_gives_none() {
        for text in [
            "",
            "[",
            "[1,]",
            "{\"a\" 1}",
            "{1: 2}",
            "[1] 2",
            "tru",
            "\"open",
            "[\"\u{1}\"]",
            "-",
            "1.2.3",
        ] {
            assert_eq!(pretty_json(text), None, "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn equals_serde_json_pretty_on_its_compact_text(value in any_json()) {
            let compact = serde_json::to_string(&value).unwrap();
            let want = serde_json::to_string_pretty(&value).unwrap();
            prop_assert_eq!(pretty_json(&compact), Some(want));
        }
    }
}
