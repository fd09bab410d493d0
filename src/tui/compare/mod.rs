//! The side-by-side view of two runs over the screen above the footer: what the reader
//! should know first, the first divergence with both events described,
//! then each section of the comparison with run A's columns left and run
//! B's right, every row that differs marked `≠` and its differing cells in
//! bold. It draws the library's sections and never knows the pattern.

use crate::compare::Comparison;
use crate::compare::sections::{Row, Section, Tone};
use crate::compare::{DivergentEvent, Which};
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use crate::tui::widgets::seconds;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

/// The widest a row's label gets.
const MAX_LABEL: usize = 30;
/// The marker column: `≠ ` or two spaces.
const GUTTER: usize = 2;
/// Between A's columns and B's.
const SEPARATOR: &str = " │ ";

pub(crate) fn draw(frame: &mut Frame, area: Rect, comparison: &Comparison, scroll: u16) {
    let title = format!(
        " Compare · A: {} │ B: {} ",
        fit(&comparison.a.recording, 50),
        fit(&comparison.b.recording, 50)
    );
    // The footer under the view lists its keys and says what they did.
    let block = Block::bordered()
        .border_style(theme::border(true))
        .title(Span::styled(title, theme::bold()));
    let inner = block.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    let lines = lines(comparison, usize::from(inner.width));
    let last = lines.len().saturating_sub(usize::from(inner.height));
    let scroll = usize::from(scroll).min(last);
    frame.render_widget(
        Paragraph::new(lines).scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        inner,
    );
}

/// How many lines the view of `comparison` takes, whatever the width.
pub(crate) fn line_count(comparison: &Comparison) -> u16 {
    u16::try_from(lines(comparison, 80).len()).unwrap_or(u16::MAX)
}

/// The view as lines `width` columns wide.
pub(crate) fn lines(comparison: &Comparison, width: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = comparison
        .notes
        .iter()
        .map(|note| Line::styled(fit(&format!("! {note}"), width), caution()))
        .collect();
    if comparison.identical {
        lines.push(Line::styled(
            "The runs are identical but for their times.",
            Style::default().fg(theme::GO),
        ));
    }
    lines.push(Line::styled("First divergence", theme::bold()));
    match &comparison.first_divergence {
        Some(divergence) => {
            lines.push(divergent("A", divergence.a.as_ref(), width));
            lines.push(divergent("B", divergence.b.as_ref(), width));
        }
        None if comparison.aligned => lines.push(Line::raw(
            "  none: the runs did the same things in the same order (times aside)",
        )),
        None => lines.push(Line::styled(
            "  not looked for: the runs are of different scenarios",
            theme::dim(),
        )),
    }
    if !comparison.control.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Control (pauses, steps, flag changes: not divergences)",
            theme::bold(),
        ));
        for (side, events) in [("A", &comparison.control.a), ("B", &comparison.control.b)] {
            if events.is_empty() {
                lines.push(Line::from(vec![
                    Span::styled(format!("  {side}  "), theme::bold()),
                    Span::styled("none", theme::dim()),
                ]));
            }
            lines.extend(events.iter().map(|e| divergent(side, Some(e), width)));
        }
    }
    for section in comparison.sections() {
        lines.push(Line::raw(""));
        lines.extend(section_lines(&section, width));
    }
    lines
}

fn caution() -> Style {
    Style::default().fg(theme::CAUTION)
}

fn divergent(side: &str, event: Option<&DivergentEvent>, width: usize) -> Line<'static> {
    let Some(event) = event else {
        return Line::from(vec![
            Span::styled(format!("  {side}  "), theme::bold()),
            Span::styled("no more events: the run ended here", theme::dim()),
        ]);
    };
    let head = format!(
        "  {side}  #{:<5} {:>7}  {:<22} ",
        event.seq,
        seconds(event.t_ms),
        event.kind
    );
    let rest = width.saturating_sub(head.width());
    Line::from(vec![
        Span::styled(head, theme::bold()),
        Span::raw(fit(&event.description, rest)),
    ])
}

/// How a section's columns are cut from the width.
struct Widths {
    label: usize,
    cell: usize,
}

impl Widths {
    fn of(section: &Section, width: usize) -> Widths {
        let longest = section
            .rows
            .iter()
            .map(|r| r.label.width())
            .max()
            .unwrap_or(0);
        let label = longest.clamp(8, MAX_LABEL).min(width / 4);
        let side = width.saturating_sub(GUTTER + label + 1 + SEPARATOR.width()) / 2;
        let cell = side / section.columns.len().max(1);
        Widths { label, cell }
    }
}

fn section_lines(section: &Section, width: usize) -> Vec<Line<'static>> {
    let widths = Widths::of(section, width);
    let mut lines = vec![Line::styled(section.title.clone(), theme::bold())];
    let heading = |side: &str| -> Vec<Span<'static>> {
        section
            .columns
            .iter()
            .enumerate()
            .map(|(i, column)| {
                let text = match (i, column.is_empty()) {
                    (0, true) => side.to_string(),
                    (0, false) => format!("{side} {column}"),
                    _ => column.clone(),
                };
                Span::styled(cell_text(&text, widths.cell), theme::dim())
            })
            .collect()
    };
    let mut header = vec![Span::raw(" ".repeat(GUTTER + widths.label + 1))];
    header.extend(heading("A"));
    header.push(Span::styled(SEPARATOR, theme::dim()));
    header.extend(heading("B"));
    lines.push(Line::from(header));
    lines.extend(section.rows.iter().map(|row| row_line(row, &widths)));
    lines
}

fn row_line(row: &Row, widths: &Widths) -> Line<'static> {
    let differs = row.differs();
    let mut spans = vec![
        Span::styled(
            if differs { "≠ " } else { "  " },
            caution().add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            pad(&row.label, widths.label),
            if differs {
                theme::bold()
            } else {
                Style::default()
            },
        ),
        Span::raw(" "),
    ];
    spans.extend(cells(row, Which::A, widths.cell));
    spans.push(Span::styled(SEPARATOR, theme::dim()));
    spans.extend(cells(row, Which::B, widths.cell));
    Line::from(spans)
}

/// One run's cells of a row, those that differ from the other run's in
/// bold; a row of the other run only says so.
fn cells(row: &Row, which: Which, width: usize) -> Vec<Span<'static>> {
    let (mine, theirs) = match which {
        Which::A => (&row.a, &row.b),
        Which::B => (&row.b, &row.a),
    };
    let other = match which {
        Which::A => Which::B,
        Which::B => Which::A,
    };
    mine.iter()
        .enumerate()
        .map(|(i, cell)| {
            let text = match row.only_in {
                Some(only) if only == other && i == 0 => {
                    format!("— only in {}", crate::compare::side_name(other))
                }
                _ => cell.text.clone(),
            };
            let mut style = tone(cell.tone);
            if theirs.get(i).is_none_or(|t| t.text != cell.text) {
                style = style.add_modifier(Modifier::BOLD);
            }
            Span::styled(cell_text(&text, width), style)
        })
        .collect()
}

/// `text` in a cell `width` wide, a space kept before the next.
fn cell_text(text: &str, width: usize) -> String {
    let mut cell = pad(text, width.saturating_sub(1));
    cell.push(' ');
    cell
}

fn tone(tone: Tone) -> Style {
    match tone {
        Tone::Plain => Style::default(),
        Tone::Good => Style::default().fg(theme::GO),
        Tone::Caution => caution(),
        Tone::Bad => theme::error(),
        Tone::Absent => theme::dim(),
    }
}
