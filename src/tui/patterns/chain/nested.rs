//! The member teams' chains (seed 002's "Team of Teams"): a coordinator's
//! member that is a team gets a chain of its own under its member call.
//! The events of a team's agents name them by path
//! (`launch/support_swarm/triage`); they go down the tree to the call of
//! the team whose path they start with and are folded there with names
//! relative to that team, never into a chain above it. Only the run's
//! turn count sees them all.

use super::state::{Chain, MemberState, MemberView, SubTeam};
use crate::bus::{CallOutcome, EventKind};
use crate::patterns::events::PatternEvent;
use crate::patterns::events::{HandoffRejection, MemberTeam, TeamEvent};
use crate::words::plural;
use std::sync::Arc;

/// The deepest team whose chain is folded: deeper than a scenario may nest
/// teams, so that only a damaged recording meets it, and its deeper
/// events are dropped rather than grow the tree without end.
const DEEPEST: usize = 8;

/// How many of a chain's latest member team calls keep their chain in
/// full; older calls keep the last [`COMPACT`] of each list, counted, so
/// that a tree of long teams stays small.
const TEAMS_IN_FULL: usize = 8;
const COMPACT: usize = 4;

impl SubTeam {
    /// The team `team` called from `parent` at `t_ms`, its entry seated.
    fn seated(team: &MemberTeam, parent: &Chain, t_ms: u64) -> SubTeam {
        let mut chain = Chain {
            limits: parent.teams.0.get(&team.name).copied().unwrap_or_default(),
            depth: parent.depth + 1,
            teams: Arc::clone(&parent.teams),
            ..Chain::default()
        };
        chain.seat(team.entry.clone(), team.is_coordinator(), t_ms);
        SubTeam {
            name: team.name.clone(),
            pattern: team.pattern.clone(),
            coordinator: team.is_coordinator(),
            path: team.path.clone(),
            chain,
        }
    }

    /// The agent of the team whose turn is in flight, by path, if one is.
    pub(crate) fn speaking(&self) -> Option<String> {
        let turn = self.chain.turn.as_ref()?;
        Some(format!("{}/{}", self.path, turn.agent))
    }

    /// What the team did, in a line: a swarm's chain of agents, a
    /// coordinator's member calls.
    pub(crate) fn doings(&self) -> String {
        let chain = &self.chain;
        match &chain.coordinator {
            Some(coordinator) => {
                let (calls, done) = chain.member_calls();
                format!(
                    "{coordinator} · {}, {done} answered",
                    plural(calls as u64, "member call")
                )
            }
            None => {
                let mut agents: Vec<String> = chain.links.iter().map(|l| l.agent.clone()).collect();
                if chain.earlier.links > 0 {
                    agents.insert(0, format!("… {} earlier", chain.earlier.links));
                }
                let mut words = agents.join(" → ");
                let (_, refused) = chain.transfers();
                if refused > 0 {
                    words.push_str(&format!(" · {refused} refused"));
                }
                words
            }
        }
    }
}

impl MemberView {
    /// The member call of a team in a line: `support_swarm (swarm) triage
    /// → billing · 2 turns · done`; `None` for an agent's call.
    pub(crate) fn team_summary(&self) -> Option<String> {
        let team = self.team.as_deref()?;
        let pattern = if team.name == self.member {
            team.pattern.clone()
        } else {
            format!("{} {}", team.pattern, team.name)
        };
        Some(format!(
            "{} ({pattern}) {} · {} · {}",
            self.member,
            team.doings(),
            plural(u64::from(self.turns), "turn"),
            self.state_words()
        ))
    }

    /// Where the call stands: running, done, or why it did not answer.
    pub(crate) fn state_words(&self) -> String {
        match &self.state {
            MemberState::Running => "running".to_string(),
            MemberState::Done { .. } => "done".to_string(),
            // A team's stop reason names its agent by path: the summary
            // already says which team.
            MemberState::Failed {
                reason: Some(reason),
                ..
            } => match &self.team {
                Some(team) => reason.to_string().replace(&format!("{}/", team.path), ""),
                None => reason.to_string(),
            },
            MemberState::Failed {
                outcome: Some(CallOutcome::Timeout),
                ..
            } => "timed out".to_string(),
            MemberState::Failed { .. } => "failed".to_string(),
        }
    }
}

