//! The round table: agents × rounds, each cell the agent's stance (glyph and
//! word in its colour) and confidence; under each round its conflicts and
//! decision; below the grid the selected contribution (`detail`).

use super::TableView;
use super::colours;
use super::detail;
use super::state::{Cell, RoundColumn, RoundTable};
use crate::patterns::collaboration::escalate::HumanChoice;
use crate::patterns::events::Conflict;
use crate::tui::keymap::PaneId;
use crate::tui::patterns::seen::Seen;
use crate::tui::search;
use crate::tui::state::partial::PartialText;
use crate::tui::text::pad;
use crate::tui::theme;
use crate::tui::widgets::block;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

const CELL: usize = 15;
const NAME_MAX: usize = 20;
/// Rows the grid adds to the agents: the round header, conflicts, decision.
const GRID_EXTRA: usize = 3;
/// Rows kept for the selected contribution under the grid.
const DETAIL_ROWS: usize = 6;

/// How tall the pane would like to be for `table`.
pub(super) fn wanted_height(table: &RoundTable) -> u16 {
    let rows = table.roles.len().max(1) + GRID_EXTRA + DETAIL_ROWS + 2;
    u16::try_from(rows).unwrap_or(u16::MAX)
}

/// Rows under the grid for the selected contribution, in a pane `height`
/// rows tall inside its border.
fn detail_rows(table: &RoundTable, height: usize) -> usize {
    let grid_wanted = table.roles.len().max(1) + GRID_EXTRA;
    if height >= grid_wanted + 2 {
        DETAIL_ROWS.min(height - grid_wanted)
    } else {
        0
    }
}

/// How many agents the grid shows in a pane `height` rows tall.
pub(super) fn visible_roles(table: &RoundTable, height: usize) -> usize {
    let grid_rows = height.saturating_sub(detail_rows(table, height));
    grid_rows.saturating_sub(GRID_EXTRA).max(1)
}

pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    table: &RoundTable,
    selection: &TableView,
    seen: Seen,
) {
    let block = block(PaneId::Pattern, &title(table), seen.focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }

    // The agent being asked whose answer is streaming in, if any: the
    // detail shows it while the selection follows (or rests on it).
    let writing = writing_cell(table, seen);
    let selected = match writing {
        Some((row, col, _)) if selection.follow => (row, col),
        _ => selection.selection(table),
    };
    let window = Window::around(table, inner, selected);
    let query = selection.search.as_deref();

    let mut lines = Vec::with_capacity(window.grid_rows);
    lines.push(rounds_row(table, &window));
    lines.extend(role_rows(table, &window, selected, writing, seen, query));
    lines.extend(outcome_rows(table, &window, seen.live));
    let grid_area = Rect {
        height: u16::try_from(window.grid_rows).unwrap_or(inner.height),
        ..inner
    };
    frame.render_widget(Paragraph::new(lines), grid_area);

    if window.detail_rows > 0 {
        let detail_area = Rect {
            y: inner.y + grid_area.height,
            height: inner.height - grid_area.height,
            ..inner
        };
        detail::draw(frame, detail_area, table, selected, writing, query);
    }
}

/// The pane's title: the round the table is at, of how many.
fn title(table: &RoundTable) -> String {
    match table.rounds.last() {
        Some(column) => format!(
            "Round table · round {} of {}",
            column.round, table.max_rounds
        ),
        None => "Round table".to_string(),
    }
}

/// The part of the grid a pane's inside shows, scrolled so that the
/// selected cell is in view, and the rows left under it for the detail.
struct Window<'t> {
    /// The width of the agents' names, the grid's first column.
    name_w: usize,
    /// How many rounds are scrolled off to the left.
    first_col: usize,
    /// The rounds shown, with their index in the table.
    columns: Vec<(usize, &'t RoundColumn)>,
    first_role: usize,
    visible_roles: usize,
    grid_rows: usize,
    detail_rows: usize,
}

impl<'t> Window<'t> {
    fn around(table: &'t RoundTable, inner: Rect, (sel_row, sel_col): (usize, usize)) -> Self {
        let name_w = table
            .roles
            .iter()
            .map(|r| r.chars().count())
            .max()
            .unwrap_or(5)
            .clamp(5, NAME_MAX)
            + 1;
        let width = usize::from(inner.width);
        let visible_cols = (width.saturating_sub(name_w) / CELL).max(1);
        let first_col = (sel_col + 1).saturating_sub(visible_cols);
        let columns: Vec<(usize, &RoundColumn)> = table
            .rounds
            .iter()
            .map(AsRef::as_ref)
            .enumerate()
            .skip(first_col)
            .take(visible_cols)
            .collect();

        let height = usize::from(inner.height);
        let detail_rows = detail_rows(table, height);
        let visible_roles = visible_roles(table, height);
        Window {
            name_w,
            first_col,
            columns,
            first_role: (sel_row + 1).saturating_sub(visible_roles),
            visible_roles,
            grid_rows: height - detail_rows,
            detail_rows,
        }
    }
}

/// The grid's first row: a round's name over each column, and how many
/// rounds are scrolled off to the left.
fn rounds_row(table: &RoundTable, window: &Window) -> Line<'static> {
    let name_w = window.name_w;
    let mut header = vec![Span::styled(pad("agent", name_w), theme::dim())];
    if window.first_col > 0 {
        let more = format!("◀ {} more", window.first_col);
        header[0] = Span::styled(pad(&more, name_w), theme::dim());
    }
    for (_, column) in &window.columns {
        header.push(Span::styled(
            pad(&format!("R{}", column.round), CELL),
            theme::bold(),
        ));
    }
    if table.rounds.is_empty() {
        header.push(Span::styled("waiting for round 1", theme::dim()));
    }
    Line::from(header)
}

