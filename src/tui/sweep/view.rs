//! Drawing the sweep: a line of progress, the charts to choose from, and
//! per combination its bars side by side, or the runs of the selected
//! bar. Reads the sweep's state and never changes it.

use super::bars::Group;
use super::state::{Chart, Ended, SweepState};
use crate::sweep::JobResult;
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// The narrowest a combination's column is drawn.
const MIN_COLUMN: u16 = 34;

pub(crate) fn draw(frame: &mut Frame, area: Rect, sweep: &SweepState) {
    let mut title = format!(" Sweep · {} ", fit(&sweep.scenario.name, 40));
    if let Some(from) = &sweep.from {
        title.push_str(&format!("· {} ", fit(from, 60)));
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border(true))
        .title(Span::styled(title, theme::bold()));
    let inner = block.inner(area);
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(block, area);
    if inner.height < 3 || inner.width < 10 {
        return;
    }
    let head = Paragraph::new(vec![
        progress(sweep),
        tabs(sweep.chart),
        Line::styled(format!(" {}", sweep.chart.title()), theme::dim()),
    ]);
    frame.render_widget(head, Rect { height: 3, ..inner });
    let body = Rect {
        y: inner.y + 3,
        height: inner.height - 3,
        ..inner
    };
    let groups = sweep.groups();
    match sweep.listing {
        Some(row) => draw_listing(frame, body, sweep, &groups, row),
        None => draw_groups(frame, body, sweep, &groups),
    }
}

/// Where the sweep stands.
fn progress(sweep: &SweepState) -> Line<'static> {
    let tally = &sweep.tally;
    let (seeds, done, total) = (tally.seeds(), tally.done(), tally.total());
    let state = match &sweep.ended {
        None => Span::styled("running", Style::default().fg(theme::ACCENT)),
        Some(Ended::Done) => Span::styled("done", Style::default().fg(theme::GO)),
        Some(Ended::Failed(why)) => {
            Span::styled(format!("stopped: {}", fit(why, 80)), theme::error())
        }
    };
    // Where it stands first: the file's name is what a narrow screen cuts.
    Line::from(vec![
        Span::raw(" "),
        state,
        Span::raw(format!(
            " · {done}/{total} runs · seeds {}..{} · {} · {}",
            seeds.start(),
            seeds.end(),
            crate::words::plural(tally.combination_count() as u64, "combination"),
            fit(&sweep.source, 60),
        )),
    ])
}

/// The charts, the shown one marked.
fn tabs(shown: Chart) -> Line<'static> {
    let mut spans = vec![Span::raw(" ")];
    for (i, chart) in Chart::ALL.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", theme::dim()));
        }
        let style = if chart == shown {
            theme::selected().add_modifier(ratatui::style::Modifier::BOLD)
        } else {
            Style::default()
        };
        spans.push(Span::styled(chart.tab(), style));
    }
    Line::from(spans)
}