impl Chain {
    /// The member call `member` starts at `t_ms`; its team's chain is
    /// seated when the member is a team.
    pub(crate) fn call(
        &mut self,
        (turn, member, task): (u32, &str, &str),
        deadline_ms: Option<u64>,
        team: Option<&MemberTeam>,
        t_ms: u64,
    ) {
        let team = team
            .filter(|_| self.depth < DEEPEST)
            .map(|team| Box::new(SubTeam::seated(team, self, t_ms)));
        let teamed = team.is_some();
        self.members.push(MemberView {
            turn,
            member: member.to_string(),
            task: task.to_string(),
            started_ms: t_ms,
            deadline_ms,
            turns: 0,
            state: MemberState::Running,
            team,
        });
        if teamed {
            self.compact_old_teams();
        }
    }

    /// Fold `event` into the chain of the member team whose agent it names
    /// by path; whether it named one (then this chain is left alone but
    /// for the run's turn count). At the top, an event named under the
    /// top coordinator (`launch/…`) whose team's call this chain never saw
    /// (a run attached mid-way, a damaged recording) is dropped rather
    /// than shown as the top's own. Any other name with a slash is a
    /// model's (a member or a transfer target it made up) and folds here,
    /// where its refusal is shown.
    pub(crate) fn route(&mut self, event: &TeamEvent, t_ms: u64) -> bool {
        let Some(name) = named(event).filter(|name| name.contains('/')) else {
            return false;
        };
        let held = self.team_call(name).is_some();
        if !held && !self.names_a_team(name) {
            return false;
        }
        if let TeamEvent::TurnStarted { turn, .. } = event {
            self.turns = self.turns.max(*turn);
        }
        if held {
            self.route_down(event, name, t_ms);
        }
        true
    }

    /// Whether `name` is a team agent's path at the top of the tree: under
    /// the top coordinator.
    fn names_a_team(&self, name: &str) -> bool {
        self.depth == 0
            && self.coordinator.as_deref().is_some_and(|top| {
                name.strip_prefix(top)
                    .is_some_and(|rest| rest.starts_with('/'))
            })
    }

    fn route_down(&mut self, event: &TeamEvent, name: &str, t_ms: u64) {
        let Some(call) = self.team_call(name) else {
            return;
        };
        if matches!(event, TeamEvent::TurnStarted { .. }) {
            call.turns += 1;
        }
        let Some(team) = call.team.as_deref_mut() else {
            return;
        };
        // Down to the deepest call that holds the name; there, the name
        // relative to its team (a model's made-up `x/y` included).
        if team.chain.team_call(name).is_some() {
            team.chain.route_down(event, name, t_ms);
        } else {
            let event = EventKind::Pattern(PatternEvent::Team(relative(event, &team.path)));
            team.chain.fold(&event, t_ms);
            team.chain.trim();
        }
    }

