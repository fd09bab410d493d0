//! Drawing pieces every pane shares: a pane's numbered frame, a gauge of
//! time against a limit, durations and counts in words (one plural rule),
//! labels cut at word or part boundaries, never mid-word, and text a model
//! is writing. They draw what they are given and read nothing else.

use super::keymap::PaneId;
use super::state::partial::PartialText;
use super::text::{fit, tail};
use super::theme;
use crate::bus::RunStatus;
pub(crate) use crate::words::plural;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;
use unicode_width::UnicodeWidthStr;

/// Text a model is writing, marked as in progress, in `room` columns (a
/// row, or several to wrap): the end of the first of `keys` the answer
/// has so far, or of the text itself when it is prose; while a JSON answer
/// has not reached one of them, how much it has written. Before the answer
/// begins, the end of the model's reasoning, dimmed: it is not the answer.
pub(crate) fn writing(text: &PartialText, keys: &[&str], room: usize) -> Line<'static> {
    let mark = Span::styled("✎ ", Style::default().fg(theme::ACCENT));
    if let Some(reasoning) = text.reasoning_shown() {
        let note = text
            .note_shown()
            .map(|note| fit(&format!("{note} · "), room.saturating_sub(2) / 2))
            .unwrap_or_default();
        let left = room.saturating_sub(2 + note.width());
        return Line::from(vec![
            mark,
            Span::styled(
                note,
                Style::default().add_modifier(ratatui::style::Modifier::ITALIC),
            ),
            Span::styled(
                tail(&reasoning, left),
                theme::dim()
                    .add_modifier(ratatui::style::Modifier::DIM | ratatui::style::Modifier::ITALIC),
            ),
        ]);
    }
    match text.shown(keys) {
        Some(shown) => Line::from(vec![
            mark,
            Span::styled(
                tail(&shown, room.saturating_sub(2)),
                Style::default().add_modifier(ratatui::style::Modifier::ITALIC),
            ),
        ]),
        None => Line::from(vec![
            mark,
            Span::styled(
                fit(
                    &format!("writing… {}", plural(text.chars(), "character")),
                    room.saturating_sub(2),
                ),
                theme::dim(),
            ),
        ]),
    }
}

/// How many cells a time gauge takes.
pub(crate) const GAUGE: usize = 10;

/// A pane's frame: bordered, titled with its number, bright when focused.
pub(crate) fn block<'a>(pane: PaneId, title: &str, focused: bool) -> Block<'a> {
    Block::bordered()
        .border_style(theme::border(focused))
        .title(Line::from(vec![
            Span::styled(format!("[{}] ", pane.number()), theme::dim()),
            Span::styled(title.to_string(), theme::bold()),
        ]))
}

/// Elapsed time against a limit, as a bar that fills and turns red near
/// the end.
pub(crate) fn gauge(elapsed: u64, limit: u64) -> Span<'static> {
    let ratio = if limit == 0 {
        1.0
    } else {
        (elapsed as f64 / limit as f64).min(1.0)
    };
    let filled = (ratio * GAUGE as f64).round() as usize;
    let color = if ratio >= 0.8 {
        theme::BLOCK
    } else if ratio >= 0.5 {
        theme::CAUTION
    } else {
        theme::GO
    };
    Span::styled(bar(filled, GAUGE), Style::default().fg(color))
}

/// `filled` of `width` cells: `▮▮▮▯▯`.
pub(crate) fn bar(filled: usize, width: usize) -> String {
    let filled = filled.min(width);
    "▮".repeat(filled) + &"▯".repeat(width - filled)
}

/// Milliseconds as seconds with a tenth: `1.2s`.
pub(crate) fn seconds(ms: u64) -> String {
    format!("{:.1}s", ms as f64 / 1000.0)
}

/// Milliseconds under a second as such, longer ones as seconds: `450ms`,
/// `1.2s`.
pub(crate) fn millis(ms: u64) -> String {
    if ms >= 1000 {
        seconds(ms)
    } else {
        format!("{ms}ms")
    }
}

