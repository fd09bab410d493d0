//! The research pane's lists: the sources after dedupe with their fate,
//! the notes with claim, source domain and date, and the answer with its
//! citations or why there is none. Draws and changes nothing.

use super::state::{NoteView, Research, SourceStatus, SourceView};
use crate::tui::patterns::seen::Seen;
use crate::tui::search;
use crate::tui::selection::ListView;
use crate::tui::state::partial::PartialText;
use crate::tui::text::{fit, pad};
use crate::tui::{theme, widgets};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// The shortest a source's URL gets before its status is cut instead.
const MIN_URL_WIDTH: usize = 24;

/// How the sections are drawn: their width, whether they have headings,
/// and whether the run is still live.
#[derive(Clone, Copy)]
pub(super) struct Look {
    pub(super) width: usize,
    pub(super) headings: bool,
    pub(super) live: bool,
}

pub(super) fn sources(research: &Research, rows: usize, look: Look) -> Vec<Line<'static>> {
    if rows == 0 {
        return Vec::new();
    }
    let mut lines = Vec::new();
    if look.headings {
        lines.push(Line::styled("Sources", theme::bold()));
    }
    if research.sources.is_empty() {
        lines.push(Line::styled("no sources yet", theme::dim()));
    }
    let room = rows - usize::from(look.headings);
    let shown = if research.sources.len() > room {
        room.saturating_sub(1)
    } else {
        room
    };
    for source in research.sources.iter().take(shown) {
        lines.push(source_line(source, look));
    }
    if research.sources.len() > shown && room > 0 {
        lines.push(Line::styled(
            format!("… {} more", research.sources.len() - shown),
            theme::dim(),
        ));
    }
    lines.truncate(rows);
    lines
}

fn source_line(source: &SourceView, look: Look) -> Line<'static> {
    let width = look.width;
    let (glyph, status, style) = match &source.status {
        SourceStatus::Waiting => ("·", "not reached".to_string(), theme::dim()),
        SourceStatus::Allowed => (
            "○",
            if look.live {
                "reading…".to_string()
            } else {
                "allowed, not read".to_string()
            },
            Style::default().fg(theme::ACCENT),
        ),
        SourceStatus::Read {
            published_at,
            notes,
            ..
        } => (
            "✓",
            format!(
                "read · {} · {}",
                crate::words::plural(*notes as u64, "note"),
                fit(published_at, 12)
            ),
            Style::default().fg(theme::GO),
        ),
        SourceStatus::Denied { reason, gated_by } => (
            "✗",
            match gated_by {
                Some(flag) => format!("{} (flag {} off)", reason.as_str(), fit(flag, 20)),
                None => reason.as_str().to_string(),
            },
            theme::error(),
        ),
    };
    let url_len = source.url.chars().count();
    let status_w = status
        .chars()
        .count()
        .min(width.saturating_sub(url_len.min(MIN_URL_WIDTH) + 4));
    let url_w = width.saturating_sub(status_w + 4);
    let shown = source
        .url
        .split_once("://")
        .map_or(source.url.as_str(), |(_, rest)| rest);
    Line::from(vec![
        Span::styled(format!("{glyph} "), style),
        Span::raw(pad(shown, url_w)),
        Span::raw("  "),
        Span::styled(fit(&status, status_w), style),
    ])
}

