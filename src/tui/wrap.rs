//! Breaking styled lines into rows of a given width, at spaces where it
//! can and inside a word only when the word is wider than a row. Panes that
//! scroll text wrap it here rather than in the paragraph widget, so they
//! know exactly how many rows it takes: a scroll that stops at the last row
//! and a mark that says more is below both need that count.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `lines` as rows of at most `width` columns; an empty line stays one
/// empty row. Nothing fits in no columns: a width of 0 gives no rows.
pub(crate) fn wrap(lines: &[Line<'_>], width: usize) -> Vec<Line<'static>> {
    if width == 0 {
        return Vec::new();
    }
    lines
        .iter()
        .flat_map(|line| wrap_line(line, width))
        .collect()
}

/// The first `height` of `rows`; when some are left out, the last row
/// shown ends with `…` (within `width` columns), so a cut text says so.
pub(crate) fn clip(
    mut rows: Vec<Line<'static>>,
    height: usize,
    width: usize,
) -> Vec<Line<'static>> {
    if rows.len() <= height {
        return rows;
    }
    rows.truncate(height);
    if let Some(last) = rows.last_mut() {
        let style = last.spans.last().map_or(Style::default(), |s| s.style);
        let mut room = width.saturating_sub(1);
        let mut spans = Vec::new();
        for span in last.spans.drain(..) {
            let mut kept = String::new();
            for c in span.content.chars() {
                let w = char_width(c);
                if w > room {
                    room = 0;
                    break;
                }
                room -= w;
                kept.push(c);
            }
            let full = kept.chars().count() == span.content.chars().count();
            spans.push(Span::styled(kept, span.style));
            if !full {
                break;
            }
        }
        if width > 0 {
            spans.push(Span::styled("…", style));
        }
        last.spans = spans;
    }
    rows
}

/// One character of a line and the style of its span.
type Styled = (char, Style);

fn wrap_line(line: &Line<'_>, width: usize) -> Vec<Line<'static>> {
    let chars: Vec<Styled> = line
        .spans
        .iter()
        .flat_map(|span| span.content.chars().map(move |c| (c, span.style)))
        .collect();
    let mut rows: Vec<Vec<Styled>> = Vec::new();
    let mut row: Vec<Styled> = Vec::new();
    let mut used = 0;
    for token in tokens(&chars) {
        let token_width: usize = token.iter().map(|(c, _)| char_width(*c)).sum();
        let blank = token.iter().all(|(c, _)| c.is_whitespace());
        if blank {
            // Spaces at a break are dropped: the row ends or the next starts.
            if !rows.is_empty() && used == 0 {
                continue;
            }
            if used + token_width <= width {
                row.extend_from_slice(token);
                used += token_width;
            } else {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            continue;
        }
        if used + token_width <= width {
            row.extend_from_slice(token);
            used += token_width;
            continue;
        }
        if used > 0 {
            rows.push(std::mem::take(&mut row));
            used = 0;
        }
        // A word wider than a row is cut where the row is full.
        for &(c, style) in token {
            let w = char_width(c);
            if used + w > width && used > 0 {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            row.push((c, style));
            used += w;
        }
    }
    if !row.is_empty() || rows.is_empty() {
        rows.push(row);
    }
    rows.into_iter()
        .map(|mut row| {
            while row.last().is_some_and(|(c, _)| c.is_whitespace()) {
                row.pop();
            }
            Line::from(spans(&row)).style(line.style)
        })
        .collect()
}

/// Runs of spaces and runs of anything else.
fn tokens(chars: &[Styled]) -> impl Iterator<Item = &[Styled]> {
    chars.chunk_by(|a, b| a.0.is_whitespace() == b.0.is_whitespace())
}

/// Characters back into spans, one per run of the same style.
fn spans(row: &[Styled]) -> Vec<Span<'static>> {
    row.chunk_by(|a, b| a.1 == b.1)
        .map(|run| Span::styled(run.iter().map(|(c, _)| *c).collect::<String>(), run[0].1))
        .collect()
}

fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Modifier;

    fn text(rows: &[Line<'_>]) -> Vec<String> {
        rows.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn breaks_at_spaces_and_drops_them_at_the_break() {
        let rows = wrap(&[Line::raw("the quick brown fox jumps")], 10);
        assert_eq!(text(&rows), ["the quick", "brown fox", "jumps"]);
        let rows = wrap(&[Line::raw("  indented text")], 40);
        assert_eq!(text(&rows), ["  indented text"], "leading spaces stay");
    }

    #[test]
    fn cuts_a_word_wider_than_a_row_and_keeps_wide_characters_whole() {
        let rows = wrap(&[Line::raw("abcdefghij kl")], 4);
        assert_eq!(text(&rows), ["abcd", "efgh", "ij", "kl"]);
        let rows = wrap(&[Line::raw("日本語テキスト")], 5);
        assert_eq!(text(&rows), ["日本", "語テ", "キス", "ト"]);
        for row in &rows {
            assert!(row.width() <= 5);
        }
    }

    #[test]
    fn keeps_styles_and_empty_lines() {
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let line = Line::from(vec![Span::styled("stop ", bold), Span::raw("no agreement")]);
        let rows = wrap(&[line, Line::raw("")], 8);
        assert_eq!(text(&rows), ["stop no", "agreemen", "t", ""]);
        assert_eq!(rows[0].spans[0].style, bold);
        assert_eq!(rows[0].spans[1].content, "no");
        assert!(wrap(&[Line::raw("x")], 0).is_empty());
    }

    #[test]
    fn a_clipped_text_ends_with_an_ellipsis() {
        let rows = wrap(&[Line::raw("one two three four five six")], 9);
        assert_eq!(text(&rows), ["one two", "three", "four five", "six"]);
        assert_eq!(text(&clip(rows.clone(), 4, 9)), text(&rows), "all fits");
        assert_eq!(
            text(&clip(rows.clone(), 3, 9)),
            ["one two", "three", "four fiv…"]
        );
        assert_eq!(text(&clip(rows, 2, 9)), ["one two", "three…"]);
    }
}
