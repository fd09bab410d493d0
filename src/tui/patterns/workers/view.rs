//! The workers pane: one row per planned task in plan order or as sorted
//! (id, worker, critical mark, state, attempt n of max, a gauge of the
//! attempt's elapsed time against its timeout, the retry countdown, and
//! the stop reason or a one-line result), a summary line, and the selected
//! task's attempts. The window of rows follows the running tasks until the
//! user moves the selection.

use super::durations::Durations;
use super::list::{self, SHOW_WORDS};
use super::state::{TaskState, TaskView, Workers};
use crate::patterns::events::Health;
use crate::tui::keymap::PaneId;
use crate::tui::patterns::seen::Seen;
use crate::tui::search;
use crate::tui::selection::ListView;
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use crate::tui::widgets::{GAUGE, block, gauge, millis, parts, plural, seconds};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// Rows kept under the list for the selected task's attempts.
const DETAIL_ROWS: usize = 3;

/// How tall the pane would like to be.
pub(super) fn wanted_height(workers: &Workers) -> u16 {
    u16::try_from(workers.tasks.len().max(1) + 2 + DETAIL_ROWS + 2).unwrap_or(u16::MAX)
}

/// Rows under the list for the selected task's attempts, in a pane
/// `height` rows tall inside its border.
fn detail_rows(height: usize) -> usize {
    if height > DETAIL_ROWS + 4 {
        DETAIL_ROWS
    } else {
        0
    }
}

/// Rows of the list: what the summary line, the durations of a large
/// plan and the attempts leave.
pub(super) fn list_rows(workers: &Workers, height: usize) -> usize {
    let head = 1 + usize::from(workers.is_large());
    height.saturating_sub(head + detail_rows(height)).max(1)
}

pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    workers: &Workers,
    selection: &ListView,
    seen: Seen,
) {
    let focused = seen.focused;
    let shown = list::shown(workers, selection);
    let height = usize::from(area.height.saturating_sub(2));
    let list_rows = list_rows(workers, height);
    let first = selection.first(&shown, list_rows);
    let mut title = format!("Workers · {} tasks", workers.tasks.len());
    if shown.len() > list_rows {
        let last = (first + list_rows).min(shown.len());
        title.push_str(&format!(" · {}–{last} of {}", first + 1, shown.len()));
    }
    title.push_str(&selection.title_words(SHOW_WORDS));
    if list::active_first(workers, selection) {
        title.push_str(" · active first");
    }
    let block = block(PaneId::Pattern, &title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let now = seen.now_ms;
    let width = usize::from(inner.width);
    let mut lines = vec![summary(workers, &seen, width)];
    if workers.is_large() {
        lines.push(durations(workers.durations(), width));
    }
    if let Some(reason) = &workers.plan_rejected {
        lines.push(Line::styled(
            format!("The plan was refused: {reason}"),
            theme::error(),
        ));
    } else if workers.tasks.is_empty() {
        lines.push(Line::styled("Waiting for the plan…", theme::dim()));
    } else if shown.is_empty() {
        lines.push(Line::styled(
            "No task is in that state now (v shows all).",
            theme::dim(),
        ));
    }

    let selected = selection.item(&shown);
    let detail_rows = detail_rows(usize::from(inner.height));
    let (widest_id, widest_worker) = workers.widest();
    // Wider panes give long task ids and worker names their room.
    let (id_w, worker_w) = (
        widest_id.clamp(4, (width / 7).max(14)),
        widest_worker.clamp(6, (width / 6).max(20)),
    );
    let query = selection.search.as_deref();
    for item in shown.order.iter().copied().skip(first).take(list_rows) {
        let task = &workers.tasks[item];
        let line = row(task, now, id_w, worker_w, width);
        lines.push(search::mark(line, query, Some(item) == selected && focused));
    }
    let list_height = u16::try_from(lines.len())
        .unwrap_or(inner.height)
        .min(inner.height);
    frame.render_widget(
        Paragraph::new(lines),
        Rect {
            height: list_height,
            ..inner
        },
    );

    if detail_rows > 0
        && let Some(task) = selected.and_then(|i| workers.tasks.get(i))
    {
        let detail_area = Rect {
            y: inner.y + inner.height - u16::try_from(detail_rows).unwrap_or(0),
            height: u16::try_from(detail_rows).unwrap_or(0),
            ..inner
        };
        frame.render_widget(
            Paragraph::new(attempts(task)).wrap(Wrap { trim: false }),
            detail_area,
        );
    }
}

/// The line of counts by state (health first once known, then the
/// retries, the dispatches and the model's spend), in whole parts that
/// fit `width`.
fn summary(workers: &Workers, seen: &Seen, width: usize) -> Line<'static> {
    let (queued, running, retrying, done, failed) = workers.counts();

    // Whole parts only: a summary never ends inside a word.
    let mut summary = vec![
        vec![Span::styled(
            format!("{running} running"),
            Style::default().fg(theme::ACCENT),
        )],
        vec![Span::raw(format!("{queued} queued"))],
        vec![Span::styled(
            format!("{retrying} retrying"),
            Style::default().fg(theme::CAUTION),
        )],
        vec![Span::styled(
            format!("{done} done"),
            Style::default().fg(theme::GO),
        )],
        vec![Span::styled(
            format!("{failed} failed"),
            if failed > 0 {
                theme::error()
            } else {
                Style::default()
            },
        )],
        vec![Span::raw(plural(workers.retries, "retry"))],
    ];
    if let Some((used, limit)) = workers.dispatches {
        summary.push(vec![Span::raw(format!("dispatches {used}/{limit}"))]);
    }
    // The model's tokens go to the plan and the final brief; the workers
    // are tools and spend none. They come before the counts, which each
    // row shows again: after them they never had room. With a price the
    // dollars are what is read for (the header has the tokens).
    let spends = [("plan", "plan"), ("final brief", "brief")]
        .into_iter()
        .filter_map(|(purpose, word)| {
            let spend = seen.spent.get(purpose)?;
            let words = match spend.cost() {
                Some(dollars) => {
                    let about = if spend.estimated { "~" } else { "" };
                    format!("{word} {about}${}", crate::figures::dollars(dollars))
                }
                None => format!("{word} {}", spend.words()),
            };
            Some(vec![Span::styled(words, theme::dim())])
        });
    for (at, spend) in spends.enumerate() {
        summary.insert(at, spend);
    }
    // Health, once known, is what the line is read for: it goes first.
    if let Some(health) = workers.health {
        summary.insert(
            0,
            vec![
                Span::raw("health "),
                Span::styled(health.as_str().to_uppercase(), health_style(health)),
            ],
        );
    }
    parts(summary, &Span::raw(" · "), width)
}

