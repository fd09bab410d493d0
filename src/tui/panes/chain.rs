//! The chain pane. A swarm: the chain of agents as it grows, left to
//! right, the holder highlighted with its time against the node timeout,
//! the loop window with its distinct count against the minimum, and every
//! transfer asked for, refused ones drawn as dead ends with their reason.
//! A coordinator: the coordinator's state and its member calls side by
//! side, each with its state and latency. Draws and changes nothing.

use super::block;
use crate::bus::RunStatus;
use crate::tui::keymap::PaneId;
use crate::tui::runs::RunSlot;
use crate::tui::state::{Chain, HandoffView, MemberState, MemberView};
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

const GAUGE: usize = 10;
/// Rows of a member's box, its border included.
const MEMBER_ROWS: usize = 6;
/// The narrowest member box drawn side by side.
const MEMBER_MIN_WIDTH: u16 = 16;

/// How tall the pane would like to be.
pub fn wanted_height(chain: &Chain) -> u16 {
    let rows = if chain.coordinator.is_some() {
        2 + MEMBER_ROWS + earlier_batches(chain).len().min(4)
    } else {
        4 + chain.handoffs.len().clamp(4, 12)
    };
    u16::try_from(rows + 2).unwrap_or(u16::MAX)
}

pub fn draw(frame: &mut Frame, area: Rect, slot: &RunSlot, focused: bool) {
    match &slot.state.chain.coordinator {
        Some(coordinator) => draw_coordinator(frame, area, slot, coordinator, focused),
        None => draw_swarm(frame, area, slot, focused),
    }
}

fn of_limit(used: u64, max: u64) -> String {
    if max == 0 {
        format!("{used} (no limit)")
    } else {
        format!("{used}/{max}")
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.1}s", ms as f64 / 1000.0)
}

