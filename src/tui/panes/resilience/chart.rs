//! The selected tool over the whole run: calls a second, error rate and
//! p95 latency as bars sharing one time axis, each with its scale, and the
//! breaker's state along the same axis (closed ─, half-open ▒, open █),
//! its moves also marked through the bars (┊). Drawn from the tool's
//! bounded history; it draws and changes nothing.

use crate::bus::BreakerState;
use crate::bus::describe::clock;
use crate::tui::state::{Period as Column, ToolHealth, moved_bit};
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use crate::tui::widgets::millis;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The least rows a chart takes: a title, a row per figure, the breaker,
/// the axis and its labels.
pub(super) const CHART_ROWS: usize = 7;
/// The least columns: the scales and some run time.
pub(super) const CHART_COLUMNS: usize = 40;
/// The scales' width, left of the bars.
const GUTTER: usize = 14;
/// The most rows a figure's bars take.
const MOST_BAR_ROWS: usize = 5;
const LEVELS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Bars for `values` scaled so `top` fills `height` rows, as rows of
/// text from the top; `None` is a gap.
pub(super) fn bars(values: &[f64], top: f64, height: usize) -> Vec<String> {
    let optional: Vec<Option<f64>> = values.iter().map(|v| Some(*v)).collect();
    bar_rows(&optional, top, height)
}

fn bar_rows(values: &[Option<f64>], top: f64, height: usize) -> Vec<String> {
    let eighths: Vec<usize> = values
        .iter()
        .map(|v| match v {
            Some(v) if *v > 0.0 && top > 0.0 => {
                let full = (height * 8) as f64;
                ((v / top * full).ceil() as usize).clamp(1, height * 8)
            }
            _ => 0,
        })
        .collect();
    (0..height)
        .map(|row| {
            let under = (height - 1 - row) * 8;
            eighths
                .iter()
                .map(|e| LEVELS[e.saturating_sub(under).min(8)])
                .collect()
        })
        .collect()
}

pub(super) fn spark_colour() -> Style {
    Style::default().fg(theme::ACCENT)
}

/// A run time for an axis: seconds with a tenth, or the clock past 100 s
/// (cut, not rounded, as the header's clock is).
fn at(ms: u64) -> String {
    if ms < 100_000 {
        format!("{}.{}s", ms / 1000, ms / 100 % 10)
    } else {
        clock(ms)
    }
}