    /// The call of the team `name` belongs to (its path, then `/`): the
    /// latest running one, else the latest (an event late for its call
    /// still lands under it).
    fn team_call(&mut self, name: &str) -> Option<&mut MemberView> {
        let under = |m: &MemberView| {
            m.team.as_ref().is_some_and(|team| {
                name.strip_prefix(team.path.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
            })
        };
        let at = self
            .members
            .iter()
            .rposition(|m| under(m) && m.state == MemberState::Running)
            .or_else(|| self.members.iter().rposition(under))?;
        self.members.get_mut(at)
    }

    /// The chain's team stopped (its call ended, or the run did): nothing
    /// in it, nor in the teams under it, is in flight any more.
    pub(crate) fn stop(&mut self) {
        self.finished = true;
        self.turn = None;
        for member in &mut self.members {
            if member.state == MemberState::Running {
                member.state = MemberState::Failed {
                    latency_ms: None,
                    outcome: None,
                    reason: None,
                };
            }
            if let Some(team) = member.team.as_deref_mut() {
                team.chain.stop();
            }
        }
    }

    /// Member team calls older than the latest [`TEAMS_IN_FULL`] keep only
    /// the end of their chains.
    fn compact_old_teams(&mut self) {
        let old = self
            .members
            .iter_mut()
            .rev()
            .filter_map(|m| m.team.as_deref_mut())
            .skip(TEAMS_IN_FULL);
        for team in old {
            team.chain.compact();
        }
    }

    fn compact(&mut self) {
        self.keep_latest(COMPACT, 0);
        for team in self
            .members
            .iter_mut()
            .filter_map(|m| m.team.as_deref_mut())
        {
            team.chain.compact();
        }
    }
}

/// The agent the event is about: the one taking a turn or calling a tool,
/// the one handing control on, the member called (a graph's team pane
/// reads it too).
pub(crate) fn named(event: &TeamEvent) -> Option<&str> {
    match event {
        TeamEvent::TurnStarted { agent, .. }
        | TeamEvent::TurnFinished { agent, .. }
        | TeamEvent::ToolUsed { agent, .. } => Some(agent),
        TeamEvent::TransferRequested { from, .. }
        | TeamEvent::HandoffAccepted { from, .. }
        | TeamEvent::HandoffRejected { from, .. } => Some(from),
        TeamEvent::MemberCallStarted { member, .. }
        | TeamEvent::MemberCallFinished { member, .. } => Some(member),
    }
}

/// `event` with the names under `path` written relative to it.
fn relative(event: &TeamEvent, path: &str) -> TeamEvent {
    let prefix = format!("{path}/");
    let strip = |name: &mut String| {
        if let Some(rest) = name.strip_prefix(&prefix) {
            *name = rest.to_string();
        }
    };
    let mut event = event.clone();
    match &mut event {
        TeamEvent::TurnStarted { agent, .. }
        | TeamEvent::TurnFinished { agent, .. }
        | TeamEvent::ToolUsed { agent, .. } => strip(agent),
        TeamEvent::TransferRequested { from, to, .. } => {
            strip(from);
            strip(to);
        }
        TeamEvent::HandoffAccepted {
            from, to, window, ..
        } => {
            strip(from);
            strip(to);
            window.iter_mut().for_each(&strip);
        }
        TeamEvent::HandoffRejected {
            from,
            to,
            window,
            reason,
            ..
        } => {
            strip(from);
            strip(to);
            window.iter_mut().for_each(&strip);
            if let HandoffRejection::UnknownAgent { agent }
            | HandoffRejection::AgentDenied { agent } = reason
            {
                strip(agent);
            }
        }
        TeamEvent::MemberCallStarted { member, .. }
        | TeamEvent::MemberCallFinished { member, .. } => strip(member),
    }
    event
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{RunStatus, RunSummary};
    use crate::patterns::events::PatternEvent;
    use crate::patterns::events::TurnOutcome;
    use crate::patterns::team::stops::TeamStop;
    use crate::scenario::Scenario;
    use crate::stop::StopReason;
    use crate::tui::patterns::chain::state::TEAM_KEPT;
    use crate::tui::patterns::folding::Fold;
    use crate::tui::state::outcome::Outcome;
    use serde_json::json;

    /// The draft's tree: `launch` over a legal reviewer, a research team
    /// (a lead over an analyst and a deep team) and a support swarm.
    fn launch() -> Chain {
        let scenario: Scenario = serde_json::from_value(json!({
            "name": "t", "pattern": "coordinator", "goal": "g", "context": {},
            "entry": "launch",
            "agents": {"launch": {}, "legal_reviewer": {},
                       "research_team": {"team": "research_team"},
                       "support_swarm": {"team": "support_swarm"}},
            "teams": {
                "research_team": {"pattern": "coordinator", "entry": "research_lead",
                                  "agents": {"research_lead": {}, "analyst": {},
                                             "deep_team": {"team": "deep_team"}},
                                  "limits": {"member_timeout_ms": 3000}},
                "deep_team": {"pattern": "swarm", "entry": "x", "agents": {"x": {}, "y": {}}},
                "support_swarm": {"pattern": "swarm", "entry": "triage",
                                  "agents": {"triage": {}, "billing": {}},
                                  "limits": {"max_handoffs": 4}}
            },
            "provider": {"kind": "sim"}
        }))
        .unwrap();
        Chain::seated(&scenario, true)
    }

    fn team(name: &str, pattern: &str, entry: &str, path: &str) -> Option<MemberTeam> {
        Some(MemberTeam {
            name: name.into(),
            pattern: pattern.into(),
            entry: entry.into(),
            path: path.into(),
        })
    }

    fn swarm_team() -> Option<MemberTeam> {
        team("support_swarm", "swarm", "triage", "launch/support_swarm")
    }

    fn research_team() -> Option<MemberTeam> {
        team(
            "research_team",
            "coordinator",
            "research_lead",
            "launch/research_team",
        )
    }

    fn call(turn: u32, member: &str, team: Option<MemberTeam>) -> EventKind {
        EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallStarted {
            turn,
            member: member.into(),
            task: "look".into(),
            deadline_ms: None,
            team,
        }))
    }

    fn answered(turn: u32, member: &str) -> EventKind {
        EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
            turn,
            member: member.into(),
            outcome: CallOutcome::Ok,
            latency_ms: 100,
            reply: Some("fine".into()),
            reason: None,
        }))
    }

    fn turn(turn: u32, agent: &str) -> EventKind {
        EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted {
            turn,
            agent: agent.into(),
        }))
    }

    fn handed(from: &str, to: &str, handoffs: u64) -> EventKind {
        EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
            from: from.into(),
            to: to.into(),
            handoffs,
            window: vec![to.into()],
            deadline_ms: None,
        }))
    }

    fn apply_all(chain: &mut Chain, events: &[EventKind]) {
        for (t_ms, event) in (0..).zip(events) {
            chain.apply(event, t_ms * 100);
        }
    }

    fn sub<'a>(chain: &'a Chain, member: &str) -> &'a Chain {
        let call = chain.members.iter().rev().find(|m| m.member == member);
        &call.unwrap().team.as_ref().expect("a team").chain
    }

    fn agents(chain: &Chain) -> Vec<&str> {
        chain.links.iter().map(|l| l.agent.as_str()).collect()
    }

    #[test]
    fn a_member_teams_events_fold_under_its_call_and_never_into_the_top_chain() {
        let chain = &mut launch();
        apply_all(
            chain,
            &[
                turn(1, "launch"),
                call(1, "support_swarm", swarm_team()),
                call(1, "legal_reviewer", None),
                turn(2, "launch/support_swarm/triage"),
                EventKind::Pattern(PatternEvent::Team(TeamEvent::TransferRequested {
                    turn: 2,
                    from: "launch/support_swarm/triage".into(),
                    to: "launch/support_swarm/billing".into(),
                    message: Some("payments".into()),
                })),
                handed(
                    "launch/support_swarm/triage",
                    "launch/support_swarm/billing",
                    1,
                ),
                turn(3, "legal_reviewer"),
                turn(4, "launch/support_swarm/billing"),
                EventKind::Pattern(PatternEvent::Team(TeamEvent::ToolUsed {
                    turn: 4,
                    agent: "launch/support_swarm/billing".into(),
                    tool: "invoice_lookup".into(),
                    args: "{}".into(),
                    result: "{}".into(),
                    ok: true,
                })),
            ],
        );
        assert_eq!(agents(chain), ["launch"], "no nested agent holds the top");
        assert!(chain.handoffs.is_empty() && chain.tool_calls.is_empty());
        assert_eq!((chain.counted, chain.window.len()), (0, 0));
        assert_eq!(chain.turns, 4, "the run's turns, the team's included");
        assert_eq!(chain.members.len(), 2);
        assert_eq!((chain.members[0].turns, chain.members[1].turns), (2, 1));

        let swarm = sub(chain, "support_swarm");
        assert_eq!(agents(swarm), ["triage", "billing"]);
        assert_eq!(swarm.handoffs[0].from, "triage");
        assert_eq!(swarm.handoffs[0].message.as_deref(), Some("payments"));
        assert_eq!(swarm.window, ["billing"]);
        assert_eq!(swarm.limits.max_handoffs, 4, "the team's own limits");
        assert_eq!(swarm.turn.as_ref().unwrap().agent, "billing");
        assert_eq!(swarm.tool_calls[0].agent, "billing");
        assert_eq!(
            chain.members[0].team_summary().unwrap(),
            "support_swarm (swarm) triage → billing · 2 turns · running"
        );

        chain.apply(
            &EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                turn: 1,
                member: "support_swarm".into(),
                outcome: CallOutcome::Error,
                latency_ms: 900,
                reply: None,
                reason: Some(
                    TeamStop::NodeTimeout {
                        agent: "launch/support_swarm/billing".into(),
                    }
                    .into(),
                ),
            })),
            1000,
        );
        assert!(sub(chain, "support_swarm").turn.is_none(), "it stopped");
        assert_eq!(
            chain.members[0].team_summary().unwrap(),
            "support_swarm (swarm) triage → billing · 2 turns · node_timeout:billing"
        );
        assert_eq!(chain.members[1].team_summary(), None, "an agent's call");
    }

    #[test]
    fn two_teams_running_side_by_side_each_keep_their_own_agents() {
        let chain = &mut launch();
        apply_all(
            chain,
            &[
                call(1, "research_team", research_team()),
                call(1, "support_swarm", swarm_team()),
                turn(2, "launch/research_team/research_lead"),
                turn(3, "launch/support_swarm/triage"),
                call(2, "launch/research_team/analyst", None),
                handed(
                    "launch/support_swarm/triage",
                    "launch/support_swarm/billing",
                    1,
                ),
                turn(4, "launch/research_team/analyst"),
                answered(2, "launch/research_team/analyst"),
                answered(1, "research_team"),
            ],
        );
        let research = sub(chain, "research_team");
        assert_eq!(research.coordinator.as_deref(), Some("research_lead"));
        assert_eq!(research.limits.member_timeout_ms, 3000);
        assert_eq!(research.members.len(), 1);
        assert_eq!(research.members[0].member, "analyst");
        assert_eq!(research.members[0].turns, 1);
        assert!(
            research.handoffs.is_empty(),
            "the swarm's transfer is not here"
        );
        assert_eq!(agents(sub(chain, "support_swarm")), ["triage", "billing"]);
        assert!(sub(chain, "support_swarm").members.is_empty());
        assert_eq!((chain.members[0].turns, chain.members[1].turns), (2, 1));
        assert_eq!(chain.member_calls(), (2, 1), "the top's own calls only");

        // Called again at a later turn, the team's events go to the new
        // call, not the one that answered.
        apply_all(
            chain,
            &[
                call(5, "research_team", research_team()),
                turn(6, "launch/research_team/research_lead"),
            ],
        );
        assert_eq!(chain.members[2].turns, 1);
        assert_eq!(chain.members[0].turns, 2);
    }

    #[test]
    fn a_team_in_a_team_folds_under_its_own_call_in_its_parents_chain() {
        let chain = &mut launch();
        let deep = team("deep_team", "swarm", "x", "launch/research_team/deep_team");
        apply_all(
            chain,
            &[
                call(1, "research_team", research_team()),
                turn(2, "launch/research_team/research_lead"),
                call(2, "launch/research_team/deep_team", deep),
                turn(3, "launch/research_team/deep_team/x"),
                handed(
                    "launch/research_team/deep_team/x",
                    "launch/research_team/deep_team/y",
                    1,
                ),
                turn(4, "launch/research_team/deep_team/y"),
            ],
        );
        let research = sub(chain, "research_team");
        assert_eq!(research.members[0].member, "deep_team");
        assert_eq!(research.members[0].turns, 2);
        assert!(research.handoffs.is_empty());
        assert_eq!(agents(research), ["research_lead"]);
        let deep = sub(research, "deep_team");
        assert_eq!(agents(deep), ["x", "y"]);
        assert_eq!(deep.depth, 2);
        assert_eq!(deep.turn.as_ref().unwrap().agent, "y");
        assert_eq!(chain.members[0].turns, 3, "every turn below the call");
        assert_eq!(chain.turns, 4);

        chain.apply(&answered(2, "launch/research_team/deep_team"), 900);
        let research = sub(chain, "research_team");
        assert!(matches!(
            research.members[0].state,
            MemberState::Done { .. }
        ));
        assert!(sub(research, "deep_team").finished);

        // The run ends: what still ran below is over.
        chain.close(&Outcome {
            status: RunStatus::Stopped,
            stop_reason: StopReason::Cancelled,
            phase: None,
            result: std::sync::Arc::new(json!({}).into()),
            summary: RunSummary::default(),
            error: None,
            shown: Default::default(),
        });
        assert!(matches!(
            chain.members[0].state,
            MemberState::Failed { reason: None, .. }
        ));
        assert!(sub(chain, "research_team").finished);
    }

    #[test]
    fn an_event_of_a_team_no_call_announced_is_dropped() {
        let chain = &mut launch();
        apply_all(
            chain,
            &[
                turn(1, "launch/support_swarm/triage"),
                handed(
                    "launch/support_swarm/triage",
                    "launch/support_swarm/billing",
                    1,
                ),
                EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnFinished {
                    turn: 1,
                    agent: "launch/support_swarm/triage".into(),
                    outcome: TurnOutcome::Transfer,
                    latency_ms: 1,
                })),
            ],
        );
        assert_eq!(agents(chain), ["launch"]);
        assert!(chain.handoffs.is_empty() && chain.turn.is_none());
        assert_eq!(chain.turns, 1, "its turn is still one of the run's");
    }

    /// A member a model made up, refused by the engine, named as it was
    /// asked for: shown where it was asked, at the top or in a team.
    #[test]
    fn a_made_up_member_with_a_slash_is_shown_where_it_was_asked_for() {
        let refused = |turn, member: &str| {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                turn,
                member: member.into(),
                outcome: CallOutcome::Refused,
                latency_ms: 0,
                reply: None,
                reason: Some(
                    TeamStop::UnknownMember {
                        member: member.into(),
                    }
                    .into(),
                ),
            }))
        };
        let chain = &mut launch();
        apply_all(
            chain,
            &[
                call(1, "x/y", None),
                refused(1, "x/y"),
                call(1, "research_team", research_team()),
                call(2, "launch/research_team/a/b", None),
                refused(2, "launch/research_team/a/b"),
            ],
        );
        assert_eq!(chain.members[0].member, "x/y");
        assert!(matches!(chain.members[0].state, MemberState::Failed { .. }));
        let research = sub(chain, "research_team");
        assert_eq!(research.members.len(), 1, "{research:?}");
        assert_eq!(research.members[0].member, "a/b");
        assert!(matches!(
            research.members[0].state,
            MemberState::Failed { .. }
        ));
        assert_eq!(chain.members.len(), 2, "nothing of the team at the top");
    }

    #[test]
    fn a_long_nested_run_keeps_its_trees_small_and_counts_the_rest() {
        let chain = &mut launch();
        chain.apply(&call(1, "support_swarm", swarm_team()), 0);
        let names = [
            "launch/support_swarm/triage",
            "launch/support_swarm/billing",
        ];
        for n in 0..10_000u64 {
            let (from, to) = (names[(n % 2) as usize], names[((n + 1) % 2) as usize]);
            chain.apply(&handed(from, to, n + 1), n);
            let swarm = sub(chain, "support_swarm");
            assert!(swarm.links.len() < 2 * TEAM_KEPT && swarm.handoffs.len() < 2 * TEAM_KEPT);
        }
        let swarm = sub(chain, "support_swarm");
        assert_eq!(swarm.earlier.links + swarm.links.len(), 10_001);
        assert_eq!(swarm.transfers(), (10_000, 0));
        assert!(chain.handoffs.is_empty());
        assert_eq!(
            chain.members[0].team_summary().unwrap(),
            format!(
                "support_swarm (swarm) … {} earlier → {} · 0 turns · running",
                swarm.earlier.links,
                agents(swarm).join(" → ")
            )
        );

        // Many calls of the team: the older ones keep only their ends.
        for turn in 2..40u32 {
            chain.apply(&call(turn, "support_swarm", swarm_team()), 0);
            for n in 0..20u64 {
                let (from, to) = (names[(n % 2) as usize], names[((n + 1) % 2) as usize]);
                chain.apply(&handed(from, to, n + 1), n);
            }
            chain.apply(&answered(turn, "support_swarm"), 0);
        }
        let kept: Vec<usize> = chain
            .members
            .iter()
            .map(|m| m.team.as_ref().unwrap().chain.links.len())
            .collect();
        assert!(
            kept[..kept.len() - TEAMS_IN_FULL]
                .iter()
                .all(|n| *n <= COMPACT),
            "{kept:?}"
        );
        assert!(
            kept[kept.len() - TEAMS_IN_FULL..].iter().all(|n| *n == 21),
            "{kept:?}"
        );
        let first = &chain.members[0].team.as_ref().unwrap().chain;
        assert_eq!(
            first.transfers().0,
            10_000,
            "a compacted chain still counts"
        );
    }
}