/// A count against its limit, 0 being no limit: `3/8`, `3 (no limit)`.
pub(crate) fn of_limit(used: u64, max: u64) -> String {
    if max == 0 {
        format!("{used} (no limit)")
    } else {
        format!("{used}/{max}")
    }
}

/// `text` cleaned and cut to `width` columns at the last word that fits,
/// with `…`; a first word wider than that is cut where it must be.
pub(crate) fn fit_words(text: &str, width: usize) -> String {
    let whole = fit(text, usize::MAX);
    if whole.width() <= width {
        return whole;
    }
    let cut = fit(&whole, width);
    let body = cut.trim_end_matches('…');
    match body.rfind(' ') {
        Some(space) if body[..space].trim_end().width() > 0 => {
            format!("{}…", body[..space].trim_end())
        }
        _ => cut,
    }
}

/// As many of `parts` as fit in `width` columns, whole, with `sep`
/// between them; when some are left out, `…` ends the line if there is
/// room. A summary line so never ends inside a word.
pub(crate) fn parts(
    parts: Vec<Vec<Span<'static>>>,
    sep: &Span<'static>,
    width: usize,
) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    let count = parts.len();
    for (i, part) in parts.into_iter().enumerate() {
        let sep_width = if i == 0 { 0 } else { sep.width() };
        let part_width: usize = part.iter().map(Span::width).sum();
        // The last part needs no room for the mark after it.
        let mark = if i + 1 < count { 1 } else { 0 };
        if used + sep_width + part_width + mark > width {
            if used < width {
                spans.push(Span::styled("…", theme::dim()));
            }
            break;
        }
        if i > 0 {
            spans.push(sep.clone());
        }
        spans.extend(part);
        used += sep_width + part_width;
    }
    Line::from(spans)
}

/// The result's headline of a run that ended without a decision, health
/// or answer to show.
pub(crate) fn no_decision(status: RunStatus, words: &'static str) -> Line<'static> {
    Line::styled(
        words,
        if status == RunStatus::Ok {
            theme::bold()
        } else {
            theme::error().patch(theme::bold())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauges_fill_with_the_time_used_and_redden_near_the_limit() {
        assert_eq!(gauge(0, 2000).content, "▯▯▯▯▯▯▯▯▯▯");
        assert_eq!(gauge(1000, 2000).content, "▮▮▮▮▮▯▯▯▯▯");
        assert_eq!(gauge(1000, 2000).style.fg, Some(theme::CAUTION));
        assert_eq!(gauge(5000, 2000).content, "▮▮▮▮▮▮▮▮▮▮");
        assert_eq!(gauge(1900, 2000).style.fg, Some(theme::BLOCK));
        assert_eq!(gauge(7, 0).content, "▮▮▮▮▮▮▮▮▮▮", "no limit reads as full");
        assert_eq!(bar(9, 6), "▮▮▮▮▮▮");
    }

    #[test]
    fn durations_and_limits_read_as_words() {
        assert_eq!(seconds(1260), "1.3s");
        assert_eq!(millis(450), "450ms");
        assert_eq!(millis(2300), "2.3s");
        assert_eq!(of_limit(3, 8), "3/8");
        assert_eq!(of_limit(3, 0), "3 (no limit)");
        assert_eq!(plural(1, "retry"), "1 retry");
    }

    #[test]
    fn labels_are_cut_between_words() {
        assert_eq!(fit_words("OPEN probe due", 14), "OPEN probe due");
        assert_eq!(fit_words("OPEN probe due", 12), "OPEN probe…");
        assert_eq!(fit_words("OPEN probe due", 9), "OPEN…");
        assert_eq!(fit_words("enrichment_worker", 8), "enrichm…");
        let summary = || {
            ["3 running", "24 queued", "health YELLOW"]
                .map(|p| vec![Span::raw(p)])
                .to_vec()
        };
        let sep = Span::raw(" · ");
        let line = |width| parts(summary(), &sep, width).to_string();
        assert_eq!(line(80), "3 running · 24 queued · health YELLOW");
        assert_eq!(line(30), "3 running · 24 queued…");
        assert_eq!(line(10), "3 running…");
        assert_eq!(line(5), "…");
    }
}
