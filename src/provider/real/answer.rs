//! What a real worker's answer must be, and how its words are shown: the
//! answer is a JSON object (001's `worker_bad_result` otherwise), scrubbed
//! of secrets as it enters; a body or a stderr quoted in an error is cut
//! short and cleaned of everything that could steer a terminal.

use crate::provider::WorkerError;
use serde_json::Value;

/// The most characters of a body or of stderr an error quotes.
const QUOTED_CHARS: usize = 300;

/// How many of stderr's last lines an error quotes.
pub(crate) const STDERR_LINES: usize = 5;

/// Where quoted words go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shown {
    /// `": words"`, or nothing when there are none.
    AfterColon,
}

/// The answer in `bytes` when it is a JSON object.
pub(crate) fn object(bytes: &[u8]) -> Result<Value, WorkerError> {
    let bad = |detail: String| Err(WorkerError::BadResult { detail });
    let Ok(text) = std::str::from_utf8(bytes) else {
        return bad("the answer is not UTF-8 text".into());
    };
    if text.trim().is_empty() {
        return bad("the answer is empty; expected a JSON object".into());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(mut value @ Value::Object(_)) => {
            crate::secrets::scrub_json(&mut value);
            Ok(value)
        }
        Ok(other) => bad(format!(
            "the answer is {}; expected a JSON object",
            kind(&other)
        )),
        Err(e) => bad(format!(
            "the answer is not JSON ({e}){}",
            quoted(bytes, Shown::AfterColon)
        )),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The start of `bytes` as text to quote: scrubbed, cleaned, short.
pub(crate) fn quoted(bytes: &[u8], shown: Shown) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = crate::secrets::scrub(text.trim());
    let text = shorten(crate::sanitize::clean(&text).trim());
    match shown {
        Shown::AfterColon if text.is_empty() => String::new(),
        Shown::AfterColon => format!(": {text}"),
    }
}

/// At most [`QUOTED_CHARS`] characters of `text`, marked when cut.
pub(crate) fn shorten(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(QUOTED_CHARS).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// The last [`STDERR_LINES`] lines of `bytes` that say something, cleaned
/// and joined with ` | ` (an error is one line), at most
/// [`QUOTED_CHARS`] characters from their end.
pub(crate) fn last_lines(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = crate::secrets::scrub(&text);
    let lines: Vec<String> = text
        .lines()
        .map(|line| crate::sanitize::clean(line).trim().to_string())
        .filter(|line| !line.is_empty())
        .collect();
    let start = lines.len().saturating_sub(STDERR_LINES);
    let joined = lines[start..].join(" | ");
    let count = joined.chars().count();
    if count > QUOTED_CHARS {
        let tail: String = joined.chars().skip(count - QUOTED_CHARS).collect();
        format!("…{tail}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detail(result: Result<Value, WorkerError>) -> String {
        match result {
            Err(WorkerError::BadResult { detail }) => detail,
            other => panic!("expected a bad result, got {other:?}"),
        }
    }

    #[test]
    fn only_a_json_object_is_an_answer() {
        assert_eq!(
            object(br#" {"price": 3} "#).unwrap(),
            serde_json::json!({"price": 3})
        );
        assert_eq!(
            detail(object(b"[1, 2]")),
            "the answer is a list; expected a JSON object"
        );
        assert_eq!(
            detail(object(b"\"ok\"")),
            "the answer is a string; expected a JSON object"
        );
        assert_eq!(
            detail(object(b"  \n")),
            "the answer is empty; expected a JSON object"
        );
        assert_eq!(
            detail(object(&[0xff, 0xfe])),
            "the answer is not UTF-8 text"
        );
        let garbage = detail(object(b"<html>\x1b]52;c;aGk=\x07oops</html>"));
        assert!(
            garbage
                .starts_with("the answer is not JSON (expected value at line 1 column 1): <html>"),
            "{garbage}"
        );
        assert!(!garbage.contains('\u{1b}'), "cleaned: {garbage:?}");
    }

    #[test]
    fn stderr_keeps_its_last_lines_cleaned_and_short() {
        let stderr = b"one\n\ntwo\nthree\nfour\nfive\nsix \x1b[31mred\x1b[0m\n";
        assert_eq!(last_lines(stderr), "two | three | four | five | six red");
        let long = "x".repeat(1000);
        let tail = last_lines(long.as_bytes());
        assert_eq!(tail.chars().count(), QUOTED_CHARS + 1);
        assert!(tail.starts_with('…'));
        assert_eq!(last_lines(b""), "");
    }
}
