//! The coordinator pane's selection: the member call selected, and how
//! far each member team's call is opened under the member cards (0: its
//! summary line; 1: its own chain or member calls; 2: the teams among
//! those opened too; and so on, as deep as the team goes).

use super::list;
use super::state::SubTeam;
use super::state::{Chain, MemberView};
use crate::tui::keymap::Action;
use crate::tui::selection::ListView;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct MembersView {
    pub(crate) list: ListView,
    /// How far each call is opened, by the coordinator's turn that made
    /// it and the member (an index would move as old calls are dropped).
    open: BTreeMap<(u32, String), usize>,
}

impl MembersView {
    /// How far `call` is opened.
    pub(crate) fn opened(&self, call: &MemberView) -> usize {
        self.open
            .get(&(call.turn, call.member.clone()))
            .copied()
            .unwrap_or(0)
    }

    /// Apply a key: `→` opens the selected member team's call one level
    /// more (as deep as its tree goes), `←` closes one; other keys move
    /// the selection.
    pub(crate) fn navigate(&mut self, action: Action, chain: &Chain, page: usize) {
        let shown = list::members(chain);
        let selected = self.list.item(&shown).and_then(|i| chain.members.get(i));
        match (action, selected) {
            (Action::Right | Action::Left, Some(call)) => {
                let Some(team) = call.team.as_deref() else {
                    return;
                };
                let key = (call.turn, call.member.clone());
                let now = self.opened(call);
                let to = match action {
                    Action::Right => (now + 1).min(levels(team)),
                    _ => now.saturating_sub(1),
                };
                if to == 0 {
                    self.open.remove(&key);
                } else {
                    self.open.insert(key, to);
                }
            }
            (Action::Right | Action::Left, None) => {}
            _ => self.list.navigate(action, &shown, page, &[]),
        }
    }
}

/// How many levels `team` opens to: its own content, then the deepest of
/// the teams it called.
fn levels(team: &SubTeam) -> usize {
    1 + team
        .chain
        .members
        .iter()
        .filter_map(|m| m.team.as_deref())
        .map(levels)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::EventKind;
    use crate::patterns::events::PatternEvent;
    use crate::patterns::events::{MemberTeam, TeamEvent};
    use crate::tui::patterns::folding::Fold;

    fn call(turn: u32, member: &str, path: Option<&str>) -> EventKind {
        EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallStarted {
            turn,
            member: member.into(),
            task: "look".into(),
            deadline_ms: None,
            team: path.map(|path| MemberTeam {
                name: member.rsplit('/').next().unwrap().into(),
                pattern: "coordinator".into(),
                entry: "lead".into(),
                path: path.into(),
            }),
        }))
    }

    #[test]
    fn right_opens_the_selected_team_as_deep_as_it_goes_and_left_closes_it() {
        let mut chain = Chain::default();
        chain.apply(&call(1, "legal", None), 0);
        chain.apply(&call(1, "research", Some("top/research")), 0);
        chain.apply(&call(2, "top/research/deep", Some("top/research/deep")), 0);
        let mut view = MembersView::default();
        // Following, the first running call is selected: an agent's.
        view.navigate(Action::Right, &chain, 5);
        assert_eq!(view, MembersView::default(), "an agent has nothing to open");
        view.navigate(Action::Down, &chain, 5);
        let research = &chain.members[1];
        for want in [1, 2, 2] {
            view.navigate(Action::Right, &chain, 5);
            assert_eq!(view.opened(research), want, "the team, then its deep team");
        }
        view.navigate(Action::Left, &chain, 5);
        assert_eq!(view.opened(research), 1);
        view.navigate(Action::Up, &chain, 5);
        view.navigate(Action::Left, &chain, 5);
        assert_eq!(view.opened(research), 1, "← on another call leaves it open");
        view.navigate(Action::Down, &chain, 5);
        view.navigate(Action::Left, &chain, 5);
        assert_eq!(view.opened(research), 0);
        assert_eq!(view.open.len(), 0);
    }
}
