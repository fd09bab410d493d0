//! The chain pane of a swarm: the chain of agents as it grows, left to
//! right, the holder highlighted with its time against the node timeout,
//! the loop window with its distinct count against the minimum, the latest
//! tool calls with what they asked and got, and every transfer asked for
//! with the message handed over, refused ones drawn as dead ends with their
//! reason. Model and tool text is cleaned before it is drawn. Draws and
//! changes nothing.

use super::list;
use super::state::{Chain, HandoffView, ToolCallView};
use crate::bus::RunStatus;
use crate::sanitize::clean;
use crate::tui::keymap::{Action, PaneId};
use crate::tui::patterns::seen::Seen;
use crate::tui::search;
use crate::tui::selection::ListView;
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use crate::tui::widgets::{self, block, gauge, of_limit, plural, seconds};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// What of a turn being written is shown: a reply, or a transfer's
/// message.
pub(super) const TURN_TEXT: &[&str] = &["reply", "message"];

/// The latest tool calls the pane shows.
const TOOL_CALLS: usize = 2;

/// How tall the pane would like to be.
pub(super) fn wanted_height(chain: &Chain) -> u16 {
    let rows = 5 + chain.tool_calls.len().min(TOOL_CALLS) + chain.handoffs.len().clamp(1, 12);
    u16::try_from(rows + 2).unwrap_or(u16::MAX)
}

/// Rows of the transfers in a pane `height` rows tall inside its border,
/// about: the chain, the holder and the window take the rest.
pub(super) fn list_rows(height: usize) -> usize {
    height.saturating_sub(3).max(1)
}

/// A key in a swarm's chain pane `page` rows tall: `j`/`k` and the rest
/// move along its transfers (as the swarm's own run does, and a team
/// node's swarm in a graph).
pub(crate) fn navigate(list: &mut ListView, action: Action, chain: &Chain, page: usize) {
    list.navigate(action, &super::list::handoffs(chain), list_rows(page), &[]);
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, chain: &Chain, selection: &ListView, seen: Seen) {
    let mut title = format!(
        "Swarm chain · handoffs {} · LLM calls {}",
        of_limit(chain.counted, u64::from(chain.limits.max_handoffs)),
        of_limit(chain.llm_calls, chain.limits.max_llm_calls)
    );
    title.push_str(&selection.title_words(["", ""]));
    draw_titled(frame, area, chain, selection, seen, &title);
}

