//! Searching text the way every list, the details and the picker do: case
//! does not matter, and a match is shown by restyling the characters it
//! covers in a line already drawn, whatever its spans.

use super::theme;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::ops::Range;

/// A character as compared: case folded.
fn folded(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// Where `query` occurs in `text`, as character ranges, left to right and
/// not overlapping.
pub(crate) fn matches(text: &str, query: &str) -> Vec<Range<usize>> {
    let needle: Vec<char> = query.chars().map(folded).collect();
    if needle.is_empty() {
        return Vec::new();
    }
    let hay: Vec<char> = text.chars().map(folded).collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at + needle.len() <= hay.len() {
        if hay[at..at + needle.len()] == needle[..] {
            found.push(at..at + needle.len());
            at += needle.len();
        } else {
            at += 1;
        }
    }
    found
}

/// Whether `query` occurs in `text`.
pub(crate) fn contains(text: &str, query: &str) -> bool {
    !matches(text, query).is_empty()
}

/// `line` with every match of `query` (if any) in the found style.
pub(crate) fn highlight(line: Line<'static>, query: Option<&str>) -> Line<'static> {
    match query {
        Some(query) if !query.is_empty() => {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            let found = matches(&text, query);
            restyle(line, &found, theme::found())
        }
        _ => line,
    }
}

/// A list's row: its matches of `query` highlighted, and reversed when it
/// is the selected row of the focused list.
pub(crate) fn mark(line: Line<'static>, query: Option<&str>, selected: bool) -> Line<'static> {
    let line = highlight(line, query);
    if selected {
        line.patch_style(theme::selected())
    } else {
        line
    }
}

/// `line` with the characters in `ranges` (sorted, not overlapping)
/// patched with `style`.
pub(crate) fn restyle(line: Line<'static>, ranges: &[Range<usize>], style: Style) -> Line<'static> {
    if ranges.is_empty() {
        return line;
    }
    let Line {
        spans,
        style: line_style,
        alignment,
    } = line;
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut at = 0;
    for span in spans {
        let mut piece = String::new();
        let mut piece_found = false;
        for c in span.content.chars() {
            let found = ranges.iter().any(|r| r.contains(&at));
            if found != piece_found && !piece.is_empty() {
                out.push(styled(
                    std::mem::take(&mut piece),
                    span.style,
                    piece_found,
                    style,
                ));
            }
            piece_found = found;
            piece.push(c);
            at += 1;
        }
        if !piece.is_empty() {
            out.push(styled(piece, span.style, piece_found, style));
        }
    }
    let mut line = Line::from(out).style(line_style);
    line.alignment = alignment;
    line
}

fn styled(text: String, base: Style, found: bool, style: Style) -> Span<'static> {
    if found {
        Span::styled(text, base.patch(style))
    } else {
        Span::styled(text, base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Modifier;

    #[test]
    fn matches_ignore_case_and_count_characters() {
        assert_eq!(matches("Enrich eNRICH", "enrich"), vec![0..6, 7..13]);
        assert_eq!(matches("aaaa", "aa"), vec![0..2, 2..4]);
        assert_eq!(matches("überall Über", "über"), vec![0..4, 8..12]);
        assert!(matches("anything", "").is_empty());
        assert!(contains("us-enrich", "ENR"));
        assert!(!contains("us-orders", "enr"));
    }

    #[test]
    fn a_match_across_spans_is_restyled_and_the_text_kept() {
        let line = Line::from(vec![
            Span::styled("us-en", theme::dim()),
            Span::raw("rich failed"),
        ]);
        let lit = highlight(line.clone(), Some("enrich"));
        let text: String = lit.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "us-enrich failed");
        let found: String = lit
            .spans
            .iter()
            .filter(|s| s.style.add_modifier.contains(Modifier::UNDERLINED))
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(found, "enrich");
        assert!(
            lit.spans[0].style.add_modifier.is_empty(),
            "what does not match keeps its style"
        );
        assert_eq!(highlight(line.clone(), None), line);
        assert_eq!(highlight(line.clone(), Some("zzz")), line);
    }
}