/// A row per agent in view: its name and its cell in each round shown.
fn role_rows(
    table: &RoundTable,
    window: &Window,
    (sel_row, sel_col): (usize, usize),
    writing: Option<(usize, usize, &PartialText)>,
    seen: Seen,
    query: Option<&str>,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (row, role) in table
        .roles
        .iter()
        .enumerate()
        .skip(window.first_role)
        .take(window.visible_roles)
    {
        let name = search::highlight(Line::raw(pad(role, window.name_w)), query);
        let mut spans = name.spans;
        for (col, column) in &window.columns {
            let written = writing.is_some_and(|(r, c, _)| (r, c) == (row, *col));
            let mut span = cell_span(column.cells.get(row).and_then(Option::as_ref), written);
            if row == sel_row && *col == sel_col {
                span = span.patch_style(theme::selected());
            }
            spans.push(span);
        }
        // What the seat's model calls took and cost, where room is left.
        if let Some(spent) = seen.spent_by(role) {
            spans.push(Span::styled(format!(" {spent}"), theme::dim()));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// The grid's last two rows: each round's conflicts, then its decision.
fn outcome_rows(table: &RoundTable, window: &Window, live: bool) -> [Line<'static>; 2] {
    let (name_w, columns) = (window.name_w, window.columns.as_slice());
    // A round the run never finished has no outcome to wait for.
    let pending = if live { "…" } else { "—" };
    let conflicts = footer_line("conflicts", name_w, columns, |c| {
        if !c.finished {
            return Span::styled(pad(pending, CELL), theme::dim());
        }
        let words: Vec<&str> = c.conflicts.iter().map(|c| conflict_word(*c)).collect();
        if words.is_empty() {
            Span::styled(pad("none", CELL), theme::dim())
        } else {
            Span::styled(
                pad(&words.join(","), CELL),
                Style::default().fg(theme::CAUTION),
            )
        }
    });
    // The table's last round leads to no next one once the run has ended.
    let last_round = table.rounds.last().map(|c| c.round);
    let decision = footer_line("decision", name_w, columns, |c| {
        if let Some(choice) = c.person {
            return person_cell(choice);
        }
        match (c.finished, c.decision) {
            (false, _) => Span::styled(pad(pending, CELL), theme::dim()),
            // No next round until a person answers, if one ever does.
            (true, None) if c.escalated => {
                Span::styled(pad("? escalated", CELL), theme::bold().fg(theme::CAUTION))
            }
            (true, None) if !live && Some(c.round) == last_round => {
                Span::styled(pad("✗ none", CELL), theme::error())
            }
            (true, None) => Span::styled(pad("→ next", CELL), theme::dim()),
            (true, Some(d)) => Span::styled(
                pad(&d.as_str().replace('_', " ").to_uppercase(), CELL),
                colours::decision(d),
            ),
        }
    });
    [conflicts, decision]
}

/// The decision row's cell of a round after which a person answered: the
/// answer, marked as theirs.
fn person_cell(choice: HumanChoice) -> Span<'static> {
    let words = match choice {
        HumanChoice::Go => "person: GO",
        HumanChoice::GoWithCaution => "person: CAUTION",
        HumanChoice::NoGo => "person: NO GO",
        HumanChoice::Continue => "person: → next",
    };
    let style = choice.decision().map_or(theme::bold(), |d| {
        colours::decision(d).add_modifier(Modifier::BOLD)
    });
    Span::styled(pad(words, CELL), style)
}

fn footer_line<'a>(
    label: &str,
    name_w: usize,
    columns: &[(usize, &RoundColumn)],
    cell: impl Fn(&RoundColumn) -> Span<'a>,
) -> Line<'a> {
    let mut spans = vec![Span::styled(pad(label, name_w), theme::dim())];
    spans.extend(columns.iter().map(|(_, c)| cell(c)));
    Line::from(spans)
}

/// The cell of the agent being asked whose answer is streaming in: its
/// row, its column and the text so far.
fn writing_cell<'a>(table: &RoundTable, seen: Seen<'a>) -> Option<(usize, usize, &'a PartialText)> {
    let col = table.rounds.len().checked_sub(1)?;
    table.rounds[col]
        .cells
        .iter()
        .enumerate()
        .filter(|(_, cell)| matches!(cell, Some(Cell::Waiting)))
        .find_map(|(row, _)| {
            let text = seen.writing(table.roles.get(row).map(String::as_str))?;
            Some((row, col, text))
        })
}

/// `written`: the agent's answer is streaming in.
fn cell_span(cell: Option<&Cell>, written: bool) -> Span<'static> {
    match cell {
        None => Span::styled(pad(" ·", CELL), theme::dim()),
        Some(Cell::Waiting) if written => Span::styled(
            pad("✎ writing", CELL),
            Style::default()
                .fg(theme::ACCENT)
                .add_modifier(ratatui::style::Modifier::ITALIC),
        ),
        Some(Cell::Waiting) => {
            Span::styled(pad("… asking", CELL), Style::default().fg(theme::ACCENT))
        }
        Some(Cell::Rejected { .. }) => Span::styled(pad("✗ rejected", CELL), theme::error()),
        Some(Cell::Accepted(c)) => Span::styled(
            pad(
                &format!(
                    "{} {:<7} {:.2}",
                    colours::stance_glyph(c.stance),
                    c.stance.as_str(),
                    c.confidence
                ),
                CELL,
            ),
            colours::stance(c.stance),
        ),
    }
}

fn conflict_word(conflict: Conflict) -> &'static str {
    match conflict {
        Conflict::NoContributions => "empty",
        Conflict::GoVsCaution => "go/caution",
        Conflict::BlockingVsNonBlock => "blocked",
        Conflict::HighDivergence => "split",
    }
}
