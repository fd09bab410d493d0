//! The watch's screen: the tab bar (`run n of N`, the selected run's tab
//! always in it and highlighted, the runs left out on either side
//! counted), the selected run's header (agents, model calls, tokens,
//! cost marked from the span or the price table) with the
//! needs-attention line when a span failed, the run's panes (`panes`),
//! the footer (what the watch and its receiver counted, forward
//! failures with their targets, then the keys read from the key table)
//! and help (`?`) over it all. Draws and mutates nothing but the panes'
//! last shown sizes.

use super::chain::cost_words;
use super::panes::{draw_body, draw_log};
use super::state::{Watched, WatchedRun};
use super::steer_draw::{draw_dialog, steer_line};
use super::ui::WatchUi;
use crate::figures::compact;
use crate::tui::keymap::{self, Action, Scope};
use crate::tui::layout::centered;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

/// Draw the whole screen.
pub(crate) fn draw(frame: &mut Frame, watched: &Watched, ui: &WatchUi) {
    let area = frame.area();
    let log = if area.height >= 40 { 10 } else { 6 };
    let [tabs, header, body, log, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(3),
        Constraint::Min(4),
        Constraint::Length(log),
        Constraint::Length(2),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(tab_line(watched, tabs.width)), tabs);
    draw_footer(frame, footer, watched, ui);
    match watched.selected() {
        Some(run) => {
            let mut lines = header_lines(run, header.width);
            if let Some((_, view)) = watched.steered_view() {
                let (said, loud) = steer_line(view);
                let style = if loud {
                    theme::headline(theme::CAUTION)
                } else {
                    theme::dim()
                };
                let said = Line::styled(fit(&said, usize::from(header.width)), style);
                // The steering line before a failure's: what the person can do first.
                lines.insert(2.min(lines.len()), said);
                lines.truncate(3);
            }
            frame.render_widget(Paragraph::new(lines), header);
            draw_body(frame, body, run, ui);
            draw_log(frame, log, run, ui);
        }
        None => {
            let waiting = format!("waiting for the first span: {}", watched.source);
            let line = Line::styled(fit(&waiting, usize::from(body.width)), theme::dim());
            frame.render_widget(Paragraph::new(line), body);
        }
    }
    if ui.help {
        draw_help(frame, area, watched.any_steered());
    } else if let Some(dialog) = &ui.steer.dialog {
        draw_dialog(frame, area, watched, dialog);
    }
}

/// A tab's words: `3 ● live name` (`⏸ paused` while its hook holds it).
fn tab_words(watched: &Watched, run: &WatchedRun) -> String {
    let paused = watched
        .steer
        .as_ref()
        .and_then(|s| s.views.get(&run.trace_id))
        .is_some_and(|v| v.paused);
    let (glyph, state) = if run.finished {
        ("✓", "finished")
    } else if paused {
        ("⏸", "paused")
    } else {
        ("●", "live")
    };
    let name = run
        .root_name
        .as_deref()
        .or(run.service.as_deref())
        .unwrap_or("trace");
    format!(" {} {glyph} {state} {} ", run.tab, fit(name, 24))
}

/// `run 7 of 10  ‹3 │ 4 ● live a │ … │ 2›`: as many tabs around the
/// selected one as fit, the selected highlighted.
pub(crate) fn tab_line(watched: &Watched, width: u16) -> Line<'static> {
    let n = watched.runs.len();
    if n == 0 {
        return Line::styled("watched runs: none yet", theme::dim());
    }
    let selected = watched.selected.min(n - 1);
    let head = format!("run {} of {n} ", selected + 1);
    let words: Vec<String> = watched.runs.iter().map(|r| tab_words(watched, r)).collect();
    let wide = |s: &String| s.chars().count() + 1;
    // Room for the tabs, the counts of those left out kept aside.
    let room = usize::from(width).saturating_sub(head.chars().count() + 10);
    let (mut lo, mut hi) = (selected, selected);
    let mut used = wide(&words[selected]);
    loop {
        let right = hi + 1 < n && used + wide(&words[hi + 1]) <= room;
        if right {
            hi += 1;
            used += wide(&words[hi]);
        }
        let left = lo > 0 && used + wide(&words[lo - 1]) <= room;
        if left {
            lo -= 1;
            used += wide(&words[lo]);
        }
        if !right && !left {
            break;
        }
    }
    let mut spans = vec![Span::styled(head, theme::bold())];
    if lo > 0 {
        spans.push(Span::styled(format!("‹{lo} "), theme::dim()));
    }
    for (i, text) in words.iter().enumerate().take(hi + 1).skip(lo) {
        if i > lo {
            spans.push(Span::styled("│", theme::dim()));
        }
        let (text, style) = if i == selected {
            (fit(text, room.max(8)), theme::selected())
        } else {
            (text.clone(), Style::default())
        };
        spans.push(Span::styled(text, style));
    }
    if hi + 1 < n {
        spans.push(Span::styled(format!(" {}›", n - 1 - hi), theme::dim()));
    }
    Line::from(spans)
}

