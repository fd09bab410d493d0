//! Details: the selected item as pretty JSON (a seat's answer, an event or
//! the result document), cleaned for the terminal, in a modal that scrolls
//! by line and by page, to the top and the end, and searches: every match
//! highlighted, the current one marked, the next one a key away.

use super::frame_box;
use crate::sanitize::clean;
use crate::tui::keymap::Action;
use crate::tui::layout::centered;
use crate::tui::search;
use crate::tui::selection::Find;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::ops::Range;
use unicode_width::UnicodeWidthChar;

/// The details being read: the text, how far it is scrolled, and its
/// search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DetailsView {
    /// The text's lines, cleaned.
    lines: Vec<String>,
    /// The first screen row shown.
    pub(crate) scroll: usize,
    /// The search, being typed or kept; empty for none.
    pub query: String,
    /// Whether the search is being typed.
    pub(crate) typing: bool,
    /// Whether a key changed the search or moved to a match since it was
    /// opened.
    pub(crate) edited: bool,
    /// The match moved to: its line and its first character.
    current: Option<(usize, usize)>,
}

/// One screen row of the text: characters `chars` of line `line`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Row {
    line: usize,
    chars: Range<usize>,
}

impl DetailsView {
    pub(crate) fn new(text: &str) -> DetailsView {
        DetailsView {
            lines: text.lines().map(|l| clean(l).into_owned()).collect(),
            ..DetailsView::default()
        }
    }

    /// The text shown.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Scroll by a line or a page, to the top or the end, on a `screen` of
    /// that size.
    pub(crate) fn navigate(&mut self, action: Action, screen: Rect) {
        let (rows, page) = self.rows_and_page(screen);
        let last = rows.len().saturating_sub(page);
        self.scroll = match action {
            Action::Up => self.scroll.saturating_sub(1),
            Action::Down => self.scroll + 1,
            Action::PageUp => self.scroll.saturating_sub(page),
            Action::PageDown => self.scroll + page,
            Action::Top => 0,
            Action::Bottom => last,
            _ => self.scroll,
        }
        .min(last);
    }

    /// Move to a match of the search where `how` says, going round the
    /// end, and scroll it into view; whether there is one. An empty query
    /// clears the search.
    pub(crate) fn find(&mut self, how: Find, screen: Rect) -> bool {
        let found = self.matches();
        if found.is_empty() {
            self.current = None;
            return false;
        }
        let (rows, page) = self.rows_and_page(screen);
        // From the current match, or from the top of the page.
        let from = self.current.unwrap_or_else(|| {
            rows.get(self.scroll)
                .map_or((0, 0), |row| (row.line, row.chars.start))
        });
        let at = |(line, range): &(usize, Range<usize>)| (*line, range.start);
        let next = match how {
            Find::Here => found.iter().find(|m| at(m) >= from),
            Find::Next => found.iter().find(|m| at(m) > from),
            Find::Previous => found.iter().rev().find(|m| at(m) < from),
        };
        let chosen = next.or(match how {
            Find::Previous => found.last(),
            _ => found.first(),
        });
        let Some(chosen) = chosen else {
            return false;
        };
        let (line, start) = at(chosen);
        self.current = Some((line, start));
        let row = rows
            .iter()
            .position(|r| r.line == line && r.chars.contains(&start))
            .unwrap_or(0);
        if row < self.scroll || row >= self.scroll + page {
            // A little of what comes before the match stays in view.
            self.scroll = row.saturating_sub(2).min(rows.len().saturating_sub(page));
        }
        true
    }

    /// Forget the search.
    pub(crate) fn clear_search(&mut self) {
        self.query.clear();
        self.typing = false;
        self.edited = false;
        self.current = None;
    }

    /// Every match of the search: its line and its characters.
    fn matches(&self) -> Vec<(usize, Range<usize>)> {
        if self.query.is_empty() {
            return Vec::new();
        }
        self.lines
            .iter()
            .enumerate()
            .flat_map(|(i, line)| {
                search::matches(line, &self.query)
                    .into_iter()
                    .map(move |m| (i, m))
            })
            .collect()
    }