fn draw_swarm(frame: &mut Frame, area: Rect, slot: &RunSlot, focused: bool) {
    let chain = &slot.state.chain;
    let title = format!(
        "Swarm chain · handoffs {} · LLM calls {}",
        of_limit(chain.counted, u64::from(chain.limits.max_handoffs)),
        of_limit(chain.llm_calls, chain.limits.max_llm_calls)
    );
    let block = block(PaneId::Pattern, &title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let mut lines = chain_lines(slot, width);
    lines.push(holder_line(slot));
    lines.push(window_line(chain));
    let rows = usize::from(inner.height).saturating_sub(lines.len());
    if chain.handoffs.is_empty() {
        if rows > 0 {
            lines.push(Line::styled("No transfer asked for yet.", theme::dim()));
        }
    } else if rows > 0 {
        let selected = slot
            .ui
            .chain
            .selected
            .min(chain.handoffs.len().saturating_sub(1));
        let first = if focused {
            (selected + 1).saturating_sub(rows)
        } else {
            chain.handoffs.len().saturating_sub(rows)
        };
        let from_w = name_width(chain.handoffs.iter().map(|h| h.from.as_str()));
        let to_w = name_width(chain.handoffs.iter().map(|h| h.to.as_str()));
        for (i, handoff) in chain.handoffs.iter().enumerate().skip(first).take(rows) {
            let mut line = handoff_row(i + 1, handoff, from_w, to_w, width);
            if focused && i == selected {
                line = line.patch_style(theme::selected());
            }
            lines.push(line);
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn name_width<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 18)
}

/// The agents that held control, left to right, wrapped to `width`; the
/// holder highlighted (the final agent, once the run has ended).
fn chain_lines(slot: &RunSlot, width: usize) -> Vec<Line<'static>> {
    let chain = &slot.state.chain;
    let last = chain.links.len().saturating_sub(1);
    let holder_style = match &slot.state.outcome {
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
fn holder_line(slot: &RunSlot) -> Line<'static> {
    let chain = &slot.state.chain;
    let Some(link) = chain.holder() else {
        return Line::styled("Waiting for the first turn…", theme::dim());
    };
    let agent = fit(&link.agent, 24);
    if let Some(outcome) = &slot.state.outcome {
        let style = match outcome.status {
            RunStatus::Ok => Style::default().fg(theme::GO),
            RunStatus::Stopped => theme::error(),
        };
        let words = match outcome.status {
            RunStatus::Ok => format!("■ {agent} replied after {} turns", link.turns),
            RunStatus::Stopped => format!(
                "■ {agent} held control when the run stopped: {}",
                fit(&outcome.stop_reason.to_string(), 60)
            ),
        };
        return Line::styled(words, style);
    }
    let now = slot.clock_ms();
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

fn handoff_row(
    number: usize,
    handoff: &HandoffView,
    from_w: usize,
    to_w: usize,
    width: usize,
) -> Line<'static> {
    let head = Span::styled(format!("{number:>3} "), theme::dim());
    let from = Span::raw(pad(&handoff.from, from_w));
    match &handoff.rejected {
        None => Line::from(vec![
            head,
            from,
            Span::styled(" ─→ ", Style::default().fg(theme::GO)),
            Span::raw(pad(&handoff.to, to_w)),
            Span::styled(" accepted", Style::default().fg(theme::GO)),
            Span::styled(format!(" · handoff {}", handoff.counted), theme::dim()),
        ]),
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

/// Elapsed time against a limit, as a bar that fills and turns red near
/// the end.
fn gauge(elapsed: u64, limit: u64) -> Span<'static> {
    let ratio = if limit == 0 {
        1.0
    } else {
        (elapsed as f64 / limit as f64).min(1.0)
    };
    let filled = (ratio * GAUGE as f64).round() as usize;
    let bar: String = "▮".repeat(filled) + &"▯".repeat(GAUGE - filled);
    let color = if ratio >= 0.8 {
        theme::BLOCK
    } else if ratio >= 0.5 {
        theme::CAUTION
    } else {
        theme::GO
    };
    Span::styled(bar, Style::default().fg(color))
}

fn draw_coordinator(
    frame: &mut Frame,
    area: Rect,
    slot: &RunSlot,
    coordinator: &str,
    focused: bool,
) {
    let chain = &slot.state.chain;
    let mut title = format!(
        "Coordinator {} · LLM calls {}",
        fit(coordinator, 24),
        of_limit(chain.llm_calls, chain.limits.max_llm_calls)
    );
    if chain.limits.member_timeout_ms > 0 {
        title.push_str(&format!(
            " · member timeout {}",
            seconds(chain.limits.member_timeout_ms)
        ));
    }
    let block = block(PaneId::Pattern, &title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let now = slot.clock_ms();
    let batch: Vec<&MemberView> = chain.latest_batch().collect();
    let earlier = earlier_batches(chain);
    let earlier_rows = earlier.len().min(usize::from(inner.height) / 4);
    let [top, boxes, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(u16::try_from(earlier_rows).unwrap_or(0)),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(coordinator_line(slot, coordinator, &batch)),
        top,
    );

    if batch.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled("No member called yet.", theme::dim())),
            boxes,
        );
    } else {
        let selected = slot.ui.chain.selected;
        let first_of_batch = chain.members.len() - batch.len();
        let count = u16::try_from(batch.len()).unwrap_or(u16::MAX);
        if boxes.width / count.max(1) >= MEMBER_MIN_WIDTH && boxes.height >= 3 {
            let columns =
                Layout::horizontal(vec![Constraint::Ratio(1, u32::from(count)); batch.len()])
                    .split(boxes);
            for (i, (member, column)) in batch.iter().zip(columns.iter()).enumerate() {
                let chosen = focused && selected == first_of_batch + i;
                draw_member_box(frame, *column, member, now, chosen);
            }
        } else {
            let lines: Vec<Line> = batch
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let mut line = member_row(m, now, usize::from(boxes.width));
                    if focused && selected == first_of_batch + i {
                        line = line.patch_style(theme::selected());
                    }
                    line
                })
                .collect();
            frame.render_widget(Paragraph::new(lines), boxes);
        }
    }
    let lines: Vec<Line> = earlier
        .iter()
        .rev()
        .take(earlier_rows)
        .rev()
        .map(|line| Line::styled(fit(line, usize::from(inner.width)), theme::dim()))
        .collect();
    frame.render_widget(Paragraph::new(lines), bottom);
}

/// What the coordinator is doing.
fn coordinator_line(slot: &RunSlot, coordinator: &str, batch: &[&MemberView]) -> Line<'static> {
    let chain = &slot.state.chain;
    let name = fit(coordinator, 24);
    if let Some(outcome) = &slot.state.outcome {
        return match outcome.status {
            RunStatus::Ok => Line::styled(
                format!(
                    "■ {name} answered after {} member calls",
                    chain.members.len()
                ),
                Style::default().fg(theme::GO),
            ),
            RunStatus::Stopped => Line::styled(
                format!(
                    "■ {name} stopped: {}",
                    fit(&outcome.stop_reason.to_string(), 60)
                ),
                theme::error(),
            ),
        };
    }
    let running = batch
        .iter()
        .filter(|m| m.state == MemberState::Running)
        .count();
    let style = Style::default().fg(theme::ACCENT);
    match &chain.turn {
        Some(turn) if turn.agent == coordinator => Line::styled(
            format!(
                "▶ {name} is thinking (turn {}) {}",
                turn.turn,
                seconds(slot.clock_ms().saturating_sub(turn.started_ms))
            ),
            style,
        ),
        _ if running > 0 => Line::styled(
            format!(
                "▶ {name} waits for {running} of {} members, called side by side",
                batch.len()
            ),
            style,
        ),
        _ => Line::styled(format!("▶ {name} holds control"), style),
    }
}

