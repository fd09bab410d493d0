//! The team pane drawn: a line naming the node, its team and the visit
//! shown, then the team's own pane as its run draws it (`team_pane` holds
//! what it shows and its keys).

use super::state::GraphFold;
use super::team_pane::TeamPane;
use crate::tui::patterns::chain::{members, swarm};
use crate::tui::patterns::seen::Seen;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::wrap::{clip, wrap};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The most rows the line naming the node, team and visit takes.
const HEAD_ROWS: usize = 3;

/// The team pane of `pane.node`: a line naming the node, its team and the
/// visit shown, then the team's own pane.
pub(super) fn draw(frame: &mut Frame, area: Rect, fold: &GraphFold, pane: &TeamPane, seen: Seen) {
    let node = fold
        .graph
        .as_ref()
        .and_then(|g| g.plan.nodes.get(pane.node))
        .map_or("", |n| n.id.as_str());
    let Some(chain) = fold.teams.get(&pane.node) else {
        return;
    };
    let runs = chain.members.len();
    let at = pane.shown(runs);
    let Some(team) = chain.members.get(at).and_then(|c| c.team.as_deref()) else {
        return;
    };
    let words = format!(
        "node {} · team {} ({}) · visit {} of {runs}, {} · ←/→ visits · Esc back to the graph",
        fit(node, 24),
        fit(&team.name, 24),
        team.pattern,
        at + 1,
        fit(&team.path, 30),
    );
    // The line wraps at its words, on up to three rows, rather than
    // losing its keys at the pane's edge.
    let rows = wrap(
        &[Line::from(vec![Span::styled(words, theme::bold())])],
        usize::from(area.width),
    );
    let rows = clip(
        rows,
        HEAD_ROWS.min(usize::from(area.height)),
        usize::from(area.width),
    );
    let head_rows = u16::try_from(rows.len()).unwrap_or(1);
    let [head, body] =
        Layout::vertical([Constraint::Length(head_rows), Constraint::Min(0)]).areas(area);
    frame.render_widget(Paragraph::new(rows), head);
    if team.coordinator {
        members::draw(frame, body, &team.chain, &pane.members, seen);
    } else {
        swarm::draw(frame, body, &team.chain, &pane.chain, seen);
    }
}
