//! Text from models and scenarios is untrusted: before it reaches the
//! terminal, escape sequences (CSI, OSC such as the clipboard-writing OSC 52,
//! DCS and friends), other control characters and bidirectional overrides are
//! removed. Panes pass every such string through [`clean`]; the terminal
//! backend filters again as a last line of defence.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
const C1_CSI: char = '\u{9b}';
const C1_OSC: char = '\u{9d}';
const C1_ST: char = '\u{9c}';

/// `text` with everything that could steer the terminal removed. Tabs and
/// newlines become spaces: panes lay text out themselves.
pub fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_cleaning) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                _ => {}
            },
            C1_CSI => skip_csi(&mut chars),
            C1_OSC | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\t' | '\n' | '\r' => out.push(' '),
            c if needs_cleaning(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `c` may not be shown as it is.
pub fn needs_cleaning(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Skip a control sequence's parameters up to and including its final byte.
fn skip_csi(chars: &mut impl Iterator<Item = char>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
    }
}

/// Skip an OSC/DCS/SOS/PM/APC string up to its terminator: BEL, ESC \ or ST.
fn skip_string(chars: &mut std::iter::Peekable<impl Iterator<Item = char>>) {
    while let Some(c) = chars.next() {
        match c {
            BEL | C1_ST => break,
            ESC => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_escape_sequences_and_controls() {
        let table = [
            ("plain text", "plain text"),
            ("clip\u{1b}]52;c;ZXZpbA==\u{07}board", "clipboard"),
            ("clip\u{1b}]52;c;ZXZpbA==\u{1b}\\board", "clipboard"),
            ("wipe\u{1b}[2Jscreen", "wipescreen"),
            ("red\u{1b}[31;1mtext\u{1b}[0m", "redtext"),
            ("title\u{1b}]0;pwned\u{07}", "title"),
            ("c1\u{9b}31mcsi", "c1csi"),
            ("bell\u{07}null\u{0}del\u{7f}", "bellnulldel"),
            ("tab\tnew\nline", "tab new line"),
            ("bidi \u{202e}gnirts", "bidi gnirts"),
            ("dcs\u{1b}Pq#0;2;0;0;0\u{1b}\\end", "dcsend"),
            ("unterminated \u{1b}]52;c;abc", "unterminated "),
            ("emoji 😀 and é stay", "emoji 😀 and é stay"),
        ];
        for (input, want) in table {
            assert_eq!(clean(input), want, "{input:?}");
        }
    }

    #[test]
    fn clean_text_is_not_copied() {
        assert!(matches!(clean("nothing to do"), Cow::Borrowed(_)));
    }
}