/// A rate for a scale: `12`, `3.5`, `0.25`.
fn rate(value: f64) -> String {
    if value >= 10.0 {
        format!("{value:.0}")
    } else if value >= 1.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// The mark of a breaker's moves in one column: the worst state it moved
/// to, if any.
fn moved_to(column: &Column) -> Option<BreakerState> {
    [
        BreakerState::Open,
        BreakerState::HalfOpen,
        BreakerState::Closed,
    ]
    .into_iter()
    .find(|s| column.moved & moved_bit(*s) != 0)
}

/// One figure: its name, its scale's top, its values and colour.
struct Figure {
    name: &'static str,
    top: f64,
    scale: String,
    values: Vec<Option<f64>>,
    style: Style,
}

/// The chart of `tool` from the run's start to `now_ms`, `width` columns
/// wide, in at most `rows` rows (at least `CHART_ROWS`).
pub(super) fn chart(
    tool: &ToolHealth,
    now_ms: u64,
    width: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    let plot = width.saturating_sub(GUTTER).max(1);
    let columns = tool.history.columns(now_ms, plot);
    let per_second: Vec<Option<f64>> = columns.iter().map(|c| Some(c.calls_per_second())).collect();
    let peak = per_second.iter().flatten().copied().fold(0.0, f64::max);
    let p95: Vec<Option<f64>> = columns
        .iter()
        .map(|c| c.latencies.percentile(95).map(|ms| ms as f64))
        .collect();
    let slowest = p95.iter().flatten().copied().fold(0.0, f64::max);
    // Latency is read against the timeout: a bar that fills its rows took
    // all of it.
    let latency_top = tool.timeout_ms.map_or(slowest, |t| slowest.max(t as f64));
    let figures = [
        Figure {
            name: "calls/s",
            top: peak,
            scale: rate(peak),
            values: per_second,
            style: spark_colour(),
        },
        error_figure(columns.iter().map(Column::error_rate).collect()),
        Figure {
            // The scale's top is the timeout when it is above every p95:
            // said, so that it is not read as the p95 itself.
            name: if latency_top > slowest {
                "p95 t/o"
            } else {
                "p95"
            },
            top: latency_top,
            scale: millis(latency_top as u64),
            values: p95,
            style: Style::default().fg(theme::CAUTION),
        },
    ];
    let height = (rows.saturating_sub(4) / figures.len()).clamp(1, MOST_BAR_ROWS);
    let mut lines = vec![title(tool, now_ms, width, slowest)];
    for figure in &figures {
        lines.extend(figure_rows(figure, &columns, height));
    }
    lines.push(breaker_row(tool, &columns));
    lines.extend(axis(now_ms, plot));
    lines
}

/// The error rates against a scale that fits them: its top is the
/// highest rate rounded up to 10, 25, 50 or 100%, and reads `none` while
/// nothing failed, so a quiet tool is never labelled `100%`.
fn error_figure(values: Vec<Option<f64>>) -> Figure {
    let highest = values.iter().flatten().copied().fold(0.0, f64::max);
    let top = [0.1, 0.25, 0.5, 1.0]
        .into_iter()
        .find(|top| highest <= *top)
        .unwrap_or(1.0);
    Figure {
        name: "errors",
        top,
        scale: if highest > 0.0 {
            format!("{:.0}%", top * 100.0)
        } else {
            "none".into()
        },
        values,
        style: theme::error(),
    }
}

fn title(tool: &ToolHealth, now_ms: u64, width: usize, slowest: f64) -> Line<'static> {
    let mut text = format!("{} · run 0–{}", tool.name, at(now_ms));
    if tool.calls == 0 && tool.rejected == 0 {
        text.push_str(" · no calls yet");
    }
    if let Some(b) = tool.breaker.as_ref().filter(|b| b.opened > 0) {
        text.push_str(&format!(" · breaker opened {}×", b.opened));
    }
    if let Some(timeout) = tool.timeout_ms {
        text.push_str(&format!(" · timeout {}", millis(timeout)));
    }
    if slowest > 0.0 {
        text.push_str(&format!(" · p95 up to {}", millis(slowest as u64)));
    }
    Line::styled(fit(&text, width), theme::bold())
}

/// A figure's rows: the scale on the left (the top value on the first
/// row, 0 on the last), its bars, and the breaker's moves in the gaps.
fn figure_rows(figure: &Figure, columns: &[Column], height: usize) -> Vec<Line<'static>> {
    let rows = bar_rows(&figure.values, figure.top, height);
    rows.into_iter()
        .enumerate()
        .map(|(row, text)| {
            let gutter = match row {
                0 => format!("{:<7}{:>5} ┤", figure.name, fit(&figure.scale, 5)),
                _ if row == height - 1 => format!("{:>12} ┤", "0"),
                _ => format!("{:13}│", ""),
            };
            let mut line = Line::from(Span::styled(gutter, theme::dim()));
            let cells =
                text.chars()
                    .zip(columns)
                    .map(|(glyph, column)| match (glyph, moved_to(column)) {
                        (' ', Some(state)) => ('┊', theme::breaker(state)),
                        (glyph, _) => (glyph, figure.style),
                    });
            push_runs(&mut line, cells);
            line
        })
        .collect()
}

/// The breaker's worst state in each column (· while switched off).
fn breaker_row(tool: &ToolHealth, columns: &[Column]) -> Line<'static> {
    let mut line = Line::from(Span::styled(format!("{:13}│", "breaker"), theme::dim()));
    if tool.breaker.is_none() {
        line.push_span(Span::styled("none", theme::dim()));
        return line;
    }
    let cells = columns.iter().map(|c| match c.worst {
        None => ('·', theme::dim()),
        Some(state) => (
            match state {
                BreakerState::Closed => '─',
                BreakerState::HalfOpen => '▒',
                BreakerState::Open => '█',
            },
            theme::breaker(state),
        ),
    });
    push_runs(&mut line, cells);
    line
}

