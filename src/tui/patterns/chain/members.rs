//! The coordinator's side of the chain pane: what the coordinator is doing
//! and the member calls of its latest turn side by side, each with its
//! state and latency against the member timeout; earlier turns in a line
//! each. Draws and changes nothing.

use super::list;
use super::member_row::{member_row, member_state};
use super::members_view::MembersView;
use super::state::{Chain, MemberState, MemberView, ToolCallView};
use super::swarm::TURN_TEXT;
use super::tree;
use crate::bus::RunStatus;
use crate::tui::keymap::PaneId;
use crate::tui::patterns::seen::Seen;
use crate::tui::search;
use crate::tui::state::partial::PartialText;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets::{self, block, gauge, of_limit, plural, seconds};
use crate::tui::wrap::{clip, wrap};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

/// Rows of a member's box, its border included.
const MEMBER_ROWS: usize = 6;
/// The narrowest member box drawn side by side.
const MEMBER_MIN_WIDTH: u16 = 16;

/// How tall the pane would like to be.
pub(crate) fn wanted_height(chain: &Chain) -> u16 {
    let latest = chain.members.last().map(|m| m.turn);
    let teams = tree::summaries(chain.latest_batch());
    let rows = 2 + MEMBER_ROWS + teams + other_batches(chain, latest).len().min(4);
    u16::try_from(rows + 2).unwrap_or(u16::MAX)
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, chain: &Chain, view: &MembersView, seen: Seen) {
    let selection = &view.list;
    let coordinator = chain.coordinator.as_deref().unwrap_or_default();
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
    title.push_str(&selection.title_words(["", ""]));
    let block = block(PaneId::Pattern, &title, seen.focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let latest: Vec<&MemberView> = chain.latest_batch().collect();
    // The cards are the selected call's turn: the latest while following.
    let selected = selection.item(&list::members(chain));
    let turn = selected.map(|i| chain.members[i].turn);
    let first = chain
        .members
        .iter()
        .position(|m| Some(m.turn) == turn)
        .unwrap_or(0);
    let batch: Vec<&MemberView> = chain
        .members
        .iter()
        .filter(|m| Some(m.turn) == turn)
        .collect();
    let earlier = other_batches(chain, turn);
    let earlier_rows = earlier.len().min(usize::from(inner.height) / 4);
    let (teams, chosen_team) = tree::lines(
        &batch,
        first,
        view,
        (selected, seen.focused),
        (usize::from(inner.width), seen.now_ms),
    );
    // The member teams take what the cards can spare: a card keeps its
    // border and state line.
    let spare = usize::from(inner.height).saturating_sub(1 + earlier_rows + 3);
    let team_rows = teams.len().min(spare);
    let [top, boxes, under, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(u16::try_from(team_rows).unwrap_or(0)),
        Constraint::Length(u16::try_from(earlier_rows).unwrap_or(0)),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(coordinator_line(chain, seen, coordinator, &latest)),
        top,
    );
    draw_batch(frame, boxes, chain, (&batch, first), (selected, view), seen);
    // The selected team's lines in view, when not all fit.
    let skip = chosen_team
        .unwrap_or(0)
        .min(teams.len().saturating_sub(team_rows));
    frame.render_widget(
        Paragraph::new(teams.into_iter().skip(skip).collect::<Vec<_>>()),
        under,
    );
    let lines: Vec<Line> = earlier
        .iter()
        .rev()
        .take(earlier_rows)
        .rev()
        .map(|line| Line::styled(fit(line, usize::from(inner.width)), theme::dim()))
        .collect();
    frame.render_widget(Paragraph::new(lines), bottom);
}

/// The shown turn's member calls (`first`: the index of its first among
/// the chain's) as cards side by side, or a line each where the pane is
/// too narrow for cards.
fn draw_batch(
    frame: &mut Frame,
    boxes: Rect,
    chain: &Chain,
    (batch, first): (&[&MemberView], usize),
    (selected, view): (Option<usize>, &MembersView),
    seen: Seen,
) {
    let now = seen.now_ms;
    let query = view.list.search.as_deref();
    let chosen = |i: usize| seen.focused && selected == Some(first + i);
    if batch.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled("No member called yet.", theme::dim())),
            boxes,
        );
        return;
    }
    let count = u16::try_from(batch.len()).unwrap_or(u16::MAX);
    if boxes.width / count.max(1) >= MEMBER_MIN_WIDTH && boxes.height >= 3 {
        let columns = Layout::horizontal(vec![Constraint::Ratio(1, u32::from(count)); batch.len()])
            .split(boxes);
        for (i, (member, column)) in batch.iter().zip(columns.iter()).enumerate() {
            let writing = writing_of(member, seen);
            let call = chain.last_tool_call(&member.member, member.started_ms);
            let spent = match &member.team {
                Some(team) => seen.spent_under(&team.path),
                None => seen.spent_by(&member.member),
            };
            draw_member_box(
                frame,
                *column,
                member,
                now,
                chosen(i),
                query,
                (writing, call, spent),
            );
        }
    } else {
        let lines: Vec<Line> = batch
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let line = member_row(m, now, usize::from(boxes.width), writing_of(m, seen));
                search::mark(line, query, chosen(i))
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), boxes);
    }
}