    fn rows_and_page(&self, screen: Rect) -> (Vec<Row>, usize) {
        let (text, _) = areas(screen, self.searching());
        (
            rows(&self.lines, usize::from(text.width)),
            usize::from(text.height).max(1),
        )
    }

    /// Whether a line under the text shows the search.
    fn searching(&self) -> bool {
        self.typing || !self.query.is_empty()
    }
}

/// The lines cut into rows of at most `width` columns, after a space
/// where a row has one past the line's indentation, else inside a word.
fn rows(lines: &[String], width: usize) -> Vec<Row> {
    let width = width.max(1);
    let mut rows = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let chars: Vec<(char, usize)> = line.chars().map(|c| (c, c.width().unwrap_or(0))).collect();
        let lead = chars.iter().take_while(|(c, _)| *c == ' ').count();
        let mut start = 0;
        loop {
            let mut end = start;
            let mut used = 0;
            while end < chars.len() && (end == start || used + chars[end].1 <= width) {
                used += chars[end].1;
                end += 1;
            }
            if end < chars.len()
                && let Some(after_space) = (start.max(lead) + 1..end)
                    .rev()
                    .find(|&k| chars[k - 1].0 == ' ')
            {
                end = after_space;
            }
            rows.push(Row {
                line: i,
                chars: start..end,
            });
            if end >= chars.len() {
                break;
            }
            start = end;
        }
    }
    rows
}

/// The text's area and the search line's (empty when there is none),
/// inside the modal on a `screen` of that size.
fn areas(screen: Rect, searching: bool) -> (Rect, Rect) {
    let area = centered(screen, 100, 40);
    let inner = Rect {
        x: area.x.saturating_add(1),
        y: area.y.saturating_add(1),
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    };
    let search_rows = u16::from(searching).min(inner.height);
    let text = Rect {
        height: inner.height - search_rows,
        ..inner
    };
    let search = Rect {
        y: text.bottom(),
        height: search_rows,
        ..inner
    };
    (text, search)
}

