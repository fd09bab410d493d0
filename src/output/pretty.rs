//! Pretty JSON from compact JSON that serde_json wrote, by a walk over its
//! bytes. A 100,000-task run's result is about 50 MB of compact text,
//! printed at the very end of the run, when nothing else is left to do:
//! reading it into serde_json and writing it out again (the way any JSON
//! text is printed) took a sixth of the whole run. serde_json's compact
//! text is already as its pretty printer would write each string and
//! number, with no space outside strings, so only the layout changes:
//! newlines and indents around the brackets, `": "` after a key.

/// The pretty form of `compact`, byte for byte what
/// `serde_json::to_string_pretty` writes for the value that
/// `serde_json::to_string` wrote as `compact`. Any other text (a hand-made
/// recording's spacing, its own escapes) goes through serde_json instead.
pub(crate) fn pretty_of_compact(compact: &str) -> String {
    let bytes = compact.as_bytes();
    // Pretty text of a result is about 1.6 times the compact one; room
    // for twice is taken (pages never written cost nothing), so that the
    // buffer is not copied to grow it.
    let mut out = Vec::with_capacity(bytes.len().saturating_mul(2).max(64));
    let mut depth = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        match b {
            b'"' => {
                let end = string_end(bytes, at + 1);
                out.extend_from_slice(&bytes[at..end]);
                at = end;
                continue;
            }
            b'[' | b'{' => {
                let close = if b == b'[' { b']' } else { b'}' };
                out.push(b);
                if bytes.get(at + 1) == Some(&close) {
                    out.push(close);
                    at += 2;
                    continue;
                }
                depth += 1;
                new_line(&mut out, depth);
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                new_line(&mut out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b',');
                new_line(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
        at += 1;
    }
    // Only ASCII bytes were added, each between whole characters of a
    // text that was UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Where the string opened before `from` ends: just past its closing
/// quote (or the text's end).
fn string_end(bytes: &[u8], mut from: usize) -> usize {
    while let Some(found) = memchr::memchr2(b'"', b'\\', &bytes[from..]) {
        let at = from + found;
        if bytes[at] == b'"' {
            return at + 1;
        }
        // An escape: the next byte is never the string's end.
        from = at + 2;
        if from >= bytes.len() {
            break;
        }
    }
    bytes.len()
}

fn new_line(out: &mut Vec<u8>, depth: usize) {
    out.push(b'\n');
    out.resize(out.len() + 2 * depth, b' ');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn both(value: &Value) -> (String, String) {
        let compact = serde_json::to_string(value).unwrap();
        (
            pretty_of_compact(&compact),
            serde_json::to_string_pretty(value).unwrap(),
        )
    }

    #[test]
    fn lays_out_what_serde_json_lays_out() {
        for value in [
            json!({"a": [1, 2, {"b": null, "c": [], "d": {}}], "e": "x\"y\\z\n,:[]{}"}),
            json!([]),
            json!({}),
            json!([[[]], [{}], {"k": [[1]]}]),
            json!("alone \\\" quoted"),
            json!(["\\", "\\\\", "\"", "é ☃ 😀", "\u{1}\u{1f}\u{85}"]),
            json!([
                1.5,
                1e300,
                -0.0,
                12345678901234567890u64,
                -9223372036854775808i64
            ]),
            json!(null),
            json!(true),
        ] {
            let (fast, serde) = both(&value);
            assert_eq!(fast, serde, "{value}");
        }
    }

    proptest! {
        #[test]
        fn equals_serde_json_pretty(value in crate::arbitrary_json::any_json()) {
            let (fast, serde) = both(&value);
            prop_assert_eq!(fast, serde);
        }
    }
}
