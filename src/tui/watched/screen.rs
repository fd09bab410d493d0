//! The watch's screen: a tab per watched run (`live` while it runs,
//! `finished` once it settled), the selected run's header (agents, model
//! calls, tokens, cost marked from the span or the price table), the
//! needs-attention line when a span failed, the agent chain with its
//! handoffs and each agent's spend, the tool calls as worker rows, the
//! span tree, the event log (one line per span, its span events below it)
//! and the footer read from the key table. Text from spans is cleaned
//! (`fit` cleans) before it is drawn. Draws and mutates nothing.

use super::state::{AgentSpend, Watched, WatchedRun};
use super::tree_pane;
use crate::figures::{compact, dollars};
use crate::tui::keymap::{self, Scope};
use crate::tui::patterns::graph::GraphFold;
use crate::tui::patterns::graph::selection::GraphView;
use crate::tui::patterns::unit::{Seen, Unit};
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets::millis;
use crate::watch::summary::{CostFrom, WatchSummary};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

/// Draw the whole screen; `scroll` is the span tree's first row shown.
pub(crate) fn draw(frame: &mut Frame, watched: &Watched, scroll: usize, listening: &str) {
    let [tabs, header, body, log, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(3),
        Constraint::Min(6),
        Constraint::Length(8),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(Paragraph::new(tab_line(watched, tabs.width)), tabs);
    draw_footer(frame, footer, watched);
    let Some(run) = watched.selected() else {
        let waiting = format!("waiting for the first span: {listening}");
        frame.render_widget(
            Paragraph::new(Line::styled(
                fit(&waiting, usize::from(body.width)),
                theme::dim(),
            )),
            body,
        );
        return;
    };
    frame.render_widget(Paragraph::new(header_lines(run, header.width)), header);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(body);
    let chain = Block::bordered().title("agents · handoffs · tools");
    let inner = chain.inner(left);
    frame.render_widget(chain, left);
    frame.render_widget(Paragraph::new(chain_lines(run, inner.width)), inner);
    let right = match &run.graph {
        Some(graph) => draw_graph(frame, right, graph),
        None => right,
    };
    let tree = Block::bordered().title("span tree (◆ critical path)");
    tree_pane::draw(frame, right, &run.forest, scroll, tree);
    draw_log(frame, log, run);
}

/// The run's graph in the graph pattern's own pane, at the top of `area`
/// (at most half of it); the rest of `area` is returned.
fn draw_graph(frame: &mut Frame, area: Rect, graph: &GraphFold) -> Rect {
    let unit = crate::tui::patterns::graph::GraphUnit;
    let height = unit.wanted_height(graph).min(area.height / 2);
    let [top, rest] =
        Layout::vertical([Constraint::Length(height), Constraint::Min(0)]).areas(area);
    let spent = std::collections::BTreeMap::new();
    let seen = Seen {
        now_ms: 0,
        live: false,
        outcome: None,
        focused: false,
        calling: &[],
        spent: &spent,
    };
    unit.draw(frame, top, graph, &GraphView::default(), seen);
    rest
}

/// `1 ● live svc │ 2 ✓ finished svc │ …`, the selected tab highlighted.
fn tab_line(watched: &Watched, width: u16) -> Line<'static> {
    let mut spans = vec![Span::styled("watched runs ", theme::dim())];
    if watched.runs.is_empty() {
        spans.push(Span::styled("none yet", theme::dim()));
    }
    for (i, run) in watched.runs.iter().enumerate() {
        let (glyph, state) = if run.finished {
            ("✓", "finished")
        } else {
            ("●", "live")
        };
        let name = run
            .forest
            .root()
            .map(|r| r.name.clone())
            .or_else(|| run.summary.service.clone())
            .unwrap_or_else(|| "trace".into());
        let text = format!("{} {glyph} {state} {}", run.tab, fit(&name, 24));
        let style = if i == watched.selected {
            theme::selected()
        } else {
            Style::default()
        };
        spans.push(Span::styled(text, style));
        spans.push(Span::styled(" │ ", theme::dim()));
    }
    let line = Line::from(spans);
    if line.width() > usize::from(width) {
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        return Line::raw(fit(&text, usize::from(width)));
    }
    line
}

/// The cost in words, marked where it came from.
fn cost_words(cost: Option<f64>, from: Option<CostFrom>) -> String {
    match (cost, from) {
        (None, _) => "cost unknown (unpriced)".into(),
        (Some(c), Some(CostFrom::Span)) => format!("${} (from span)", dollars(c)),
        (Some(c), Some(CostFrom::PriceTable)) => format!("${} (from price table)", dollars(c)),
        (Some(c), _) => format!("${} (from span and price table)", dollars(c)),
    }
}

