//! Reading an endpoint's answer the way real models write it: the one JSON
//! object inside a ```` ```json ```` fence or inside prose is the answer.
//! Two different objects, or none, is no answer. Only endpoint answers are
//! read so; the sim's are read exactly, as the references read them.

use serde_json::Value;

pub use crate::bus::event::values::Extracted;

/// What the text of an answer holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Lenient {
    /// The whole text is JSON: read as it is, nothing extracted.
    Whole,
    /// One JSON object, found as `Extracted` says.
    Found(Value, Extracted),
    /// Two different JSON objects: which one is the answer is anybody's
    /// guess.
    Several,
    /// No JSON object: `tries` when the text looks like one that does not
    /// parse (a fence, a brace, an object cut short), otherwise plain prose.
    None { tries: bool },
}

/// Read `text` leniently.
pub(crate) fn read(text: &str) -> Lenient {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Lenient::None { tries: false };
    }
    if crate::pycompat::parse_model_text(trimmed).is_some() {
        return Lenient::Whole;
    }
    let fenced = fenced_objects(text);
    if !fenced.is_empty() {
        return one_of(fenced, Extracted::Fence);
    }
    let found = prose_objects(text);
    if !found.is_empty() {
        return one_of(found, Extracted::Prose);
    }
    Lenient::None {
        tries: looks_like_json(text),
    }
}

/// Whether text that is no JSON still tries to be: it opens a fence or an
/// object, or holds one cut short.
pub(crate) fn looks_like_json(text: &str) -> bool {
    let trimmed = text.trim_start();
    text.contains("```") || trimmed.starts_with('{') || trimmed.starts_with('[') || {
        // A brace that opens a quoted key, as an object cut short does.
        text.match_indices('{')
            .any(|(at, _)| text[at + 1..].trim_start().starts_with('"'))
    }
}

fn one_of(found: Vec<Value>, how: Extracted) -> Lenient {
    let first = &found[0];
    if found.iter().all(|value| value == first) {
        Lenient::Found(first.clone(), how)
    } else {
        Lenient::Several
    }
}

/// The JSON objects inside the text's code fences (```` ```json ````,
/// ```` ``` ```` or any other language tag), in order.
fn fenced_objects(text: &str) -> Vec<Value> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // The language tag runs to the end of the fence's line.
        let body_start = after.find('\n').map_or(after.len(), |n| n + 1);
        let body = &after[body_start..];
        let Some(close) = body.find("```") else {
            break;
        };
        if let Some(value @ Value::Object(_)) =
            crate::pycompat::parse_model_text(body[..close].trim())
        {
            found.push(value);
        }
        rest = &body[close + 3..];
    }
    found
}

/// The outermost balanced `{…}` spans of the text that parse as JSON
/// objects, in order. Braces inside strings do not count. One pass: a span
/// that does not parse is skipped whole, and a brace never closed ends the
/// search, so a hostile answer of many braces costs its length once.
fn prose_objects(text: &str) -> Vec<Value> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find('{') {
        let start = at + offset;
        let Some(end) = balanced_end(bytes, start) else {
            break;
        };
        if let Some(value @ Value::Object(_)) =
            crate::pycompat::parse_model_text(&text[start..=end])
        {
            found.push(value);
        }
        at = end + 1;
    }
    found
}

/// The index of the brace that closes the one opened at `start`, skipping
/// what is inside strings; none when the text ends first.
fn balanced_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_json_is_read_as_it_is() {
        assert_eq!(read(r#" {"verdict": "go"} "#), Lenient::Whole);
        assert_eq!(read("[1, 2]"), Lenient::Whole);
    }

    #[test]
    fn a_fenced_object_is_the_answer() {
        let text = "```json\n{\"verdict\": \"go\", \"note\": \"a } in a string\"}\n```";
        assert_eq!(
            read(text),
            Lenient::Found(
                json!({"verdict": "go", "note": "a } in a string"}),
                Extracted::Fence
            )
        );
        let bare = "Sure:\n```\n{\"a\": 1}\n```\nDone.";
        assert_eq!(
            read(bare),
            Lenient::Found(json!({"a": 1}), Extracted::Fence)
        );
    }

    #[test]
    fn an_object_in_prose_is_the_answer() {
        let text = "Here is my answer:\n{\"reply\": \"Refund {sent}\"}\nI hope this helps.";
        assert_eq!(
            read(text),
            Lenient::Found(json!({"reply": "Refund {sent}"}), Extracted::Prose)
        );
        let nested = "Plan: {\"tasks\": [{\"id\": \"t1\"}]} as asked.";
        assert_eq!(
            read(nested),
            Lenient::Found(json!({"tasks": [{"id": "t1"}]}), Extracted::Prose),
            "an object inside the answer is part of it, not another answer"
        );
    }

    #[test]
    fn two_different_objects_are_no_answer_and_the_same_one_twice_is_one() {
        assert_eq!(read("A: {\"a\": 1} or B: {\"b\": 2}"), Lenient::Several);
        assert_eq!(
            read("```json\n{\"a\": 1}\n```\nagain: ```json\n{\"a\": 1}\n```"),
            Lenient::Found(json!({"a": 1}), Extracted::Fence)
        );
    }

    #[test]
    fn text_that_tries_to_be_json_is_told_from_prose() {
        assert_eq!(read("Refund sent."), Lenient::None { tries: false });
        assert_eq!(read(""), Lenient::None { tries: false });
        for broken in [
            "```json\n{\"verdict\": \"go\",\n```",
            "{\"transfer_to\": \"billing\", \"mess",
            "I think {\"reply\": \"cut",
            "```json\n{\"reply\": ",
        ] {
            assert_eq!(read(broken), Lenient::None { tries: true }, "{broken}");
        }
    }

    #[test]
    fn hostile_text_does_not_panic() {
        for text in [
            "{", "}", "```", "``````", "{\"\\", "{{{{{", "é{\"a\"", "```\n```",
        ] {
            let _ = read(text);
        }
        let deep = "{".repeat(10_000);
        assert_eq!(read(&deep), Lenient::None { tries: true });
    }
}