/// A member's state in a word, its glyph and colour, and its latency so
/// far.
fn member_state(member: &MemberView, now: u64) -> (&'static str, Style, u64) {
    match &member.state {
        MemberState::Running => (
            "● running",
            Style::default().fg(theme::ACCENT),
            now.saturating_sub(member.started_ms),
        ),
        MemberState::Done { latency_ms, .. } => {
            ("✓ done", Style::default().fg(theme::GO), *latency_ms)
        }
        MemberState::Failed {
            latency_ms,
            outcome,
            ..
        } => (
            match outcome {
                Some(crate::bus::CallOutcome::Timeout) => "⏱ timed out",
                Some(crate::bus::CallOutcome::Refused) => "✗ refused",
                _ => "✗ failed",
            },
            theme::error(),
            latency_ms.unwrap_or_else(|| now.saturating_sub(member.started_ms)),
        ),
    }
}

fn draw_member_box(frame: &mut Frame, area: Rect, member: &MemberView, now: u64, chosen: bool) {
    let (word, style, latency) = member_state(member, now);
    let block = Block::bordered()
        .border_style(if chosen {
            theme::border(true)
        } else {
            style.patch(Style::default().add_modifier(Modifier::DIM))
        })
        .title(Span::styled(
            fit(&member.member, usize::from(area.width).saturating_sub(2)),
            theme::bold(),
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let mut lines = vec![Line::from(vec![
        Span::styled(word, style),
        Span::styled(format!(" {}", seconds(latency)), theme::dim()),
    ])];
    match (&member.state, member.deadline_ms) {
        (MemberState::Running, Some(deadline)) => {
            let limit = deadline.saturating_sub(member.started_ms);
            lines.push(Line::from(vec![
                gauge(latency, limit),
                Span::styled(format!(" {}", seconds(limit)), theme::dim()),
            ]));
        }
        (MemberState::Running, None) => lines.push(Line::styled(
            format!("turn {}", member.turns.max(1)),
            theme::dim(),
        )),
        (MemberState::Failed { reason, .. }, _) => lines.push(Line::styled(
            fit(
                &reason
                    .as_ref()
                    .map_or("did not finish".to_string(), ToString::to_string),
                width,
            ),
            theme::error(),
        )),
        (MemberState::Done { .. }, _) => {}
    }
    lines.push(Line::styled(fit(&member.task, width), theme::dim()));
    if let MemberState::Done { reply, .. } = &member.state {
        lines.push(Line::raw(fit(reply, 2000)));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// One line per member, for panes too narrow for boxes.
fn member_row(member: &MemberView, now: u64, width: usize) -> Line<'static> {
    let (word, style, latency) = member_state(member, now);
    let detail = match &member.state {
        MemberState::Done { reply, .. } => reply.clone(),
        MemberState::Failed { reason, .. } => reason
            .as_ref()
            .map_or("did not finish".to_string(), ToString::to_string),
        MemberState::Running => member.task.clone(),
    };
    let head = format!("{} ", pad(&member.member, 16));
    let state = format!("{} {} ", pad(word, 11), seconds(latency));
    let rest = width.saturating_sub(head.chars().count() + state.chars().count());
    Line::from(vec![
        Span::styled(head, theme::bold()),
        Span::styled(state, style),
        Span::raw(fit(&detail, rest)),
    ])
}

/// One line for each earlier turn's member calls, oldest first.
fn earlier_batches(chain: &Chain) -> Vec<String> {
    let latest = chain.members.last().map(|m| m.turn);
    let mut lines: Vec<(u32, Vec<String>)> = Vec::new();
    for member in chain.members.iter().filter(|m| Some(m.turn) != latest) {
        let (word, _, latency) = member_state(member, 0);
        let glyph = word.split(' ').next().unwrap_or("");
        let entry = format!("{} {glyph} {}", member.member, seconds(latency));
        match lines.last_mut() {
            Some((turn, entries)) if *turn == member.turn => entries.push(entry),
            _ => lines.push((member.turn, vec![entry])),
        }
    }
    lines
        .into_iter()
        .map(|(turn, entries)| format!("turn {turn}: {}", entries.join(" · ")))
        .collect()
}
