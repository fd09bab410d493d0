//! A model's text scrubbed as it streams in, a few characters at a time: a
//! secret split across two pieces must be caught as surely as one in a
//! single piece. The newest characters are held back until enough follows
//! them to tell whether they start a secret; a run of secret characters is
//! let out only once it has ended, masked whole. JSON escapes count as the
//! characters they stand for (`sk-\u0061bc…`), so text that decodes to a
//! secret is masked too. It never lets out a secret, and it lets out every
//! other character exactly once, in order.

use super::{MASK, Scrubber, WINDOW, is_active, registry};
use std::ops::Range;

/// Characters held back: one less than the shortest run that is masked,
/// so that any run crossing what was let out is seen whole before.
const HELD: usize = WINDOW - 1;

#[derive(Debug, Default)]
pub(crate) struct StreamScrubber {
    /// Text taken in and not let out yet.
    held: String,
}

impl StreamScrubber {
    /// Take `text` in; what may be let out now.
    pub(crate) fn push(&mut self, text: &str) -> String {
        if !is_active() && self.held.is_empty() {
            return text.to_string();
        }
        self.held.push_str(text);
        let registry = registry();
        let (out, rest) = split(&registry, &self.held, false);
        self.held = rest;
        out
    }

    /// The text has ended: whatever is still held, scrubbed.
    pub(crate) fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        if !is_active() {
            return held;
        }
        split(&registry(), &held, true).0
    }
}

/// What of `text` may go out (masked) and what must wait; everything goes
/// out at the `end`.
fn split(scrubber: &Scrubber, text: &str, end: bool) -> (String, String) {
    let units = units(text);
    let regions = masked(scrubber, text, &units);
    let mut cut = if end {
        text.len()
    } else {
        match units.len().checked_sub(HELD) {
            Some(first_held) if first_held > 0 => units[first_held].0,
            _ => 0,
        }
    };
    // A run that reaches past the cut may go on: hold it back whole.
    if let Some(crossing) = regions.iter().find(|r| r.start < cut && r.end > cut) {
        cut = crossing.start;
    }
    let mut out = String::with_capacity(cut);
    let mut from = 0;
    for region in regions.iter().filter(|r| r.end <= cut) {
        out.push_str(&text[from..region.start]);
        out.push_str(MASK);
        from = region.end;
    }
    out.push_str(&text[from..cut]);
    (out, text[cut..].to_string())
}

/// The characters of `text` as a JSON string would read them, each with
/// the byte where it starts: an escape is one character. An escape cut off
/// at the end is not a character yet.
fn units(text: &str) -> Vec<(usize, char)> {
    let mut units = Vec::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c != '\\' {
            units.push((at, c));
            continue;
        }
        let decoded = match chars.peek() {
            None => break,
            Some((_, 'u')) => {
                if text.len() < at + 6 {
                    break;
                }
                let code = text
                    .get(at + 2..at + 6)
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok());
                while chars.peek().is_some_and(|(i, _)| *i < at + 6) {
                    chars.next();
                }
                code.and_then(char::from_u32).unwrap_or('\u{fffd}')
            }
            Some(&(_, other)) => {
                chars.next();
                match other {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    other => other,
                }
            }
        };
        units.push((at, decoded));
    }
    units
}