fn header_lines(run: &WatchedRun, width: u16) -> Vec<Line<'static>> {
    let s: &WatchSummary = &run.summary;
    let state = if run.finished { "finished" } else { "live" };
    let placeholders = run.forest.placeholders();
    let first = format!(
        "trace {} · {} · {} · {} · {} spans{}{}",
        s.trace_id,
        state,
        s.service.as_deref().unwrap_or("(no service)"),
        s.framework.as_deref().unwrap_or("(framework unknown)"),
        s.spans,
        if placeholders > 0 {
            format!(" · {placeholders} waiting for their parent")
        } else {
            String::new()
        },
        if s.dropped_spans > 0 {
            format!(" · {} dropped", s.dropped_spans)
        } else {
            String::new()
        },
    );
    let second = format!(
        "{} agents · {} model calls · {} tok in · {} tok out · {}",
        s.agents.len(),
        s.model_calls,
        compact(s.input_tokens),
        compact(s.output_tokens),
        cost_words(s.cost_usd, s.cost_from),
    );
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
    let failed = run.arrivals.iter().find(|a| a.span.error.is_some())?;
    let message = failed.span.error.clone().unwrap_or_default();
    Some(format!(
        "needs attention: {} span(s) failed; first: {}: {}",
        run.summary.errors.max(1),
        failed.span.name,
        if message.is_empty() {
            "error"
        } else {
            &message
        }
    ))
}

fn spend_words(spend: &AgentSpend) -> String {
    format!(
        "{} calls · {} in / {} out · {}",
        spend.calls,
        compact(spend.input_tokens),
        compact(spend.output_tokens),
        cost_words(spend.cost_usd, spend.cost_from)
    )
}

/// The agents in order of first activity with their spend, the handoffs
/// in order (from → to), then one worker row per tool call.
fn chain_lines(run: &WatchedRun, width: u16) -> Vec<Line<'static>> {
    let w = usize::from(width);
    let s = &run.summary;
    let mut lines = Vec::new();
    for agent in &s.agents {
        let spent = run.spend.iter().find(|p| &p.agent == agent);
        lines.push(Line::styled(fit(&format!("▸ {agent}"), w), theme::bold()));
        if let Some(spent) = spent {
            lines.push(Line::styled(
                fit(&format!("    {}", spend_words(spent)), w),
                theme::dim(),
            ));
        }
    }
    for spent in run.spend.iter().filter(|p| !s.agents.contains(&p.agent)) {
        let text = format!("▸ {} · {}", spent.agent, spend_words(spent));
        lines.push(Line::styled(fit(&text, w), theme::dim()));
    }
    for handoff in &s.handoffs {
        let text = format!("  {} → {}", handoff.from, handoff.to);
        lines.push(Line::styled(
            fit(&text, w),
            Style::default().fg(theme::ACCENT),
        ));
    }
    for call in &s.tool_calls {
        let (glyph, style) = if call.status == "error" {
            ("✗", theme::error())
        } else {
            ("✓", Style::default().fg(theme::GO))
        };
        let text = format!(
            "{glyph} {} · {} · {}",
            call.tool,
            call.agent.as_deref().unwrap_or("(no agent)"),
            millis(call.ms)
        );
        lines.push(Line::styled(fit(&text, w), style));
    }
    lines
}

/// The event log: one line per span in arrival order (the newest at the
/// bottom), its span events (an exception's message) below it.
fn draw_log(frame: &mut Frame, area: Rect, run: &WatchedRun) {
    let block = Block::bordered().title("event log (one line per span)");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let w = usize::from(inner.width);
    let mut lines = Vec::new();
    for arrival in &run.arrivals {
        let span = &arrival.span;
        let (glyph, style) = match &span.error {
            Some(_) => ("✗", theme::error()),
            None => ("✓", Style::default()),
        };
        let kind = serde_json::to_value(arrival.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let text = format!(
            "+{:>6} {glyph} {} [{kind}] {}{}",
            millis(arrival.at_ms),
            span.name,
            millis(span.ms()),
            if arrival.under_placeholder {
                " (parent not arrived)"
            } else {
                ""
            }
        );
        lines.push(Line::styled(fit(&text, w), style));
        for event in &span.events {
            let said = event
                .attrs
                .iter()
                .find(|(k, _)| k == "exception.message")
                .map(|(_, v)| format!(": {}", v.text()))
                .unwrap_or_default();
            let text = format!("         ↳ {}{said}", event.name);
            lines.push(Line::styled(fit(&text, w), theme::dim()));
        }
    }
    let skip = lines.len().saturating_sub(usize::from(inner.height));
    frame.render_widget(Paragraph::new(lines.split_off(skip)), inner);
}

/// The keys, after what the watch had to say: spans it dropped for want
/// of room, a run it could not record.
fn draw_footer(frame: &mut Frame, area: Rect, watched: &Watched) {
    let mut spans = Vec::new();
    if watched.dropped > 0 {
        spans.push(Span::styled(
            format!(
                "⚠ {} spans dropped: every run held waits for its root  ",
                watched.dropped
            ),
            theme::error(),
        ));
    }
    if let Some(problem) = &watched.problem {
        spans.push(Span::styled(
            format!("⚠ {}  ", fit(problem, usize::from(area.width) / 2)),
            theme::error(),
        ));
    }
    for binding in keymap::bindings(Scope::Watch) {
        spans.push(Span::styled(binding.label, theme::bold()));
        spans.push(Span::styled(format!(" {}  ", binding.help), theme::dim()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