/// The chain pane under `title` (a watched run's names its agents).
pub(crate) fn draw_titled(
    frame: &mut Frame,
    area: Rect,
    chain: &Chain,
    selection: &ListView,
    seen: Seen,
    title: &str,
) {
    let focused = seen.focused;
    let block = block(PaneId::Pattern, title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let mut lines = chain_lines(chain, seen, width);
    lines.push(holder_line(chain, seen));
    // The holder's turn as the model writes it.
    if let Some(text) = chain
        .turn
        .as_ref()
        .and_then(|turn| seen.writing(Some(&turn.agent)))
    {
        lines.push(widgets::writing(text, TURN_TEXT, width));
    }
    lines.push(window_line(chain));
    if let Some(line) = spent_line(seen, width) {
        lines.push(line);
    }
    // The latest tool calls, when the transfers keep a row or more.
    let room = usize::from(inner.height).saturating_sub(lines.len() + 1);
    let calls = chain.tool_calls.len().min(TOOL_CALLS).min(room);
    for call in &chain.tool_calls[chain.tool_calls.len() - calls..] {
        lines.push(tool_call_line(call, width, true));
    }
    let rows = usize::from(inner.height).saturating_sub(lines.len());
    if chain.handoffs.is_empty() {
        if rows > 0 {
            lines.push(Line::styled("No transfer asked for yet.", theme::dim()));
        }
    } else if rows > 0 {
        let shown = list::handoffs(chain);
        let selected = selection.item(&shown);
        let first = selection.first(&shown, rows);
        let from_w = name_width(chain.handoffs.iter().map(|h| h.from.as_str()));
        let to_w = name_width(chain.handoffs.iter().map(|h| h.to.as_str()));
        for (i, handoff) in chain.handoffs.iter().enumerate().skip(first).take(rows) {
            let line = handoff_row(i + 1, handoff, from_w, to_w, width);
            let chosen = focused && Some(i) == selected;
            lines.push(search::mark(line, selection.search.as_deref(), chosen));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The column the longest of `names` needs, as drawn (cleaned).
pub(crate) fn name_width<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names
        .map(|n| clean(n).chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 18)
}

/// The agents that held control, left to right, wrapped to `width`; the
/// holder highlighted (the final agent, once the run has ended).
fn chain_lines(chain: &Chain, seen: Seen, width: usize) -> Vec<Line<'static>> {
    let last = chain.links.len().saturating_sub(1);
    let holder_style = match seen.outcome {
        None => Style::default()
            .fg(Color::Black)
            .bg(theme::ACCENT)
            .add_modifier(Modifier::BOLD),
        Some(outcome) => Style::default()
            .fg(Color::Black)
            .bg(match outcome.status {
                RunStatus::Ok => theme::GO,
                RunStatus::Stopped => theme::BLOCK,
            })
            .add_modifier(Modifier::BOLD),
    };
    let mut lines = Vec::new();
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    if chain.earlier.links > 0 {
        let earlier = format!("… {} earlier", chain.earlier.links);
        used = earlier.chars().count();
        spans.push(Span::styled(earlier, theme::dim()));
    }
    for (i, link) in chain.links.iter().enumerate() {
        let name = fit(&link.agent, width.saturating_sub(4).max(1));
        let mut piece = vec![Span::styled(
            if i == last { format!(" {name} ") } else { name },
            if i == last {
                holder_style
            } else {
                theme::bold()
            },
        )];
        if link.cut {
            piece.push(Span::styled(" ⏱✗", theme::error()));
        }
        let arrow = Span::styled(" → ", theme::dim());
        let piece_width: usize = piece.iter().map(Span::width).sum();
        let needed = piece_width + if spans.is_empty() { 0 } else { arrow.width() };
        if !spans.is_empty() && used + needed > width {
            spans.push(arrow);
            lines.push(Line::from(std::mem::take(&mut spans)));
            used = 0;
        } else if !spans.is_empty() {
            used += arrow.width();
            spans.push(arrow);
        }
        used += piece_width;
        spans.extend(piece);
    }
    if !spans.is_empty() {
        lines.push(Line::from(spans));
    }
    // Keep the newest part of a long chain in view.
    let keep = lines.len().saturating_sub(3);
    lines.split_off(keep)
}

/// Who holds control and for how long, against the node timeout.
fn holder_line(chain: &Chain, seen: Seen) -> Line<'static> {
    let Some(link) = chain.holder() else {
        return Line::styled("Waiting for the first turn…", theme::dim());
    };
    let agent = fit(&link.agent, 24);
    if let Some(outcome) = seen.outcome {
        let style = match outcome.status {
            RunStatus::Ok => Style::default().fg(theme::GO),
            RunStatus::Stopped => theme::error(),
        };
        let words = match outcome.status {
            RunStatus::Ok => format!(
                "■ {agent} replied after {}",
                plural(u64::from(link.turns), "turn")
            ),
            RunStatus::Stopped => format!(
                "■ {agent} held control when the run stopped: {}",
                fit(&outcome.stop_reason.to_string(), 60)
            ),
        };
        return Line::styled(words, style);
    }
    let now = seen.now_ms;
    let held = now.saturating_sub(link.since_ms);
    let mut spans = vec![Span::styled(
        format!("▶ {agent} holds control "),
        Style::default().fg(theme::ACCENT),
    )];
    match link.deadline_ms {
        Some(deadline) => {
            let limit = deadline.saturating_sub(link.since_ms);
            spans.push(gauge(held, limit));
            spans.push(Span::styled(
                format!(" {} / {} node timeout", seconds(held), seconds(limit)),
                theme::dim(),
            ));
        }
        None => spans.push(Span::styled(
            format!("{} (no node timeout)", seconds(held)),
            theme::dim(),
        )),
    }
    if let Some(turn) = &chain.turn {
        spans.push(Span::styled(
            format!(" · turn {} thinking", turn.turn),
            theme::dim(),
        ));
    }
    Line::from(spans)
}

/// The loop check's window: its targets, and its distinct count against
/// the minimum.
fn window_line(chain: &Chain) -> Line<'static> {
    let limits = &chain.limits;
    if limits.window == 0 || limits.min_unique == 0 {
        return Line::styled("loop check off", theme::dim());
    }
    let full = chain.window.len() == limits.window as usize;
    let distinct = chain.distinct();
    let looping = full && distinct < limits.min_unique as usize;
    let names = chain
        .window
        .iter()
        .map(|n| fit(n, 14))
        .collect::<Vec<_>>()
        .join(" ");
    Line::from(vec![
        Span::styled(
            format!("window {}/{} ", chain.window.len(), limits.window),
            theme::dim(),
        ),
        Span::raw(format!("[{names}] ")),
        Span::styled(
            format!("{distinct} distinct"),
            if looping {
                theme::error().add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(theme::GO)
            },
        ),
        Span::styled(
            format!(
                " {} min {}",
                if looping { "<" } else { "·" },
                limits.min_unique
            ),
            theme::dim(),
        ),
    ])
}

