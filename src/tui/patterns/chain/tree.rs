//! The member teams of the coordinator pane's shown turn, under its member
//! cards: each team's call in a summary line (`▸ support_swarm (swarm)
//! triage → billing · 2 turns · running`), and under an opened one what
//! its team did, indented: a swarm's transfers, its holder and its latest
//! tool call; a coordinator's member calls, the teams among them opened
//! in turn when opened that far, and its latest tool call. Draws and
//! changes nothing.

use super::member_row::{member_row, member_state};
use super::members_view::MembersView;
use super::state::MemberView;
use super::state::SubTeam;
use super::swarm::{handoff_row, name_width, tool_call_line};
use crate::tui::search;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The latest transfers or member calls an opened team shows.
const SHOWN: usize = 6;

/// The lines of the member teams among `batch` (the member calls shown,
/// `first` the index of the first among the chain's), and the first line
/// of the `selected` call's team, if it is one. The selected team's
/// summary line is marked as the selection while the pane is `focused`,
/// and the search highlighted in each.
pub(super) fn lines(
    batch: &[&MemberView],
    first: usize,
    view: &MembersView,
    (selected, focused): (Option<usize>, bool),
    (width, now): (usize, u64),
) -> (Vec<Line<'static>>, Option<usize>) {
    let query = view.list.search.as_deref();
    let mut out = Vec::new();
    let mut at = None;
    for (i, call) in batch.iter().enumerate() {
        if call.team.is_none() {
            continue;
        }
        let start = out.len();
        team_lines(call, view.opened(call), 0, (width, now), &mut out);
        let this = selected == Some(first + i);
        if this {
            at = Some(start);
        }
        out[start] = search::mark(std::mem::take(&mut out[start]), query, this && focused);
    }
    (out, at)
}

/// A member card's title: the member, and the pattern of the team it is.
pub(super) fn card_title(member: &MemberView) -> String {
    match &member.team {
        Some(team) => format!("{} ({})", member.member, team.pattern),
        None => member.member.clone(),
    }
}

/// How many summary lines the latest turn's member teams take.
pub(super) fn summaries<'a>(batch: impl Iterator<Item = &'a MemberView>) -> usize {
    batch.filter(|m| m.team.is_some()).count()
}

/// `call`'s summary line at `indent`, and what its team did when `open`
/// is 1 or more.
fn team_lines(
    call: &MemberView,
    open: usize,
    indent: usize,
    (width, now): (usize, u64),
    out: &mut Vec<Line<'static>>,
) {
    let Some(team) = call.team.as_deref() else {
        return;
    };
    let (_, style, _) = member_state(call, now);
    let glyph = if open > 0 { "▾ " } else { "▸ " };
    let room = width.saturating_sub(indent + 2).max(1);
    out.push(Line::from(vec![
        Span::raw(" ".repeat(indent)),
        Span::styled(glyph, Style::default().fg(theme::ACCENT)),
        Span::styled(fit(&call.team_summary().unwrap_or_default(), room), style),
    ]));
    if open == 0 {
        return;
    }
    let inner = indent + 2;
    let shape = (width.saturating_sub(inner).max(1), now);
    let mut content = Vec::new();
    if team.chain.coordinator.is_some() {
        coordinator_lines(team, open, shape, &mut content);
    } else {
        swarm_lines(team, shape, &mut content);
    }
    for line in content {
        let mut spans = vec![Span::raw(" ".repeat(inner))];
        spans.extend(line.spans);
        out.push(Line { spans, ..line });
    }
}

/// An opened swarm team: its latest transfers, who holds control while
/// it runs, and its latest tool call.
fn swarm_lines(team: &SubTeam, (width, _): (usize, u64), out: &mut Vec<Line<'static>>) {
    let chain = &team.chain;
    let (asked, _) = chain.transfers();
    let shown = chain.handoffs.len().min(SHOWN);
    if asked > shown {
        out.push(earlier(asked - shown, "transfer"));
    }
    if chain.handoffs.is_empty() {
        out.push(Line::styled("No transfer asked for yet.", theme::dim()));
    }
    let handoffs = &chain.handoffs[chain.handoffs.len() - shown..];
    let from_w = name_width(handoffs.iter().map(|h| h.from.as_str()));
    let to_w = name_width(handoffs.iter().map(|h| h.to.as_str()));
    for (i, handoff) in handoffs.iter().enumerate() {
        let number = asked - shown + i + 1;
        out.push(handoff_row(number, handoff, from_w, to_w, width));
    }
    if !chain.finished
        && let Some(holder) = chain.holder()
    {
        let mut words = format!("▶ {} holds control", fit(&holder.agent, 24));
        if let Some(turn) = &chain.turn {
            words.push_str(&format!(" · turn {} thinking", turn.turn));
        }
        out.push(Line::styled(words, Style::default().fg(theme::ACCENT)));
    }
    if let Some(call) = chain.tool_calls.last() {
        out.push(tool_call_line(call, width, true));
    }
}

/// An opened coordinator team: what its coordinator does while it runs,
/// its latest member calls, the teams among them opened `open - 1` levels
/// more, and its agents' latest tool call.
fn coordinator_lines(
    team: &SubTeam,
    open: usize,
    (width, now): (usize, u64),
    out: &mut Vec<Line<'static>>,
) {
    let chain = &team.chain;
    let coordinator = chain.coordinator.as_deref().unwrap_or_default();
    if !chain.finished
        && let Some(turn) = chain.turn.as_ref().filter(|t| t.agent == coordinator)
    {
        out.push(Line::styled(
            format!(
                "▶ {} is thinking (turn {})",
                fit(coordinator, 24),
                turn.turn
            ),
            Style::default().fg(theme::ACCENT),
        ));
    }
    let (calls, _) = chain.member_calls();
    let shown = chain.members.len().min(SHOWN);
    if calls > shown {
        out.push(earlier(calls - shown, "member call"));
    }
    if chain.members.is_empty() {
        out.push(Line::styled("No member called yet.", theme::dim()));
    }
    for call in &chain.members[chain.members.len() - shown..] {
        if call.team.is_some() {
            team_lines(call, open - 1, 0, (width, now), out);
        } else {
            out.push(member_row(call, now, width, None));
        }
    }
    if let Some(call) = chain.tool_calls.last() {
        out.push(tool_call_line(call, width, true));
    }
}

fn earlier(count: usize, what: &str) -> Line<'static> {
    Line::styled(
        format!(
            "… {}",
            crate::words::plural(count as u64, &format!("earlier {what}"))
        ),
        theme::dim(),
    )
}
