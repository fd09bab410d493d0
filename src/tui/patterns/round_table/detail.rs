//! The rows under the round table's grid: the selected contribution in
//! words (its stance, summary and actions, or why it is missing), or the
//! answer being written there, as far as it has come.

use super::colours;
use super::state::{Cell, RoundTable};
use crate::patterns::events::Stance;
use crate::tui::search;
use crate::tui::state::partial::PartialText;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// The selected cell's contribution in `area`, or its answer while it is
/// `writing`, with the search's matches marked.
pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    table: &RoundTable,
    (sel_row, sel_col): (usize, usize),
    writing: Option<(usize, usize, &PartialText)>,
    query: Option<&str>,
) {
    let width = usize::from(area.width);
    let lines = match writing {
        Some((row, col, text)) if (row, col) == (sel_row, sel_col) => {
            being_written(table, row, col, text, width, area.height)
        }
        _ => detail(table, sel_row, sel_col, width),
    };
    frame.render_widget(
        Paragraph::new(
            lines
                .into_iter()
                .map(|line| search::highlight(line, query))
                .collect::<Vec<_>>(),
        )
        .wrap(Wrap { trim: false }),
        area,
    );
}

/// The selected contribution in words.
fn detail(table: &RoundTable, row: usize, col: usize, width: usize) -> Vec<Line<'static>> {
    let role = table.roles.get(row).map_or("", String::as_str);
    let round = table.rounds.get(col).map_or(0, |c| c.round);
    let heading = |extra: Span<'static>| {
        Line::from(vec![
            Span::styled(
                fit(&format!("{role} · round {round} · "), width),
                theme::bold(),
            ),
            extra,
        ])
    };
    match table.cell(row, col) {
        Some(Cell::Accepted(c)) => {
            let mut lines = vec![heading(stance_words(c.stance, c.confidence))];
            lines.push(Line::raw(fit(&c.summary, 2000)));
            for action in &c.actions {
                lines.push(Line::styled(
                    format!("→ {}", fit(action, 500)),
                    Style::default().fg(theme::ACCENT),
                ));
            }
            lines
        }
        Some(Cell::Rejected { reason, .. }) => vec![
            heading(Span::styled("rejected", theme::error())),
            Line::styled(fit(&reason.to_string(), 500), theme::error()),
            Line::styled("Enter shows what the model returned", theme::dim()),
        ],
        Some(Cell::Waiting) => vec![heading(Span::styled(
            "waiting for the model…",
            theme::dim(),
        ))],
        None if table.rounds.is_empty() => {
            vec![Line::styled("The table has not met yet.", theme::dim())]
        }
        None => vec![heading(Span::styled("did not speak", theme::dim()))],
    }
}

/// The summary of the contribution being written, as far as it has come:
/// its end, in the `rows` under the heading, marked as in progress.
fn being_written(
    table: &RoundTable,
    row: usize,
    col: usize,
    text: &PartialText,
    width: usize,
    rows: u16,
) -> Vec<Line<'static>> {
    let role = table.roles.get(row).map_or("", String::as_str);
    let round = table.rounds.get(col).map_or(0, |c| c.round);
    let heading = Line::from(vec![
        Span::styled(
            fit(&format!("{role} · round {round} · "), width),
            theme::bold(),
        ),
        Span::styled("writing…", Style::default().fg(theme::ACCENT)),
        Span::styled(format!(" {} characters", text.chars()), theme::dim()),
    ]);
    // Wrapped at words, the rows hold a little less than rows × width.
    let room = usize::from(rows.saturating_sub(1)).max(1) * width.max(1) * 3 / 4;
    vec![heading, widgets::writing(text, &["summary"], room)]
}

fn stance_words(stance: Stance, confidence: f64) -> Span<'static> {
    Span::styled(
        format!(
            "{} {} · confidence {confidence:.2}",
            colours::stance_glyph(stance),
            stance.as_str()
        ),
        colours::stance(stance),
    )
}