fn header_lines(run: &WatchedRun, width: u16) -> Vec<Line<'static>> {
    let summary = run.reading.summary.as_ref();
    let state = if run.finished { "finished" } else { "live" };
    let placeholders = run.forest.placeholders();
    let dropped = run.forest.dropped;
    let first = format!(
        "trace {} · {} · {} · {} · {} spans{}{}",
        crate::watch::span::trace_hex(run.trace_id),
        state,
        run.service.as_deref().unwrap_or("(no service)"),
        summary
            .and_then(|s| s.framework.as_deref())
            .unwrap_or("(framework unknown)"),
        run.forest.len(),
        if placeholders > 0 {
            format!(" · {placeholders} waiting for their parent")
        } else {
            String::new()
        },
        if dropped > 0 {
            format!(" · {dropped} dropped")
        } else {
            String::new()
        },
    );
    let second = match summary {
        Some(s) => format!(
            "{} agents · {} model calls · {} tok in · {} tok out · {}{}",
            s.agents.len(),
            s.model_calls,
            compact(s.input_tokens),
            compact(s.output_tokens),
            cost_words(s.cost_usd, s.cost_from),
            if run.reading.spans < run.forest.len() {
                format!(" · as of {} spans", run.reading.spans)
            } else {
                String::new()
            }
        ),
        None => "reading the spans…".to_string(),
    };
    let w = usize::from(width);
    let mut lines = vec![
        Line::styled(fit(&first, w), theme::bold()),
        Line::raw(fit(&second, w)),
    ];
    if let Some(attention) = attention(run) {
        lines.push(Line::styled(fit(&attention, w), theme::error()));
    }
    lines
}

/// The needs-attention line of a run that errored: how many spans failed
/// and the first one's name and message.
pub(crate) fn attention(run: &WatchedRun) -> Option<String> {
    let id = run.first_failed?;
    let failed = run.forest.get(id)?.span.as_ref()?;
    let message = failed.error.clone().unwrap_or_default();
    Some(format!(
        "needs attention: {} span(s) failed; first: {}: {}",
        run.failed.max(1),
        failed.name,
        if message.is_empty() {
            "error"
        } else {
            &message
        }
    ))
}

/// What the watch and its receiver counted, the problems first.
fn counts_line(watched: &Watched, width: usize) -> Line<'static> {
    let mut spans = Vec::new();
    let mut warn = |text: String| spans.push(Span::styled(text, theme::error()));
    if watched.dropped > 0 {
        warn(format!(
            "⚠ {} spans dropped: every run held waits for its root  ",
            watched.dropped
        ));
    }
    if let Some(problem) = &watched.problem {
        warn(format!("⚠ {}  ", fit(problem, width / 2)));
    }
    if let Some(c) = &watched.counts {
        if c.forward_failed + c.forward_dropped > 0 {
            warn(format!(
                "⚠ forward to {}: {} failed, {} dropped  ",
                watched.forward.join(", "),
                c.forward_failed,
                c.forward_dropped
            ));
        }
        let mut said = format!(
            "received {} spans in {} requests · refused {} (queue full {}) · rejected spans {}",
            c.spans_accepted,
            c.requests_accepted,
            c.refused_total(),
            c.refused(crate::watch::receive::Refusal::QueueFull),
            c.spans_rejected,
        );
        if !watched.forward.is_empty() {
            said.push_str(&format!(" · forwarded {}", c.forward_sent));
        }
        spans.push(Span::styled(said, theme::dim()));
    }
    if watched.late > 0 {
        spans.push(Span::styled(
            format!(" · late spans {} (their run had finished)", watched.late),
            theme::dim(),
        ));
    }
    Line::from(spans)
}

/// The counts (or what a steering key came to), then the keys (the pane
/// numbers are in help; a hooked run's steering keys first).
fn draw_footer(frame: &mut Frame, area: Rect, watched: &Watched, ui: &WatchUi) {
    let mut keys = Vec::new();
    let steer = watched.steered_view().is_some();
    let bindings = keymap::bindings(Scope::WatchSteer)
        .filter(|_| steer)
        .chain(keymap::bindings(Scope::Watch))
        .filter(|b| !matches!(b.action, Action::Focus(_)));
    for binding in bindings {
        keys.push(Span::styled(binding.label, theme::bold()));
        keys.push(Span::styled(format!(" {}  ", binding.help), theme::dim()));
    }
    let first = match &ui.steer.said {
        Some(said) => Line::styled(fit(said, usize::from(area.width)), theme::error()),
        None => counts_line(watched, usize::from(area.width)),
    };
    let lines = vec![first, Line::from(keys)];
    frame.render_widget(Paragraph::new(lines), area);
}

/// Help: every key of the watch's screen, from the key table (the
/// steering keys where a run has a hook).
fn draw_help(frame: &mut Frame, screen: Rect, steer: bool) {
    let bindings: Vec<_> = keymap::bindings(Scope::Watch)
        .chain(keymap::bindings(Scope::WatchSteer).filter(|_| steer))
        .collect();
    let height = u16::try_from(bindings.len() + 4).unwrap_or(u16::MAX);
    let area = centered(screen, 64, height);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_style(theme::border(true))
        .title(Line::styled(
            "Help: watched runs · Esc closes",
            theme::bold(),
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let mut lines = vec![Line::styled(
        fit("The keys that act on a watched run:", width),
        theme::dim(),
    )];
    for binding in bindings {
        lines.push(Line::from(vec![
            Span::styled(
                format!("  {:<7}", binding.label),
                Style::default().fg(theme::ACCENT),
            ),
            Span::raw(fit(binding.help, width.saturating_sub(9))),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
