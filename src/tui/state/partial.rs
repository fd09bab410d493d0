//! A model call's text as its `call_delta`s bring it, until the call
//! finishes and the pattern's own event (the validated answer of a seat,
//! a turn, a step) replaces it. Bounded: the first [`PARTIAL_CAP`] bytes
//! are kept, where the fields a pane shows begin. A pane reads the one JSON
//! field it shows (e.g. a seat's `summary`) as far as it is written, or
//! the text itself when the model writes prose. A reasoning model's
//! reasoning is kept apart, its latest [`REASONING_TAIL`] bytes only: a
//! pane shows where the thinking has got to until the answer begins.

use crate::sanitize::clean;

/// The most of a call's text kept for showing; the rest is counted.
pub(crate) const PARTIAL_CAP: usize = 16 * 1024;

/// The most of a call's reasoning kept for showing: its end.
pub(crate) const REASONING_TAIL: usize = 4 * 1024;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartialText {
    kept: String,
    /// Characters that came past the cap.
    dropped: u64,
    /// The end of the reasoning so far, between one and two
    /// [`REASONING_TAIL`]s long once that much came.
    reasoning: String,
    /// What the call is, shown before its text: a repair of an answer
    /// that failed its contract (`↻ repair 1/1: missing key "summary"`).
    note: Option<String>,
}

impl PartialText {
    /// Reasoning text, never mixed into the answer.
    pub(crate) fn push_reasoning(&mut self, text: &str) {
        self.reasoning.push_str(text);
        if self.reasoning.len() > 2 * REASONING_TAIL {
            // Cut rarely, so that a long reasoning costs no more than
            // copying it twice.
            let mut cut = self.reasoning.len() - REASONING_TAIL;
            while !self.reasoning.is_char_boundary(cut) {
                cut += 1;
            }
            self.reasoning.drain(..cut);
        }
    }

    /// What a pane shows while the model reasons and its answer has not
    /// begun: the end of its reasoning, cleaned for the terminal, its
    /// newlines spaces. `None` once the answer has begun, or without any.
    pub(crate) fn reasoning_shown(&self) -> Option<String> {
        if !self.kept.trim().is_empty() || self.reasoning.trim().is_empty() {
            return None;
        }
        let found = crate::secrets::scrub(&self.reasoning).into_owned();
        Some(clean(found.trim()).replace(['\n', '\t'], " "))
    }

    pub(crate) fn push(&mut self, text: &str) {
        let room = PARTIAL_CAP.saturating_sub(self.kept.len());
        let mut cut = room.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        self.kept.push_str(&text[..cut]);
        self.dropped += text[cut..].chars().count() as u64;
    }

    /// Neither answer nor reasoning has come.
    pub(crate) fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.reasoning.is_empty() && self.note.is_none()
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
        let Some(note) = self.note_shown() else {
            return text;
        };
        Some(match text {
            Some(text) => format!("{note} · {text}"),
            None => note,
        })
    }

    /// What the call is (a repair), cleaned for the terminal.
    pub(crate) fn note_shown(&self) -> Option<String> {
        let note = self.note.as_deref()?;
        Some(clean(note).replace(['\n', '\t'], " "))
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
#[path = "partial_tests.rs"]
mod tests;
