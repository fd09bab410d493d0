//! Text from models and scenarios is untrusted: before it reaches a terminal,
//! escape sequences (CSI, OSC such as the clipboard-writing OSC 52, DCS and
//! friends), every other control character (C0, DEL, C1) and bidirectional
//! controls are removed. Panes pass every such string through [`clean`], and
//! the terminal backend filters again as a last line of defence; messages on
//! stderr go through [`clean_lines`], which keeps their line breaks and tabs.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
const C1_CSI: char = '\u{9b}';
const C1_OSC: char = '\u{9d}';
const C1_ST: char = '\u{9c}';

/// `text` on one line with everything that could steer the terminal
/// removed. Tabs, newlines and carriage returns become spaces: panes lay
/// text out themselves.
pub(crate) fn clean(text: &str) -> Cow<'_, str> {
    strip(text, Layout::Flatten)
}

/// `text` with everything that could steer the terminal removed but its
/// newlines and tabs, for messages printed as lines. A carriage return is
/// removed: it would let a line overwrite what precedes it.
pub(crate) fn clean_lines(text: &str) -> Cow<'_, str> {
    strip(text, Layout::Keep)
}

/// Whether `c` may not be shown as it is.
pub fn needs_cleaning(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// The invisible characters that reorder text (Unicode's bidirectional
/// embeddings, overrides, isolates and marks): they make a line read other
/// than it is stored ("Trojan Source").
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Tab, newline and carriage return become a space.
    Flatten,
    /// Tab and newline stay; carriage return goes.
    Keep,
}

impl Layout {
    fn allows(self, c: char) -> bool {
        self == Layout::Keep && matches!(c, '\n' | '\t')
    }
}

fn strip(text: &str, layout: Layout) -> Cow<'_, str> {
    if !text.chars().any(|c| needs_cleaning(c) && !layout.allows(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // Every escape sequence but CSI and the strings is ESC and one
            // more character (ESC c resets the terminal, ESC 7 saves the
            // cursor, ...).
            ESC => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                _ => {}
            },
            C1_CSI => skip_csi(&mut chars),
            C1_OSC | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if layout.allows(c) => out.push(c),
            '\t' | '\n' | '\r' if layout == Layout::Flatten => out.push(' '),
            c if needs_cleaning(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
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

/// An argument as a person reads it: as it is when plain, quoted when a
/// space, a quote or anything unusual could make it look like something
/// else.
pub(crate) fn shell_word(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+%".contains(c));
    if plain {
        arg.to_string()
    } else {
        serde_json::Value::from(arg).to_string()
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
            (
                "arabic mark \u{61c}and isolate \u{2067}x\u{2069}",
                "arabic mark and isolate x",
            ),
            ("c1 controls \u{85}\u{8d}\u{9a}gone", "c1 controls gone"),
            ("reset\u{1b}cterminal", "resetterminal"),
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
        assert!(matches!(clean_lines("two\n\tlines"), Cow::Borrowed(_)));
    }

    #[test]
    fn lines_keep_newlines_and_tabs_only() {
        let table = [
            ("error:\n\tat line 2", "error:\n\tat line 2"),
            ("safe\revil", "safeevil"),
            ("red\u{1b}[31mtext\u{1b}[0m\nnext", "redtext\nnext"),
            ("bell\u{07}\u{0b}\u{0c}\u{7f}\u{9b}2J!", "bell!"),
            ("\u{202e}txt.exe\u{202c}\n", "txt.exe\n"),
        ];
        for (input, want) in table {
            assert_eq!(clean_lines(input), want, "{input:?}");
        }
    }

    /// Text biased towards what a hostile model would send: escape
    /// sequences (terminated or not), C0 and C1 controls, DEL and bidi
    /// controls, between ordinary and wide characters.
    fn hostile() -> impl Strategy<Value = String> {
        const BIDI: [char; 12] = [
            '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ];
        let piece = prop_oneof![
            "[a-z0-9 .,:é日😀]{0,6}",
            "\\x1b\\[[0-9;?]{0,6}[ -~]?",
            "\\x1b[\\]PX^_][0-9;a-z]{0,8}(\\x07|\\x1b\\\\|\\x{9c})?",
            "\\x1b[ -~]?",
            "\\x{9b}[0-9;]{0,4}[@-~]?",
            "[\\x{90}\\x{98}\\x{9d}\\x{9e}\\x{9f}][a-z0-9;]{0,6}",
            "[\\x{80}-\\x{9f}]",
            "[\\x00-\\x1f\\x7f]",
            prop::sample::select(&BIDI[..]).prop_map(String::from),
            any::<char>().prop_map(String::from),
        ];
        prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    /// Text with nothing to clean (but newlines and tabs, which only
    /// [`clean`] changes).
    fn shown_as_is(with_layout: bool) -> impl Strategy<Value = String> {
        let c = any::<char>().prop_filter("shown as it is", |c| !needs_cleaning(*c));
        let c = if with_layout {
            prop_oneof![4 => c, 1 => prop::sample::select(&['\n', '\t'][..])].boxed()
        } else {
            c.boxed()
        };
        prop::collection::vec(c, 0..40).prop_map(String::from_iter)
    }

    use proptest::prelude::*;

    /// The characters no cleaned text may hold, listed independently of
    /// [`needs_cleaning`]: C0 (ESC among them), DEL, C1 and the bidi
    /// controls.
    fn steers(c: char) -> bool {
        matches!(c,
            '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{61c}' | '\u{200e}' | '\u{200f}'
            | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn nothing_that_steers_a_terminal_survives(text in hostile()) {
            let one_line = clean(&text);
            prop_assert!(!one_line.chars().any(steers), "{:?} -> {:?}", text, one_line);
            let lines = clean_lines(&text);
            prop_assert!(
                !lines.chars().any(|c| steers(c) && c != '\n' && c != '\t'),
                "{:?} -> {:?}", text, lines
            );
        }

        #[test]
        fn cleaning_twice_changes_nothing(text in hostile()) {
            let once = clean(&text);
            prop_assert_eq!(clean(&once), once.as_ref());
            let once = clean_lines(&text);
            prop_assert_eq!(clean_lines(&once), once.as_ref());
        }

        #[test]
        fn clean_text_comes_back_unchanged(plain in shown_as_is(false), lines in shown_as_is(true)) {
            prop_assert!(matches!(clean(&plain), Cow::Borrowed(t) if t == plain));
            prop_assert!(matches!(clean_lines(&lines), Cow::Borrowed(t) if t == lines));
        }
    }
}
