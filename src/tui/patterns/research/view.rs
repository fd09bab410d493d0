//! The research pane: the six steps as a pipeline with the current one
//! highlighted; the counts from search to citations; the sources after
//! dedupe with their fate (read with its notes, denied with the reason,
//! not reached); the notes with claim, source domain and date; and the
//! answer, whose citation ids resolve to their sources as a note is
//! selected. Draws the research state and changes nothing.

use super::sections::{Look, draw_answer, notes, sources};
use super::state::{Research, StepState};
use crate::patterns::events::ResearchPhase;
use crate::tui::keymap::PaneId;
use crate::tui::patterns::seen::Seen;
use crate::tui::selection::ListView;
use crate::tui::state::partial::PartialText;

use crate::tui::theme;
use crate::tui::widgets::block;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Rows of answer text at most, before the result pane has the rest.
const ANSWER_TEXT_ROWS: usize = 6;

/// How tall the pane would like to be: everything, with headings.
pub(super) fn wanted_height(research: &Research) -> u16 {
    let listed = research.sources.len().max(1) + research.notes.len().max(1);
    let rows = 2 + 2 + 2 + listed + answer_rows(research, 80, None);
    u16::try_from(rows).unwrap_or(u16::MAX)
}

/// Rows the answer section would like at `width`: a heading, the answer
/// (or why there is none) and the selected note's source; while the run
/// is live, the heading and the source, and the synthesis as it is
/// `written`.
fn answer_rows(research: &Research, width: usize, written: Option<&PartialText>) -> usize {
    let noted = usize::from(!research.notes.is_empty());
    let text_rows = |chars: u64| (chars as usize / width.max(1) + 1).min(ANSWER_TEXT_ROWS);
    match (&research.answer, research.ended, written) {
        (Some(answer), _, _) => 1 + text_rows(answer.chars().count() as u64) + noted,
        (None, true, _) => 2,
        (None, false, Some(text)) => 1 + text_rows(text.chars()) + noted,
        (None, false, None) => 2 * noted,
    }
}

/// The synthesis as the model writes it, while that step runs.
pub(super) fn synthesis_written<'a>(
    research: &Research,
    seen: Seen<'a>,
) -> Option<&'a PartialText> {
    if research.ended || research.current != Some(ResearchPhase::Synthesize) {
        return None;
    }
    seen.writing(None)
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
    let written = synthesis_written(research, seen);
    let (headings, [notes_rows, sources_rows, answer_rows]) =
        sections(research, rest, width, written);
    let look = Look {
        width,
        headings,
        live: seen.live,
    };
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
        Paragraph::new(notes(research, notes_rows, look, selection, focused)),
        notes_area,
    );
    let selected = selection.item(&super::notes(research));
    draw_answer(
        frame,
        answer_area,
        research,
        seen,
        selected.and_then(|i| research.notes.get(i)),
        written,
    );
}

/// How the `rest` rows under the pipeline and the counts are shared at
/// `width`: whether headings fit, and the notes', the sources' and the
/// answer's rows.
fn sections(
    research: &Research,
    rest: usize,
    width: usize,
    written: Option<&PartialText>,
) -> (bool, [usize; 3]) {
    let answer_rows = answer_rows(research, width, written);
    let listed = research.sources.len().max(1) + research.notes.len().max(1);
    // Headings only where everything fits with them.
    let headings = rest >= 2 + listed + answer_rows;
    let heading = usize::from(headings);
    let rows = share(
        rest,
        [
            heading + research.notes.len().max(1),
            heading + research.sources.len().max(1),
            answer_rows,
        ],
    );
    (headings, rows)
}

/// Rows of notes in a pane `height` rows tall inside its border (at a
/// usual width: the answer's rows depend on it).
pub(super) fn notes_rows(research: &Research, height: usize) -> usize {
    let (headings, [notes, ..]) = sections(research, height.saturating_sub(2), 80, None);
    notes.saturating_sub(usize::from(headings)).max(1)
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
