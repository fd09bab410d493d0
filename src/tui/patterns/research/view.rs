//! The research pane: the six steps as a pipeline with the current one
//! highlighted; the counts from search to citations; the sources after
//! dedupe with their fate (read with its notes, denied with the reason,
//! not reached); the notes with claim, source domain and date; and the
//! answer, whose citation ids resolve to their sources as a note is
//! selected. Draws the research state and changes nothing.

use super::state::{NoteView, Research, SourceStatus, SourceView, StepState};
use crate::bus::ResearchPhase;
use crate::tui::keymap::PaneId;
use crate::tui::patterns::unit::Seen;
use crate::tui::selection::ListView;
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use crate::tui::widgets::block;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// Rows of answer text at most, before the result pane has the rest.
const ANSWER_TEXT_ROWS: usize = 6;
/// The shortest a source's URL gets before its status is cut instead.
const MIN_URL_WIDTH: usize = 24;

/// How tall the pane would like to be: everything, with headings.
pub(super) fn wanted_height(research: &Research) -> u16 {
    let listed = research.sources.len().max(1) + research.notes.len().max(1);
    let rows = 2 + 2 + 2 + listed + answer_rows(research, 80);
    u16::try_from(rows).unwrap_or(u16::MAX)
}

/// Rows the answer section would like at `width`: a heading, the answer
/// (or why there is none) and the selected note's source; while the run
/// is live, the heading and the source.
fn answer_rows(research: &Research, width: usize) -> usize {
    let noted = usize::from(!research.notes.is_empty());
    match (&research.answer, research.ended) {
        (Some(answer), _) => {
            let text = (answer.chars().count() / width.max(1) + 1).min(ANSWER_TEXT_ROWS);
            1 + text + noted
        }
        (None, true) => 2,
        (None, false) => 2 * noted,
    }
}

pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    research: &Research,
    selection: &ListView,
    seen: Seen,
) {
    let focused = seen.focused;
    let block = block(PaneId::Pattern, "Research", focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let selected = selection.row(research.notes.len());
    let mut head = vec![pipeline(research)];
    if inner.height > 1 {
        head.push(counts(research));
    }
    let head_rows = u16::try_from(head.len()).unwrap_or(0);
    frame.render_widget(
        Paragraph::new(head),
        Rect {
            height: head_rows,
            ..inner
        },
    );

    let rest = usize::from(inner.height.saturating_sub(head_rows));
    let answer_rows = answer_rows(research, width);
    let listed = research.sources.len().max(1) + research.notes.len().max(1);
    // Headings only where everything fits with them.
    let look = Look {
        width,
        headings: rest >= 2 + listed + answer_rows,
        live: seen.live,
    };
    let heading = usize::from(look.headings);
    let [notes_rows, sources_rows, answer_rows] = share(
        rest,
        [
            heading + research.notes.len().max(1),
            heading + research.sources.len().max(1),
            answer_rows,
        ],
    );
    let mut y = inner.y + head_rows;
    let mut next_area = |rows: usize| {
        let rows = u16::try_from(rows).unwrap_or(0);
        let area = Rect {
            y,
            height: rows,
            ..inner
        };
        y += rows;
        area
    };
    let sources_area = next_area(sources_rows);
    let notes_area = next_area(notes_rows);
    let answer_area = next_area(answer_rows);
    frame.render_widget(
        Paragraph::new(sources(research, sources_rows, look)),
        sources_area,
    );
    frame.render_widget(
        Paragraph::new(notes(research, notes_rows, look, selected, focused)),
        notes_area,
    );
    draw_answer(
        frame,
        answer_area,
        research,
        seen,
        research.notes.get(selected),
    );
}

/// How the sections are drawn: their width, whether they have headings,
/// and whether the run is still live.
#[derive(Clone, Copy)]
struct Look {
    width: usize,
    headings: bool,
    live: bool,
}

/// Split `rows` between sections that want `wants` rows, in priority
/// order: each first gets its heading and one row, then rows go round
/// until every section has what it wants or none are left.
fn share(rows: usize, wants: [usize; 3]) -> [usize; 3] {
    let mut got = [0; 3];
    let mut left = rows;
    for (i, want) in wants.iter().enumerate() {
        let take = (*want).min(2).min(left);
        got[i] = take;
        left -= take;
    }
    while left > 0 && (0..3).any(|i| got[i] < wants[i]) {
        for i in 0..3 {
            if left > 0 && got[i] < wants[i] {
                got[i] += 1;
                left -= 1;
            }
        }
    }
    got
}

/// `✓ plan ▸ ✓ search ▸ ● read ▸ · verify …`: done green, the current
/// step highlighted, a failed one red.
fn pipeline(research: &Research) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, phase) in ResearchPhase::ALL.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" ▸ ", theme::dim()));
        }
        let label = short(phase);
        let (text, style) = match research.step(phase) {
            StepState::Pending => (format!("· {label}"), theme::dim()),
            StepState::Running => (
                format!("● {label}"),
                Style::default()
                    .fg(Color::Black)
                    .bg(theme::ACCENT)
                    .add_modifier(Modifier::BOLD),
            ),
            StepState::Done { .. } => (format!("✓ {label}"), Style::default().fg(theme::GO)),
            StepState::Failed { .. } => (
                format!("✗ {label}"),
                theme::error().add_modifier(Modifier::BOLD),
            ),
        };
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