fn row(task: &TaskView, now: u64, id_w: usize, worker_w: usize, width: usize) -> Line<'static> {
    let word = list::word(&task.state);
    let style = match &task.state {
        TaskState::Planned | TaskState::Queued => theme::dim(),
        TaskState::Running { .. } => Style::default().fg(theme::ACCENT),
        TaskState::Retrying { .. } => Style::default().fg(theme::CAUTION),
        TaskState::Done => Style::default().fg(theme::GO),
        TaskState::Failed { .. } => theme::error(),
    };
    let attempt = task.attempts.last().map_or(0, |a| a.attempt);
    let mut spans = vec![
        Span::styled(if task.critical { "!" } else { " " }, theme::error()),
        Span::raw(format!("{} ", pad(&task.id, id_w))),
        Span::styled(format!("{} ", pad(&task.worker, worker_w)), theme::dim()),
        Span::styled(pad(word, 9), style),
        Span::raw(format!("{attempt}/{} ", task.max_attempts)),
    ];
    let used: usize = spans.iter().map(Span::width).sum();
    let rest = width.saturating_sub(used + GAUGE + 12);
    match &task.state {
        TaskState::Running {
            started_ms,
            timeout_ms,
            ..
        } => {
            let elapsed = now.saturating_sub(*started_ms);
            spans.push(gauge(elapsed, *timeout_ms));
            spans.push(Span::styled(
                format!(" {}/{}", seconds(elapsed), seconds(*timeout_ms)),
                theme::dim(),
            ));
        }
        TaskState::Retrying {
            since_ms, delay_ms, ..
        } => {
            let left = (since_ms + delay_ms).saturating_sub(now);
            spans.push(Span::styled(
                format!("retry in {}", seconds(left)),
                Style::default().fg(theme::CAUTION),
            ));
        }
        TaskState::Done => {
            let result = task
                .result
                .as_ref()
                .map(|r| r.to_string())
                .unwrap_or_default();
            let room = rest + GAUGE + 10;
            if task.stale {
                spans.push(Span::styled("stale ", theme::bold().fg(theme::CAUTION)));
                spans.push(Span::raw(fit(&result, room.saturating_sub(6))));
            } else {
                spans.push(Span::raw(fit(&result, room)));
            }
        }
        TaskState::Failed { reason } => {
            let reason = reason
                .as_ref()
                .map_or("did not finish".to_string(), ToString::to_string);
            spans.push(Span::styled(
                fit(&reason, rest + GAUGE + 10),
                theme::error(),
            ));
        }
        TaskState::Planned | TaskState::Queued => {}
    }
    Line::from(spans)
}

/// The finished attempts' durations on one line: a bar per bin of the
/// 1-2-5 scale from the fastest bin to the slowest, and where half and
/// nineteen in twenty of them ended.
fn durations(durations: &Durations, width: usize) -> Line<'static> {
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let span = durations.span();
    let (Some(p50), Some(p95)) = (durations.at_most_ms(50), durations.at_most_ms(95)) else {
        return Line::styled("attempts: none finished yet", theme::dim());
    };
    let tallest = span.iter().copied().max().unwrap_or(1).max(1);
    let bars: String = span
        .iter()
        .map(|n| match n {
            0 => ' ',
            n => LEVELS[usize::try_from((n * 8 - 1) / tallest).unwrap_or(7).min(7)],
        })
        .collect();
    let from = millis(durations.span_start_ms());
    let text = format!(
        "{} attempts {from} {bars} {} · p50 ≤{} · p95 ≤{}",
        durations.count(),
        millis(durations.max_ms()),
        millis(p50),
        millis(p95),
    );
    Line::from(vec![Span::styled(fit(&text, width), theme::dim())])
}

/// The selected task's attempts in words.
fn attempts(task: &TaskView) -> Vec<Line<'static>> {
    let mut words = vec![Span::styled(
        format!("{} · {}", fit(&task.id, 30), fit(&task.worker, 30)),
        theme::bold(),
    )];
    if task.critical {
        words.push(Span::styled(" · critical", theme::error()));
    }
    let mut lines = vec![Line::from(words)];
    if task.attempts.is_empty() {
        lines.push(Line::styled("no attempt yet", theme::dim()));
    }
    let history: Vec<String> = task
        .attempts
        .iter()
        .map(|a| match (&a.reason, a.elapsed_ms) {
            (Some(reason), Some(ms)) => format!("#{} {reason} after {ms} ms", a.attempt),
            (None, Some(ms)) => format!("#{} ok in {ms} ms", a.attempt),
            (_, None) => format!("#{} running (timeout {} ms)", a.attempt, a.timeout_ms),
        })
        .collect();
    if !history.is_empty() {
        lines.push(Line::raw(fit(&history.join(" · "), 2000)));
    }
    lines
}

fn health_style(health: Health) -> Style {
    theme::bold().fg(match health {
        Health::Green => theme::GO,
        Health::Yellow => theme::CAUTION,
        Health::Red => Color::Red,
    })
}