/// A combination's flags as the screen names it.
pub(crate) fn flags_label(flags: &[(String, bool)]) -> String {
    if flags.is_empty() {
        return "no flags".into();
    }
    flags
        .iter()
        .map(|(name, on)| format!("{name}={}", if *on { "on" } else { "off" }))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every combination's bars, in columns, the rows of columns scrolled so
/// that the selected bar shows.
fn draw_groups(frame: &mut Frame, area: Rect, sweep: &SweepState, groups: &[Group]) {
    if groups.iter().all(|g| g.bars.is_empty()) {
        let finished =
            (0..sweep.tally.combination_count()).any(|c| !sweep.tally.results(c).is_empty());
        let why = if finished && sweep.chart == Chart::Cost {
            // Runs did finish: what is missing is a price, not a run.
            format!(
                " No run has a cost: the model {} has no price. Give one with --pricing FILE or the scenario's provider.pricing.",
                fit(&sweep.model, 60)
            )
        } else {
            " No runs have finished yet.".to_string()
        };
        frame.render_widget(
            Paragraph::new(Line::styled(why, theme::dim()))
                .wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    let columns = (area.width / MIN_COLUMN)
        .clamp(1, 3)
        .min(groups.len() as u16)
        .max(1);
    let width = area.width / columns;
    let selected = sweep.selected_in(groups);
    let most = groups
        .iter()
        .flat_map(|g| &g.bars)
        .map(|b| b.runs.len())
        .max()
        .unwrap_or(0);
    let label_width = groups
        .iter()
        .flat_map(|g| &g.bars)
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0)
        .min(usize::from(width) / 2);
    // Rows of columns, each as tall as its tallest group.
    let rows: Vec<&[Group]> = groups.chunks(usize::from(columns)).collect();
    let first_row = selected.map_or(0, |(g, _)| g / usize::from(columns));
    let mut y = area.y;
    for (r, row) in rows
        .iter()
        .enumerate()
        .skip(scrolled_from(&rows, first_row, area.height))
    {
        let height = row.iter().map(|g| g.bars.len() + 2).max().unwrap_or(0) as u16;
        for (c, group) in row.iter().enumerate() {
            let g = r * usize::from(columns) + c;
            let column = Rect {
                x: area.x + width * c as u16,
                y,
                width: width.saturating_sub(1),
                height: height.min(area.bottom().saturating_sub(y)),
            };
            let mark = selected.and_then(|(sg, sb)| (sg == g).then_some(sb));
            draw_group(frame, column, sweep, group, mark, most, label_width);
        }
        y = y.saturating_add(height);
        if y >= area.bottom() {
            break;
        }
    }
}

/// The first row of columns drawn: the selected bar's row shows.
fn scrolled_from(rows: &[&[Group]], selected_row: usize, height: u16) -> usize {
    let heights: Vec<u16> = rows
        .iter()
        .map(|row| row.iter().map(|g| g.bars.len() + 2).max().unwrap_or(0) as u16)
        .collect();
    let mut first = 0;
    while first < selected_row && heights[first..=selected_row].iter().sum::<u16>() > height {
        first += 1;
    }
    first
}

/// A bar's colour: on the outcomes chart, how the runs in it ended (a
/// partial run in the caution colour, a stopped one in the error colour);
/// elsewhere the accent.
fn bar_style(chart: Chart, label: &str) -> Style {
    if chart != Chart::Outcomes {
        return Style::default().fg(theme::ACCENT);
    }
    if label.ends_with("/partial") {
        Style::default().fg(theme::CAUTION)
    } else if label.starts_with("stopped/") {
        Style::default().fg(theme::BLOCK)
    } else {
        Style::default().fg(theme::GO)
    }
}

fn draw_group(
    frame: &mut Frame,
    area: Rect,
    sweep: &SweepState,
    group: &Group,
    selected: Option<usize>,
    most: usize,
    label_width: usize,
) {
    let flags = sweep
        .tally
        .combination(group.combination)
        .map_or_else(String::new, |f| flags_label(&f));
    let runs = sweep.tally.results(group.combination).len();
    let width = usize::from(area.width);
    let mut lines = vec![Line::styled(
        fit(&format!(" {flags} · {runs} runs"), width),
        theme::bold(),
    )];
    let count_width = most.to_string().len();
    let room = width.saturating_sub(label_width + count_width + 4);
    for (i, bar) in group.bars.iter().enumerate() {
        let n = bar.runs.len();
        let filled = if most == 0 || n == 0 {
            0
        } else {
            (n * room).div_ceil(most).max(1)
        };
        // The selection shows as a mark too, not by reverse video alone.
        let mark = if selected == Some(i) { "▶" } else { " " };
        let row = Line::from(vec![
            Span::raw(format!("{mark}{} ", pad(&bar.label, label_width))),
            Span::styled("█".repeat(filled), bar_style(sweep.chart, &bar.label)),
            Span::raw(format!("{} {n:>count_width$}", " ".repeat(room - filled))),
        ]);
        lines.push(if selected == Some(i) {
            row.style(theme::selected())
        } else {
            row
        });
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The selected bar's runs, one a row, scrolled to the selected one.
fn draw_listing(frame: &mut Frame, area: Rect, sweep: &SweepState, groups: &[Group], row: usize) {
    let Some((g, b)) = sweep.selected_in(groups) else {
        return;
    };
    let group = &groups[g];
    let flags = sweep
        .tally
        .combination(group.combination)
        .map_or_else(String::new, |f| flags_label(&f));
    let listed = sweep.listed();
    let width = usize::from(area.width);
    let mut lines = vec![Line::styled(
        fit(
            &format!(
                " Runs of {flags} · {} {} ({})",
                sweep.chart.tab(),
                group.bars[b].label,
                listed.len()
            ),
            width,
        ),
        theme::bold(),
    )];
    let rows = usize::from(area.height).saturating_sub(1);
    let row = row.min(listed.len().saturating_sub(1));
    let first = (row + 1).saturating_sub(rows);
    for (i, result) in listed.iter().enumerate().skip(first).take(rows) {
        let mark = if i == row { "▶" } else { " " };
        let line = Line::raw(fit(&format!("{mark}{}", run_row(result)), width));
        lines.push(if i == row {
            line.style(theme::selected())
        } else {
            line
        });
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// One run of a bar: its seed, outcome and measures.
fn run_row(result: &JobResult) -> String {
    let used: Vec<String> = result
        .used
        .named()
        .map(|(name, n)| format!("{} {n}", name.replace('_', " ")))
        .collect();
    let mut measures = used;
    measures.push(format!("{} model calls", result.model_calls));
    if result.tool_calls > 0 {
        measures.push(format!("{} tool calls", result.tool_calls));
    }
    let mut tokens = match result.input_tokens.saturating_add(result.output_tokens) {
        u64::MAX => format!("{} tokens (held: past the largest count)", u64::MAX),
        tokens => format!("{tokens} tokens"),
    };
    let parts: Vec<String> = [
        (result.cached_tokens, "cached"),
        (result.reasoning_tokens, "reasoning"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if !parts.is_empty() {
        tokens.push_str(&format!(" ({})", parts.join(", ")));
    }
    measures.push(tokens);
    format!(
        "seed {:<6} {:<36} {}",
        result.seed,
        result.outcome,
        measures.join(" · ")
    )
}
