//! A cursor over JSON text that serde_json has already accepted: it steps
//! over whitespace, strings and whole values without building anything, so
//! that a pass over a large file costs time, not memory. On text that is not
//! valid JSON it stops at the end and never panics.

use std::borrow::Cow;

/// The bytes that open and close JSON's objects and lists, by name (they
/// read better in patterns than four bracket literals).
pub(crate) const OPEN_OBJECT: u8 = b'{';
pub(crate) const CLOSE_OBJECT: u8 = b'}';
pub(crate) const OPEN_LIST: u8 = b'[';
pub(crate) const CLOSE_LIST: u8 = b']';

pub(crate) struct Cursor<'t> {
    text: &'t str,
    pub(crate) at: usize,
}

impl<'t> Cursor<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Cursor { text, at: 0 }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    pub(crate) fn bump(&mut self) {
        self.at += 1;
    }

    pub(crate) fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Step over a string literal starting at the cursor; the offset just
    /// past its closing quote.
    pub(crate) fn skip_string(&mut self) -> usize {
        let bytes = self.text.as_bytes();
        self.at += 1;
        while let Some(&b) = bytes.get(self.at) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'"' => break,
                _ => {}
            }
        }
        self.at = self.at.min(bytes.len());
        self.at
    }

    /// Read the string literal at the cursor as its decoded text, borrowed
    /// from the file when it holds no escape.
    pub(crate) fn string(&mut self) -> Cow<'t, str> {
        let start = self.at;
        let end = self.skip_string();
        // Only broken text can end a literal inside a character.
        self.text
            .get(start..end)
            .map_or(Cow::Borrowed(""), decode_string)
    }

    /// Step over a number, `true`, `false` or `null`.
    pub(crate) fn skip_scalar(&mut self) {
        while !matches!(
            self.peek(),
            None | Some(b',' | CLOSE_OBJECT | CLOSE_LIST | b':' | b' ' | b'\t' | b'\n' | b'\r')
        ) {
            self.at += 1;
        }
    }

    /// Step over the value at the cursor, however deep, with no recursion.
    pub(crate) fn skip_value(&mut self) {
        self.skip_ws();
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return,
                Some(b'"') => {
                    self.skip_string();
                }
                Some(OPEN_OBJECT | OPEN_LIST) => {
                    depth += 1;
                    self.at += 1;
                }
                Some(CLOSE_OBJECT | CLOSE_LIST) => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                    self.at += 1;
                }
                Some(b',' | b':' | b' ' | b'\t' | b'\n' | b'\r') if depth > 0 => self.at += 1,
                Some(b',' | b':') => return,
                Some(_) => self.skip_scalar(),
            }
            if depth == 0 {
                return;
            }
        }
    }
}

/// A string literal's text, quotes and escapes resolved; an unreadable one
/// reads as empty.
pub(crate) fn decode_string(literal: &str) -> Cow<'_, str> {
    let inner = literal
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or("");
    if inner.contains('\\') {
        Cow::Owned(serde_json::from_str::<String>(literal).unwrap_or_default())
    } else {
        Cow::Borrowed(inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_over_whole_values() {
        let text = r#"[{"a": [1, "]\"", {"b": null}]}, true, -1.5e3]"#;
        let mut cursor = Cursor::new(text);
        cursor.bump();
        cursor.skip_value();
        assert_eq!(&text[cursor.at..cursor.at + 1], ",");
        cursor.bump();
        cursor.skip_value();
        assert_eq!(&text[cursor.at..], ", -1.5e3]");
        cursor.bump();
        cursor.skip_value();
        assert_eq!(&text[cursor.at..], "]");
    }

    #[test]
    fn decodes_keys_with_escapes() {
        assert_eq!(decode_string(r#""plain""#), "plain");
        assert!(matches!(decode_string(r#""plain""#), Cow::Borrowed(_)));
        assert_eq!(decode_string(r#""\u0061\n""#), "a\n");
    }

    #[test]
    fn stops_at_the_end_of_broken_text() {
        for text in ["[[[", "\"abc", "{\"a\": [1, 2", "\"\\"] {
            let mut cursor = Cursor::new(text);
            cursor.skip_value();
            assert!(cursor.at <= text.len());
        }
    }
}