/// The byte ranges of `text` to mask: secret runs in its characters as
/// written and as its escapes decode, merged.
fn masked(scrubber: &Scrubber, text: &str, units: &[(usize, char)]) -> Vec<Range<usize>> {
    let mut regions = scrubber.regions(text);
    if text.contains('\\') {
        let mut decoded = String::with_capacity(text.len());
        // The byte in `text` where each decoded character starts, and the
        // end of the last.
        let mut starts = Vec::with_capacity(units.len() + 1);
        let mut ends = Vec::with_capacity(units.len() + 1);
        for (i, (at, c)) in units.iter().enumerate() {
            starts.push((decoded.len(), *at));
            decoded.push(*c);
            let end = units.get(i + 1).map_or(text.len(), |next| next.0);
            ends.push((decoded.len(), end));
        }
        let raw_start = |d: usize| {
            starts
                .iter()
                .rev()
                .find(|(s, _)| *s <= d)
                .map_or(0, |p| p.1)
        };
        let raw_end = |d: usize| {
            ends.iter()
                .find(|(e, _)| *e >= d)
                .map_or(text.len(), |p| p.1)
        };
        for region in scrubber.regions(&decoded) {
            regions.push(raw_start(region.start)..raw_end(region.end));
        }
        regions.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(regions.len());
        for region in regions {
            super::push_merged(&mut merged, region);
        }
        regions = merged;
    }
    regions
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "sk-stream-7Hq2Lm9Xc4Vb8Nz1";

    fn scrubber() -> Scrubber {
        let mut scrubber = Scrubber::new();
        scrubber.add(SECRET);
        scrubber
    }

    /// `text` fed in pieces of `size` bytes (at character boundaries),
    /// through `scrubber`: what goes out, piece by piece.
    fn streamed(scrubber: &Scrubber, text: &str, size: usize) -> Vec<String> {
        let mut held = String::new();
        let mut out = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let mut at = size.min(rest.len());
            while !rest.is_char_boundary(at) {
                at += 1;
            }
            held.push_str(&rest[..at]);
            rest = &rest[at..];
            let (piece, kept) = split(scrubber, &held, false);
            out.push(piece);
            held = kept;
        }
        out.push(split(scrubber, &held, true).0);
        out
    }

    fn windows_of_the_secret(text: &str) -> Vec<String> {
        let chars: Vec<char> = SECRET.chars().collect();
        chars
            .windows(WINDOW)
            .map(|w| w.iter().collect::<String>())
            .filter(|w| text.contains(w.as_str()))
            .collect()
    }

    #[test]
    fn text_without_a_secret_goes_out_whole_and_in_order() {
        let text = "{\"summary\": \"Zürich is ready — ship it\", \"verdict\": \"go\"}";
        for size in [1, 2, 3, 7, 50] {
            let pieces = streamed(&scrubber(), text, size);
            assert_eq!(pieces.concat(), text, "pieces of {size}");
            assert!(pieces.len() > 1);
        }
        // Only the last few characters wait for more.
        let (out, held) = split(&scrubber(), "abcdefghijkl", false);
        assert_eq!((out.as_str(), held.as_str()), ("abcde", "fghijkl"));
    }

    #[test]
    fn a_secret_split_across_pieces_never_goes_out() {
        let text = format!(
            "{{\"summary\": \"the key is {SECRET}, and Bearer {}\"}}",
            &SECRET[4..16]
        );
        for size in 1..12 {
            let pieces = streamed(&scrubber(), &text, size);
            let all = pieces.concat();
            assert_eq!(windows_of_the_secret(&all), Vec::<String>::new(), "{all}");
            assert_eq!(
                all, "{\"summary\": \"the key is [redacted], and Bearer [redacted]\"}",
                "pieces of {size}"
            );
        }
    }

    #[test]
    fn a_secret_behind_json_escapes_never_goes_out() {
        let escaped: String = SECRET
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 3 == 0 {
                    format!("\\u{:04x}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect();
        let text = format!("{{\"summary\": \"key {escaped} end\"}}");
        for size in 1..9 {
            let all = streamed(&scrubber(), &text, size).concat();
            assert_eq!(
                all, "{\"summary\": \"key [redacted] end\"}",
                "pieces of {size}"
            );
        }
        // Escapes that decode to nothing secret go out as written.
        let plain = "{\"a\": \"line\\nnext \\u00e9t\\u00e9 \\\\ \\\"q\\\"\"}";
        assert_eq!(streamed(&scrubber(), plain, 2).concat(), plain);
    }
}