/// What each agent's model calls took and cost: `spent  billing ~1.1k tok
/// · refunds ~620 tok`; `None` before the first call.
pub(super) fn spent_line(seen: Seen, width: usize) -> Option<Line<'static>> {
    if seen.spent.is_empty() {
        return None;
    }
    let parts: Vec<String> = seen
        .spent
        .iter()
        .map(|(agent, spend)| format!("{} {}", clean(agent), spend.words()))
        .collect();
    Some(Line::from(vec![
        Span::styled("spent  ", theme::dim()),
        Span::styled(
            fit(&parts.join(" · "), width.saturating_sub(7).max(1)),
            theme::dim(),
        ),
    ]))
}

/// `billing called invoice_lookup {"order_id":"A-1042"} → {"charges":…}`;
/// without the agent where the card already names it.
pub(crate) fn tool_call_line(call: &ToolCallView, width: usize, agent: bool) -> Line<'static> {
    let head = if agent {
        format!("{} called {} ", clean(&call.agent), clean(&call.tool))
    } else {
        format!("{} ", clean(&call.tool))
    };
    let asked = clean(&call.args);
    let (arrow, style) = if call.ok {
        (" → ", Style::default().fg(theme::GO))
    } else {
        (" ✗ ", theme::error())
    };
    let room = width.saturating_sub(head.chars().count() + arrow.chars().count());
    // The arguments take at most a third of what is left; the result,
    // what a person looks for, the rest.
    let asked = fit(&asked, (room / 3).max(1));
    let rest = room.saturating_sub(asked.chars().count()).max(1);
    Line::from(vec![
        Span::styled(head, theme::dim()),
        Span::raw(asked),
        Span::styled(arrow, style),
        Span::styled(fit(&clean(&call.result), rest), style),
    ])
}

pub(crate) fn handoff_row(
    number: usize,
    handoff: &HandoffView,
    from_w: usize,
    to_w: usize,
    width: usize,
) -> Line<'static> {
    let head = Span::styled(format!("{number:>3} "), theme::dim());
    let from = Span::raw(pad(&handoff.from, from_w));
    match &handoff.rejected {
        None => {
            let mut spans = vec![
                head,
                from,
                Span::styled(" ─→ ", Style::default().fg(theme::GO)),
                Span::raw(pad(&handoff.to, to_w)),
                Span::styled(" accepted", Style::default().fg(theme::GO)),
                Span::styled(format!(" · handoff {}", handoff.counted), theme::dim()),
            ];
            // What the agent handed over with control, as room allows.
            if let Some(message) = &handoff.message {
                let used: usize = spans.iter().map(Span::width).sum();
                let room = width.saturating_sub(used + 4);
                if room >= 8 {
                    spans.push(Span::raw(format!(" · «{}»", fit(&clean(message), room))));
                }
            }
            Line::from(spans)
        }
        Some(reason) => {
            let used = 4 + from_w + 4 + to_w + 2;
            Line::from(vec![
                head,
                from,
                Span::styled(" ─✗ ", theme::error().add_modifier(Modifier::BOLD)),
                Span::styled(pad(&handoff.to, to_w), theme::error()),
                Span::raw("  "),
                Span::styled(
                    fit(&reason.to_string(), width.saturating_sub(used).max(1)),
                    theme::error(),
                ),
            ])
        }
    }
}