/// The time axis under the bars, with the start, the middle and now.
fn axis(now_ms: u64, plot: usize) -> Vec<Line<'static>> {
    let marks = [
        (0, 0),
        (plot / 2, now_ms / 2),
        (plot.saturating_sub(1), now_ms),
    ];
    let mut rule: Vec<char> = vec!['─'; plot];
    let mut labels: Vec<char> = vec![' '; plot];
    for (i, (column, ms)) in marks.iter().enumerate() {
        // The corner marks the start.
        if let Some(cell) = rule.get_mut(*column).filter(|_| i > 0) {
            *cell = '┴';
        }
        let text = at(*ms);
        let len = text.chars().count();
        let start = match i {
            0 => 0,
            1 => column.saturating_sub(len / 2),
            _ => plot.saturating_sub(len),
        };
        let free = labels[start.min(plot)..(start + len).min(plot)]
            .iter()
            .all(|c| *c == ' ')
            && (start == 0 || labels[start - 1] == ' ');
        if free && start + len <= plot {
            for (offset, c) in text.chars().enumerate() {
                labels[start + offset] = c;
            }
        }
    }
    vec![
        Line::styled(
            format!("{:13}└{}", "", rule.into_iter().collect::<String>()),
            theme::dim(),
        ),
        Line::styled(
            format!(
                "{}{}",
                pad("", GUTTER),
                labels.into_iter().collect::<String>()
            ),
            theme::dim(),
        ),
    ]
}

/// Append cells to `line`, one span per run of one style.
fn push_runs(line: &mut Line<'static>, cells: impl Iterator<Item = (char, Style)>) {
    let mut run = String::new();
    let mut style = Style::default();
    for (glyph, cell) in cells {
        if cell != style && !run.is_empty() {
            line.push_span(Span::styled(std::mem::take(&mut run), style));
        }
        style = cell;
        run.push(glyph);
    }
    if !run.is_empty() {
        line.push_span(Span::styled(run, style));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_fill_eighths_from_the_bottom_and_show_any_non_zero_value() {
        assert_eq!(bars(&[0.0, 1.0, 2.0, 4.0, 8.0], 8.0, 1), vec![" ▁▂▄█"]);
        assert_eq!(
            bars(&[8.0, 4.0, 1.0, 0.01], 8.0, 2),
            vec!["█   ", "██▂▁"],
            "two rows: a half fills the lower one"
        );
        assert_eq!(bars(&[3.0], 0.0, 1), vec![" "], "no scale, no bar");
        assert_eq!(bar_rows(&[None, Some(0.5)], 1.0, 1), vec![" ▄"]);
    }

    #[test]
    fn the_axis_labels_the_start_the_middle_and_now() {
        let lines = axis(9_900, 40);
        let labels = lines[1].to_string();
        assert!(labels.starts_with(&" ".repeat(GUTTER)));
        let labels = labels.trim();
        assert!(
            labels.starts_with("0.0s") && labels.ends_with("9.9s"),
            "{labels}"
        );
        assert!(labels.contains("4.9s"), "{labels}");
        assert_eq!(lines[0].to_string().matches('┴').count(), 2);
        assert_eq!(at(754_999), "12:34.9", "long runs read as a clock");
    }

    #[test]
    fn the_error_scale_fits_the_rates_and_reads_none_without_errors() {
        let quiet = error_figure(vec![Some(0.0), None, Some(0.0)]);
        assert_eq!((quiet.scale.as_str(), quiet.top), ("none", 0.1));
        let some = error_figure(vec![Some(0.0), Some(0.2), Some(0.05)]);
        assert_eq!((some.scale.as_str(), some.top), ("25%", 0.25));
        let all = error_figure(vec![Some(1.0)]);
        assert_eq!(all.scale, "100%");
        // The figure's top row names the scale, never 100% for a quiet tool.
        let rows = figure_rows(&quiet, &[], 2);
        assert!(
            rows[0].to_string().starts_with("errors  none ┤"),
            "{}",
            rows[0]
        );
    }
}