pub(crate) fn draw(frame: &mut Frame, screen: Rect, view: &DetailsView) {
    let area = centered(screen, 100, 40);
    let (text, search_area) = areas(screen, view.searching());
    let rows = rows(&view.lines, usize::from(text.width));
    let page = usize::from(text.height).max(1);
    let scroll = view.scroll.min(rows.len().saturating_sub(page));
    let shown_to = (scroll + page).min(rows.len());
    let title = if rows.len() > page {
        format!("Details · rows {}–{shown_to} of {}", scroll + 1, rows.len())
    } else {
        "Details".to_string()
    };
    frame_box(
        frame,
        area,
        &title,
        "j/k · PgUp/PgDn · g/G top/end · / search · Esc closes",
    );
    let found = view.matches();
    let mark = theme::found().add_modifier(Modifier::REVERSED);
    let lines: Vec<Line> = rows[scroll..shown_to]
        .iter()
        .map(|row| {
            let chars: String = view.lines[row.line]
                .chars()
                .skip(row.chars.start)
                .take(row.chars.len())
                .collect();
            let mut line = Line::raw(chars);
            for (i, range) in found.iter().filter(|(i, _)| *i == row.line) {
                let start = range.start.max(row.chars.start);
                let end = range.end.min(row.chars.end);
                if start < end {
                    let here = start - row.chars.start..end - row.chars.start;
                    let style = if view.current == Some((*i, range.start)) {
                        mark
                    } else {
                        theme::found()
                    };
                    line = search::restyle(line, &[here], style);
                }
            }
            line
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), text);

    if search_area.height > 0 {
        let position = view
            .current
            .and_then(|c| found.iter().position(|(i, m)| (*i, m.start) == c));
        let count = match (found.len(), position) {
            (0, _) => "no match".to_string(),
            (n, Some(at)) => format!("match {} of {n}", at + 1),
            (n, None) => format!("{n} matches"),
        };
        let mut spans = vec![
            Span::styled("/", Style::default().fg(theme::ACCENT)),
            Span::raw(crate::tui::text::fit(&view.query, 40)),
        ];
        if view.typing {
            spans.push(Span::styled("▏", Style::default().fg(theme::ACCENT)));
        }
        spans.push(Span::styled(format!("  {count}"), theme::dim()));
        spans.push(Span::styled(
            if view.typing {
                "  Enter keeps · Tab next · Esc clears"
            } else {
                "  / then Enter: next · Esc clears"
            },
            theme::dim(),
        ));
        frame.render_widget(Paragraph::new(Line::from(spans)), search_area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A screen whose modal shows 10 rows of text, 40 columns wide.
    const SCREEN: Rect = Rect {
        x: 0,
        y: 0,
        width: 42,
        height: 12,
    };

    fn numbered(n: usize) -> DetailsView {
        let text: Vec<String> = (1..=n).map(|i| format!("line {i}")).collect();
        DetailsView::new(&text.join("\n"))
    }

    #[test]
    fn the_details_scroll_by_page_to_the_top_and_to_the_end() {
        let mut view = numbered(35);
        view.navigate(Action::PageDown, SCREEN);
        assert_eq!(view.scroll, 10);
        view.navigate(Action::Bottom, SCREEN);
        assert_eq!(view.scroll, 25, "the last page, not a blank one");
        view.navigate(Action::PageDown, SCREEN);
        view.navigate(Action::Down, SCREEN);
        assert_eq!(view.scroll, 25);
        view.navigate(Action::PageUp, SCREEN);
        assert_eq!(view.scroll, 15);
        view.navigate(Action::Top, SCREEN);
        assert_eq!(view.scroll, 0);
        let mut short = numbered(3);
        short.navigate(Action::Bottom, SCREEN);
        assert_eq!(short.scroll, 0);
    }

    #[test]
    fn long_lines_wrap_into_rows_that_the_scroll_counts() {
        let long = "x".repeat(95);
        let rows = rows(&[long, String::new(), "日本語".into()], 40);
        let spans: Vec<(usize, Range<usize>)> =
            rows.into_iter().map(|r| (r.line, r.chars)).collect();
        assert_eq!(
            spans,
            vec![(0, 0..40), (0, 40..80), (0, 80..95), (1, 0..0), (2, 0..3)]
        );
    }

    #[test]
    fn long_lines_wrap_after_a_space_not_inside_a_word() {
        let message =
            r#"    "message": "Charge ch_2 duplicates ch_1; refund ch_2 and tell the customer""#;
        let rows = rows(&[message.to_string()], 40);
        let text: Vec<String> = rows
            .iter()
            .map(|r| {
                message
                    .chars()
                    .skip(r.chars.start)
                    .take(r.chars.len())
                    .collect()
            })
            .collect();
        assert_eq!(
            text,
            vec![
                r#"    "message": "Charge ch_2 duplicates "#,
                r#"ch_1; refund ch_2 and tell the customer""#,
            ]
        );
    }

    #[test]
    fn a_search_moves_to_each_match_in_turn_and_round_the_end() {
        let mut view = numbered(60);
        view.query = "line 3".into();
        assert!(view.find(Find::Here, SCREEN));
        assert_eq!(view.current, Some((2, 0)), "line 3 first");
        assert_eq!(view.scroll, 0, "already in view");
        assert!(view.find(Find::Next, SCREEN));
        assert_eq!(view.current, Some((29, 0)), "then line 30");
        assert_eq!(view.scroll, 27, "scrolled to it with two rows above");
        for _ in 0..9 {
            view.find(Find::Next, SCREEN);
        }
        assert_eq!(view.current, Some((38, 0)), "line 39");
        assert!(view.find(Find::Next, SCREEN));
        assert_eq!(view.current, Some((2, 0)), "round the end");
        assert_eq!(view.scroll, 0);
        assert!(view.find(Find::Previous, SCREEN));
        assert_eq!(view.current, Some((38, 0)));
        view.query = "nowhere".into();
        assert!(!view.find(Find::Next, SCREEN));
        view.clear_search();
        assert!(view.matches().is_empty());
    }
}