pub(super) fn notes(
    research: &Research,
    rows: usize,
    look: Look,
    selection: &ListView,
    focused: bool,
) -> Vec<Line<'static>> {
    if rows == 0 {
        return Vec::new();
    }
    let width = look.width;
    let mut lines = Vec::new();
    if look.headings {
        let mut heading = vec![Span::styled("Notes", theme::bold())];
        if let Some(v) = &research.verification {
            if v.ok {
                heading.push(Span::styled(
                    format!(" · {} verified, no issue", v.checked),
                    Style::default().fg(theme::GO),
                ));
            } else {
                heading.push(Span::styled(
                    format!(" · verification: {}", fit(&v.issues.join(", "), 60)),
                    theme::error(),
                ));
            }
        }
        lines.push(Line::from(heading));
    }
    if research.notes.is_empty() {
        let words = if look.live {
            "no notes yet"
        } else {
            "no notes: the run ended before any were taken"
        };
        lines.push(Line::styled(words, theme::dim()));
    }
    let room = rows - usize::from(look.headings);
    let shown = super::notes(research);
    let selected = selection.item(&shown);
    let first = selection.first(&shown, room.max(1));
    let domain_w = research
        .notes
        .iter()
        .map(|n| n.domain.chars().count())
        .max()
        .unwrap_or(0)
        .min(28);
    for (i, note) in research.notes.iter().enumerate().skip(first).take(room) {
        let cited = research.cited.contains(&note.id);
        let line = Line::from(vec![
            Span::styled(
                if cited { "★ " } else { "  " },
                Style::default().fg(theme::CAUTION),
            ),
            Span::styled(format!("{} ", pad(&note.id, 3)), theme::bold()),
            Span::styled(format!("{} ", pad(&note.domain, domain_w)), theme::dim()),
            Span::styled(format!("{} ", pad(&note.published_at, 10)), theme::dim()),
            Span::raw(fit(
                &note.claim,
                width.saturating_sub(domain_w + 3 + 4 + 11 + 1),
            )),
        ]);
        let chosen = Some(i) == selected && focused;
        lines.push(search::mark(line, selection.search.as_deref(), chosen));
    }
    lines
}

/// The answer with its citations, or why there is none; then where the
/// selected note comes from.
pub(super) fn draw_answer(
    frame: &mut Frame,
    area: Rect,
    research: &Research,
    seen: Seen,
    note: Option<&NoteView>,
    written: Option<&PartialText>,
) {
    if area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let mut heading = vec![Span::styled("Answer", theme::bold())];
    for id in &research.citations {
        let style = if note.is_some_and(|n| &n.id == id) {
            theme::selected().fg(theme::CAUTION)
        } else {
            Style::default().fg(theme::CAUTION)
        };
        heading.push(Span::raw(" "));
        heading.push(Span::styled(format!("[{}]", fit(id, 12)), style));
    }
    let body = match (&research.answer, seen.outcome) {
        (Some(answer), _) => Some(Line::raw(fit(answer, 4000))),
        (None, Some(outcome)) => Some(Line::styled(
            format!(
                "No answer: {}{}",
                fit(&outcome.stop_reason.to_string(), 80),
                outcome
                    .phase
                    .as_deref()
                    .map(|p| format!(" at {}", fit(p, 20)))
                    .unwrap_or_default()
            ),
            theme::error(),
        )),
        (None, None) => match written {
            Some(text) => {
                heading.push(Span::styled(" · being written", theme::dim()));
                let rows = usize::from(area.height.saturating_sub(1)).max(1);
                Some(widgets::writing(text, &["answer"], rows * width * 3 / 4))
            }
            None => {
                heading.push(Span::styled(
                    " · written from the verified notes at the end",
                    theme::dim(),
                ));
                None
            }
        },
    };
    let source = note.map(|n| {
        let uncited = research.answer.is_some() && !research.citations.contains(&n.id);
        Line::from(vec![
            Span::styled(
                format!(
                    "{} {} ",
                    fit(&n.id, 12),
                    if uncited { "(not cited) →" } else { "→" }
                ),
                Style::default().fg(theme::CAUTION),
            ),
            Span::raw(fit(&n.url, 200)),
            Span::styled(
                format!(" · {} · {}", fit(&n.title, 60), fit(&n.published_at, 20)),
                theme::dim(),
            ),
        ])
    });
    let rows = usize::from(area.height);
    let source_rows = usize::from(source.is_some() && rows >= 2);
    let body_rows = rows.saturating_sub(1 + source_rows);
    frame.render_widget(
        Paragraph::new(Line::from(heading)),
        Rect { height: 1, ..area },
    );
    if let (Some(body), true) = (body, body_rows > 0) {
        frame.render_widget(
            Paragraph::new(body).wrap(Wrap { trim: true }),
            Rect {
                y: area.y + 1,
                height: u16::try_from(body_rows).unwrap_or(0),
                ..area
            },
        );
    }
    if let (Some(source), 1) = (source, source_rows) {
        frame.render_widget(
            Paragraph::new(source),
            Rect {
                y: area.y + area.height - 1,
                height: 1,
                ..area
            },
        );
    }
}
