//! A model call's text as its `call_delta`s bring it, until the call
//! finishes and the pattern's own event (the validated contribution, the
//! turn, the answer) replaces it. Bounded: the first [`PARTIAL_CAP`] bytes
//! are kept, where the fields a pane shows begin. A pane reads the one JSON
//! field it shows (a contribution's `summary`) as far as it is written, or
//! the text itself when the model writes prose.

use crate::sanitize::clean;

/// The most of a call's text kept for showing; the rest is counted.
pub(crate) const PARTIAL_CAP: usize = 16 * 1024;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartialText {
    kept: String,
    /// Characters that came past the cap.
    dropped: u64,
    /// What the call is, shown before its text: a repair of an answer
    /// that failed its contract (`↻ repair 1/1: missing key "stance"`).
    note: Option<String>,
}

impl PartialText {
    pub(crate) fn push(&mut self, text: &str) {
        let room = PARTIAL_CAP.saturating_sub(self.kept.len());
        let mut cut = room.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        self.kept.push_str(&text[..cut]);
        self.dropped += text[cut..].chars().count() as u64;
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.note.is_none()
    }

    /// Say what the call is before its text, from its start.
    pub(crate) fn set_note(&mut self, note: String) {
        self.note = Some(note);
    }

    /// Characters written so far, those past the cap included.
    pub fn chars(&self) -> u64 {
        self.kept.chars().count() as u64 + self.dropped
    }

    /// What a pane shows of the text: the first of `keys` that the JSON
    /// object being written has as a string, as far as it is written; the
    /// text itself when it is prose; `None` while a JSON answer has not
    /// reached one of them. Cleaned for the terminal, its newlines spaces.
    pub(crate) fn shown(&self, keys: &[&str]) -> Option<String> {
        let text = self.text_shown(keys);
        let Some(note) = &self.note else {
            return text;
        };
        let note = clean(note).replace(['\n', '\t'], " ");
        Some(match text {
            Some(text) => format!("{note} · {text}"),
            None => note,
        })
    }

    fn text_shown(&self, keys: &[&str]) -> Option<String> {
        let text = self.kept.trim_start();
        let found = if text.starts_with('{') {
            let fields = top_level_strings(text);
            keys.iter()
                .find_map(|key| fields.iter().find(|(k, _)| k == key))
                .map(|(_, value)| value.clone())?
        } else {
            text.to_string()
        };
        let found = crate::secrets::scrub(&found).into_owned();
        let mut shown = clean(&found).replace(['\n', '\t'], " ");
        if self.dropped > 0 {
            shown.push('…');
        }
        Some(shown)
    }
}

/// The string fields of the JSON object `text` begins to write, at its
/// top level, in order, the last one as far as written. Lenient: it reads
/// what a model writes, stops where the text stops, and never fails.
fn top_level_strings(text: &str) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    let mut chars = text.chars().peekable();
    let mut depth = 0u32;
    // At depth 1: the next string is a key; a string after `:` is a value.
    let mut key_next = false;
    let mut key: Option<String> = None;
    let mut value_next = false;
    while let Some(c) = chars.next() {
        match c {
            '{' | '[' => {
                depth += 1;
                key_next = depth == 1 && c == '{';
                value_next = false;
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => key_next = true,
            ':' if depth == 1 => value_next = true,
            '"' => {
                let (string, closed) = read_string(&mut chars);
                if depth == 1 && key_next {
                    key = Some(string);
                    key_next = false;
                } else if depth == 1 && value_next {
                    if let Some(key) = key.take() {
                        fields.push((key, string));
                    }
                    value_next = false;
                }
                if !closed {
                    break;
                }
            }
            c if c.is_whitespace() => {}
            _ => value_next = false,
        }
    }
    fields
}

/// A JSON string after its opening quote, decoded as far as it goes, and
/// whether its closing quote came.
fn read_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> (String, bool) {
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return (out, true),
            '\\' => match chars.next() {
                None => break,
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if hex.len() < 4 {
                        break;
                    }
                    let code = u32::from_str_radix(&hex, 16).ok();
                    out.push(code.and_then(char::from_u32).unwrap_or('\u{fffd}'));
                }
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r' | 'b' | 'f') => {}
                Some(other) => out.push(other),
            },
            c => out.push(c),
        }
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str) -> PartialText {
        let mut partial = PartialText::default();
        // As deltas bring it: a few characters at a time.
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(3) {
            partial.push(&piece.iter().collect::<String>());
        }
        partial
    }

    #[test]
    fn a_field_reads_as_far_as_it_is_written() {
        let partial = written(
            "{\"agent\": \"risk_analyst\", \"stance\": \"caution\", \"confidence\": 0.7, \"summary\": \"Fraud is up \\u00e9\\n3% and the \\\"new\\\" flow is unte",
        );
        assert_eq!(
            partial.shown(&["summary"]).as_deref(),
            Some("Fraud is up é 3% and the \"new\" flow is unte")
        );
        assert_eq!(partial.shown(&["stance"]).as_deref(), Some("caution"));
        assert_eq!(partial.shown(&["answer"]), None);
        // Not yet at the summary.
        assert_eq!(written("{\"agent\": \"risk_an").shown(&["summary"]), None);
        assert_eq!(written("{\"summary").shown(&["summary"]), None);
        assert_eq!(
            written("{\"summary\": \"").shown(&["summary"]).as_deref(),
            Some("")
        );
    }

    #[test]
    fn only_top_level_fields_count_and_prose_is_itself() {
        let partial = written(
            "{\"args\": {\"reply\": \"nested\"}, \"notes\": [\"reply\", \"x\"], \"reply\": \"Refund issued",
        );
        assert_eq!(
            partial.shown(&["reply", "message"]).as_deref(),
            Some("Refund issued")
        );
        let partial = written("{\"transfer_to\": \"billing\", \"message\": \"Over to you\"}");
        assert_eq!(
            partial.shown(&["reply", "message"]).as_deref(),
            Some("Over to you")
        );
        let prose = written("  The launch can go ahead\u{1b}[2J once fraud\nis checked");
        assert_eq!(
            prose.shown(&["summary"]).as_deref(),
            Some("The launch can go ahead once fraud is checked")
        );
    }

    #[test]
    fn the_text_kept_is_bounded() {
        let mut partial = PartialText::default();
        partial.push("{\"summary\": \"");
        for _ in 0..10_000 {
            partial.push("é ok ");
        }
        assert!(partial.kept.len() <= PARTIAL_CAP);
        assert_eq!(partial.chars(), 13 + 10_000 * 5);
        let shown = partial.shown(&["summary"]).unwrap();
        assert!(shown.ends_with('…'), "{}", &shown[shown.len() - 20..]);
    }
}
