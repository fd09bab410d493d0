//! A document `y` copies or `w` writes, in both its forms, and how text
//! leaves the dashboard: scrubbed of every secret, and to the clipboard as
//! an OSC 52 sequence. It knows nothing of runs or screens.

use base64::Engine;
use std::path::Path;

/// The most a copy sends through the terminal: beyond this, terminals
/// drop or cut an OSC 52 sequence, so `w` is the way.
pub(crate) const MAX_COPY: usize = 100_000;

/// A document to write, in both forms; the path's extension chooses.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Document {
    /// What it is, for the default file name: `result`, `log`, `compare`.
    pub(crate) what: &'static str,
    pub(crate) json: String,
    pub(crate) markdown: String,
}

impl Document {
    /// The text to write at `path`: Markdown for `.md`, JSON otherwise,
    /// scrubbed of secrets.
    pub(crate) fn for_path(&self, path: &Path) -> String {
        let markdown = path
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("md") || x.eq_ignore_ascii_case("markdown"));
        let mut text = if markdown {
            self.markdown.clone()
        } else {
            self.json.clone()
        };
        if !text.ends_with('\n') {
            text.push('\n');
        }
        scrubbed(&text)
    }
}

/// `text` with every registered secret masked.
pub(crate) fn scrubbed(text: &str) -> String {
    crate::secrets::scrub(text).into_owned()
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard, or
/// `Err` with its size when it is too big to send.
pub(crate) fn osc52(text: &str) -> Result<String, usize> {
    if text.len() > MAX_COPY {
        return Err(text.len());
    }
    let payload = base64::engine::general_purpose::STANDARD.encode(text);
    Ok(format!("\u{1b}]52;c;{payload}\u{07}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_an_osc_52_sequence_of_the_base64_text_and_big_ones_are_refused() {
        assert_eq!(osc52("hi").unwrap(), "\u{1b}]52;c;aGk=\u{07}");
        let big = "x".repeat(MAX_COPY + 1);
        assert_eq!(osc52(&big), Err(MAX_COPY + 1));
    }

    #[test]
    fn the_extension_chooses_markdown_or_json() {
        let document = Document {
            what: "result",
            json: "{}".into(),
            markdown: "# r".into(),
        };
        assert_eq!(document.for_path(Path::new("out.md")), "# r\n");
        assert_eq!(document.for_path(Path::new("OUT.MD")), "# r\n");
        assert_eq!(document.for_path(Path::new("out.json")), "{}\n");
        assert_eq!(document.for_path(Path::new("out")), "{}\n");
    }
}
