//! A graph's team nodes in the dashboard: each team node's runs of its
//! team folded as a coordinator's member teams are (a chain per node, the
//! node standing where a coordinator would, each activation a call whose
//! team's chain is folded under it from the team's events, which name
//! their agents by the visit's path), and the team's own pane, which
//! `Enter` on the node opens in place of the graph: a coordinator team's
//! member calls, a swarm's chain, as the team's own run draws them, `j`/`k`
//! moving along its member calls or its transfers as there.
//! `←`/`→` go through the visits, `Esc` returns to the graph.

use super::state::GraphFold;
use crate::bus::{CallOutcome, EventKind};
use crate::patterns::events::{ActivationStatus, MemberTeam, PatternEvent, TeamEvent};
use crate::tui::keymap::Action;
use crate::tui::patterns::chain::members_view::MembersView;
use crate::tui::patterns::chain::nested;
use crate::tui::patterns::chain::state::{Chain, MemberState};
use crate::tui::patterns::chain::swarm;
use crate::tui::selection::ListView;
use std::sync::Arc;

/// The team pane opened on a team node.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TeamPane {
    pub(crate) node: usize,
    /// The visit shown, by its place among the node's runs; `None`: the
    /// latest.
    visit: Option<usize>,
    pub(super) members: MembersView,
    /// A swarm team's transfers, as its own run's pane selects them.
    pub(super) chain: ListView,
}

impl TeamPane {
    pub(crate) fn on(node: usize) -> Self {
        TeamPane {
            node,
            ..TeamPane::default()
        }
    }

    /// The place of the visit shown among the node's `runs`.
    pub(super) fn shown(&self, runs: usize) -> usize {
        self.visit.unwrap_or(usize::MAX).min(runs.saturating_sub(1))
    }

    /// A key in the team pane: `←`/`→` another visit, the rest the team
    /// pane's own.
    pub(crate) fn navigate(&mut self, action: Action, fold: &GraphFold, page: usize) {
        let Some(chain) = fold.teams.get(&self.node) else {
            return;
        };
        let runs = chain.members.len();
        let at = self.shown(runs);
        match action {
            Action::Left => self.visit = Some(at.saturating_sub(1)),
            Action::Right => self.visit = Some((at + 1).min(runs.saturating_sub(1))),
            other => {
                let Some(team) = chain.members.get(at).and_then(|c| c.team.as_deref()) else {
                    return;
                };
                if team.coordinator {
                    self.members.navigate(other, &team.chain, page);
                } else {
                    swarm::navigate(&mut self.chain, other, &team.chain, page);
                }
                return;
            }
        }
        if self.visit != Some(at) {
            self.members = MembersView::default();
            self.chain = ListView::default();
        }
    }
}

impl GraphFold {
    /// Team node `n` (`node`) started its `step`-th activation of the run,
    /// asked `input`, running `team`.
    pub(super) fn team_started(
        &mut self,
        n: usize,
        node: &str,
        step: u32,
        input: &str,
        team: &MemberTeam,
        t_ms: u64,
    ) {
        if !self.teams.contains_key(&n) {
            let chain = match &self.scenario {
                Some(scenario) => Chain::of_team_node(scenario, node),
                None => Chain::default(),
            };
            self.teams.insert(n, Arc::new(chain));
        }
        let Some(chain) = self.teams.get_mut(&n) else {
            return;
        };
        Arc::make_mut(chain).call((step, &team.path, input), None, Some(team), t_ms);
    }

    /// A team's event: folded into the run of the team node whose team's
    /// agent it names.
    pub(super) fn team_event(&mut self, event: &TeamEvent, t_ms: u64) {
        let Some(name) = nested::named(event) else {
            return;
        };
        let holds = |chain: &Arc<Chain>| {
            chain.members.iter().any(|m| {
                m.team.as_ref().is_some_and(|t| {
                    name.strip_prefix(t.path.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
                })
            })
        };
        let found = self
            .teams
            .iter()
            .find(|(_, chain)| holds(chain))
            .map(|(n, _)| *n);
        if let Some(chain) = found.and_then(|n| self.teams.get_mut(&n)) {
            Arc::make_mut(chain).route(event, t_ms);
        }
    }

    /// A model call counted against a team's call budget (`used` of
    /// `limit`): the running team's, the one started last when several
    /// run, whose pane shows it as a coordinator's or a swarm's run does.
    pub(super) fn team_calls(&mut self, kind: &EventKind, t_ms: u64) {
        let running = |chain: &Arc<Chain>| {
            chain
                .members
                .last()
                .filter(|m| m.state == MemberState::Running)
                .map(|m| m.started_ms)
        };
        let latest = self
            .teams
            .iter()
            .filter_map(|(n, chain)| Some((running(chain)?, *n)))
            .max();
        let Some(chain) = latest.and_then(|(_, n)| self.teams.get_mut(&n)) else {
            return;
        };
        let call = Arc::make_mut(chain).members.last_mut();
        if let Some(team) = call.and_then(|m| m.team.as_deref_mut()) {
            team.chain.fold(kind, t_ms);
        }
    }

    /// Team node `n`'s activation `step` ended with `status`; `output` its
    /// answer.
    pub(super) fn team_finished(
        &mut self,
        n: usize,
        step: u32,
        status: ActivationStatus,
        output: &str,
        t_ms: u64,
    ) {
        let Some(chain) = self.teams.get_mut(&n) else {
            return;
        };
        let Some(call) = chain.members.iter().rev().find(|m| m.turn == step) else {
            return;
        };
        let ok = status == ActivationStatus::Ok;
        let finished = TeamEvent::MemberCallFinished {
            turn: step,
            member: call.member.clone(),
            outcome: if ok {
                CallOutcome::Ok
            } else {
                CallOutcome::Error
            },
            latency_ms: t_ms.saturating_sub(call.started_ms),
            reply: ok.then(|| output.to_string()),
            reason: None,
        };
        let chain = Arc::make_mut(chain);
        chain.fold(&EventKind::Pattern(PatternEvent::Team(finished)), t_ms);
        if let Some(team) = chain
            .members
            .iter_mut()
            .rev()
            .find(|m| m.turn == step)
            .and_then(|m| m.team.as_deref_mut())
        {
            team.chain.stop();
        }
    }

    /// The run ended: no team is in flight any more.
    pub(super) fn teams_stopped(&mut self) {
        let running: Vec<usize> = self.teams.keys().copied().collect();
        for n in running {
            if let Some(chain) = self.teams.get_mut(&n) {
                Arc::make_mut(chain).stop();
            }
        }
    }

    /// Whether `Enter` on node `n` opens its team's pane: a team node whose
    /// team has run.
    pub(crate) fn has_team_pane(&self, n: usize) -> bool {
        self.teams.get(&n).is_some_and(|c| !c.members.is_empty())
    }
}