fn short(phase: ResearchPhase) -> &'static str {
    match phase {
        ResearchPhase::ReadExtract => "read",
        other => other.as_str(),
    }
}

/// found → deduped → read → notes (verified or not) → cited, then the
/// denied sources.
fn counts(research: &Research) -> Line<'static> {
    let c = research.counts();
    let mut spans = Vec::new();
    for (i, (word, n)) in [
        ("found", c.found),
        ("deduped", c.deduped),
        ("read", c.read),
        ("notes", c.notes),
        ("cited", c.cited),
    ]
    .into_iter()
    .enumerate()
    {
        if i > 0 {
            spans.push(Span::styled(" → ", theme::dim()));
        }
        spans.push(Span::styled(format!("{word} "), theme::dim()));
        spans.push(Span::styled(n.to_string(), theme::bold()));
        if word == "notes"
            && let Some(v) = &research.verification
        {
            spans.push(if v.ok {
                Span::styled(" ✓", Style::default().fg(theme::GO))
            } else {
                Span::styled(" ✗", theme::error())
            });
        }
    }
    if c.denied > 0 {
        spans.push(Span::styled(
            format!(" · denied {}", c.denied),
            theme::error(),
        ));
    }
    Line::from(spans)
}

fn sources(research: &Research, rows: usize, look: Look) -> Vec<Line<'static>> {
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
                "read · {notes} note{} · {}",
                if *notes == 1 { "" } else { "s" },
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

fn notes(
    research: &Research,
    rows: usize,
    look: Look,
    selected: usize,
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
        lines.push(Line::styled("no notes yet", theme::dim()));
    }
    let room = rows - usize::from(look.headings);
    let first = (selected + 1).saturating_sub(room.max(1));
    let domain_w = research
        .notes
        .iter()
        .map(|n| n.domain.chars().count())
        .max()
        .unwrap_or(0)
        .min(28);
    for (i, note) in research.notes.iter().enumerate().skip(first).take(room) {
        let cited = research.cited.contains(&note.id);
        let mut line = Line::from(vec![
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
        if i == selected && focused {
            line = line.patch_style(theme::selected());
        }
        lines.push(line);
    }
    lines
}

/// The answer with its citations, or why there is none; then where the
/// selected note comes from.
fn draw_answer(
    frame: &mut Frame,
    area: Rect,
    research: &Research,
    seen: Seen,
    note: Option<&NoteView>,
) {
    if area.height == 0 {
        return;
    }
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
        (None, None) => {
            heading.push(Span::styled(
                " · written from the verified notes at the end",
                theme::dim(),
            ));
            None
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_go_to_each_section_then_round_robin() {
        assert_eq!(share(20, [3, 5, 4]), [3, 5, 4]);
        assert_eq!(share(8, [3, 5, 4]), [3, 3, 2]);
        assert_eq!(share(3, [3, 5, 4]), [2, 1, 0]);
        assert_eq!(share(0, [3, 5, 4]), [0, 0, 0]);
        assert_eq!(share(9, [2, 9, 4]), [2, 4, 3]);
    }
}