/// What the coordinator is doing.
fn coordinator_line(
    chain: &Chain,
    seen: Seen,
    coordinator: &str,
    batch: &[&MemberView],
) -> Line<'static> {
    let name = fit(coordinator, 24);
    if let Some(outcome) = seen.outcome {
        return match outcome.status {
            RunStatus::Ok => Line::styled(
                format!(
                    "■ {name} answered after {}",
                    plural(chain.member_calls().0 as u64, "member call")
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
                seconds(seen.now_ms.saturating_sub(turn.started_ms))
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

/// What a running member's turn has written so far.
fn writing_of<'a>(member: &MemberView, seen: Seen<'a>) -> Option<&'a PartialText> {
    let writer = match &member.team {
        Some(team) => team.speaking()?,
        None => member.member.clone(),
    };
    (member.state == MemberState::Running)
        .then(|| seen.writing(Some(&writer)))
        .flatten()
}

/// `query` is the search to highlight, if any; `writing`, the member's
/// answer as it is written.
fn draw_member_box(
    frame: &mut Frame,
    area: Rect,
    member: &MemberView,
    now: u64,
    chosen: bool,
    query: Option<&str>,
    (writing, call, spent): (Option<&PartialText>, Option<&ToolCallView>, Option<String>),
) {
    let (word, style, latency) = member_state(member, now);
    let block = Block::bordered()
        .border_style(if chosen {
            theme::border(true)
        } else {
            style.patch(Style::default().add_modifier(Modifier::DIM))
        })
        .title(Span::styled(
            fit(
                &tree::card_title(member),
                usize::from(area.width).saturating_sub(2),
            ),
            theme::bold(),
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let mut head = vec![
        Span::styled(word, style),
        Span::styled(format!(" {}", seconds(latency)), theme::dim()),
    ];
    // What the member's model calls took and cost so far: on the state's
    // line where it has room, else on a line of its own (with a price the
    // words are longer, and the cost is what is read for).
    let mut own_line = None;
    if let Some(spent) = spent {
        let used: usize = head.iter().map(Span::width).sum();
        if used + spent.chars().count() + 3 <= width {
            head.push(Span::styled(format!(" · {spent}"), theme::dim()));
        } else {
            own_line = Some(Line::styled(fit(&spent, width), theme::dim()));
        }
    }
    let mut lines = vec![Line::from(head)];
    lines.extend(own_line);
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
    // The tool the member called for this task, and what came back: while
    // it works, then after its reply (which matters more once given).
    let call = call.map(|call| super::swarm::tool_call_line(call, width * 2, false));
    match &member.state {
        MemberState::Done { reply, .. } => {
            lines.push(Line::raw(fit(reply, 2000)));
            lines.extend(call);
        }
        _ => lines.extend(call),
    }
    if let Some(text) = writing {
        // The end of the answer so far, in the rows the card has left.
        let rows = usize::from(inner.height).saturating_sub(lines.len()).max(1);
        lines.push(widgets::writing(text, TURN_TEXT, rows * width * 3 / 4));
    }
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|line| search::highlight(line, query))
        .collect();
    // A reply longer than the card ends with `…`: Enter shows it whole.
    let rows = clip(wrap(&lines, width), usize::from(inner.height), width);
    frame.render_widget(Paragraph::new(rows), inner);
}

/// One line for each other turn's member calls than `shown`'s, oldest
/// first.
fn other_batches(chain: &Chain, shown: Option<u32>) -> Vec<String> {
    let mut lines: Vec<(u32, Vec<String>)> = Vec::new();
    for member in chain.members.iter().filter(|m| Some(m.turn) != shown) {
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
