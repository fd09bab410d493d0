//! The swarm's and the coordinator's state: the chain of agents that held
//! control, every transfer asked for with the count and window the limits
//! read, the turn in flight, and the coordinator's member calls, folded
//! from the team events. The limits come from the run's scenario.

use crate::bus::CallOutcome;
use crate::patterns::events::HandoffRejection;
use crate::patterns::team::scenario::DEFAULT_MAX_LLM_CALLS;
use crate::scenario::Scenario;
use crate::stop::StopReason;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How many of the latest links, transfers and member calls the state keeps
/// in full. A long run's earlier ones are counted, not kept (its recording
/// has every one), so that the dashboard's memory and the work of a frame do
/// not grow with the run.
pub(crate) const KEPT: usize = 512;

/// How many a member team's chain keeps of each list: a team's chain is
/// drawn in a few rows under its call, and a tree of them must stay small.
pub(crate) const TEAM_KEPT: usize = 64;

/// What the state no longer keeps of a long run, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Earlier {
    pub(crate) links: usize,
    pub(crate) handoffs: usize,
    pub(crate) refused: usize,
    pub(crate) members: usize,
    pub(crate) members_done: usize,
    pub(crate) tool_calls: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Chain {
    pub(crate) limits: ChainLimits,
    /// The coordinator, in a coordinator run.
    pub(crate) coordinator: Option<String>,
    /// The agents in the order they held control, the entry first.
    pub(crate) links: Vec<Link>,
    /// Every transfer asked for, in order.
    pub(crate) handoffs: Vec<HandoffView>,
    /// Transfers the limits counted.
    pub(crate) counted: u64,
    /// The loop check's recent targets, oldest first.
    pub(crate) window: Vec<String>,
    pub(crate) llm_calls: u64,
    /// The holder's (or the coordinator's) turn in flight.
    pub(crate) turn: Option<TurnView>,
    /// Turns started so far, the members' included.
    pub(crate) turns: u32,
    /// Member calls, in the order the coordinator asked for them.
    pub(crate) members: Vec<MemberView>,
    /// Tools the agents called, with what they asked and got, in order.
    pub(crate) tool_calls: Vec<ToolCallView>,
    /// The message of the transfer asked for and not yet decided.
    pub(super) asked_message: Option<String>,
    pub(crate) finished: bool,
    /// The links, transfers and member calls before those kept.
    pub(crate) earlier: Earlier,
    /// How deep the chain's team sits in the run's tree of teams: 0 for
    /// the run's own team, 1 for a member team, and so on.
    pub(crate) depth: usize,
    /// The limits of every team of the scenario, by name, for the member
    /// teams' chains.
    pub(super) teams: Arc<TeamLimits>,
}

/// The limits a run's chain is drawn against; 0 is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChainLimits {
    pub(crate) max_handoffs: u32,
    pub(crate) node_timeout_ms: u64,
    pub(crate) window: u32,
    pub(crate) min_unique: u32,
    pub(crate) max_llm_calls: u64,
    pub(crate) member_timeout_ms: u64,
}

impl ChainLimits {
    /// A team's limits as its scenario part writes them; the model call
    /// budget is the run's.
    pub(super) fn of(limits: crate::patterns::team::scenario::TeamLimits) -> ChainLimits {
        ChainLimits {
            max_handoffs: limits.max_handoffs(),
            node_timeout_ms: limits.node_timeout_ms(),
            window: limits.window(),
            min_unique: limits.min_unique(),
            max_llm_calls: 0,
            member_timeout_ms: limits.member_timeout_ms(),
        }
    }
}

/// One agent's time holding control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) agent: String,
    pub(crate) since_ms: u64,
    /// When its node timeout ends its hold, if it has one.
    pub(crate) deadline_ms: Option<u64>,
    pub(crate) turns: u32,
    /// When it handed control on.
    pub(crate) until_ms: Option<u64>,
    /// Its last turn was cut off at the deadline.
    pub(crate) cut: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HandoffView {
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) at_ms: u64,
    /// `None` when accepted.
    pub(crate) rejected: Option<HandoffRejection>,
    /// The count and the window right after it.
    pub(crate) counted: u64,
    pub(crate) window: Vec<String>,
    /// What the agent handed over with it, as the model wrote it.
    pub(crate) message: Option<String>,
}

/// A tool an agent called in a turn: what it asked and what came back, as
/// the event carried them (cut, not yet cleaned for the screen).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ToolCallView {
    pub(crate) at_ms: u64,
    pub(crate) turn: u32,
    pub(crate) agent: String,
    pub(crate) tool: String,
    pub(crate) args: String,
    pub(crate) result: String,
    pub(crate) ok: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TurnView {
    pub(crate) turn: u32,
    pub(crate) agent: String,
    pub(crate) started_ms: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MemberView {
    /// The coordinator's turn that asked.
    pub(crate) turn: u32,
    pub(crate) member: String,
    pub(crate) task: String,
    pub(crate) started_ms: u64,
    pub(crate) deadline_ms: Option<u64>,
    /// Turns the member has taken (a member team's: its agents' turns).
    pub(crate) turns: u32,
    pub(crate) state: MemberState,
    /// The team the member is, with its own chain, when it is one.
    pub(crate) team: Option<Box<SubTeam>>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum MemberState {
    Running,
    Done {
        latency_ms: u64,
        reply: String,
    },
    Failed {
        latency_ms: Option<u64>,
        outcome: Option<CallOutcome>,
        reason: Option<StopReason>,
    },
}

impl Chain {
    /// Read the limits and seat the entry agent from the run's scenario;
    /// in a coordinator's run the entry agent is the coordinator.
    pub(super) fn seated(scenario: &Scenario, coordinated: bool) -> Chain {
        let mut chain = Chain::default();
        chain.configure(scenario, coordinated);
        chain
    }

    fn configure(&mut self, scenario: &Scenario, coordinated: bool) {
        let budget = scenario.budget.clone().unwrap_or_default();
        self.limits = ChainLimits::of(scenario.limits.clone().unwrap_or_default());
        self.limits.max_llm_calls =
            u64::from(budget.max_llm_calls.unwrap_or(DEFAULT_MAX_LLM_CALLS));
        self.teams = Arc::new(TeamLimits::of(scenario));
        let entry = scenario
            .entry
            .clone()
            .or_else(|| scenario.agents.keys().next().cloned());
        if let Some(entry) = entry {
            self.seat(entry, coordinated, 0);
        }
    }

    /// The chain a graph's team node holds its team's runs in: the node
    /// stands where a coordinator would, each activation a call of it to
    /// its team, whose chain is folded under the call as a member team's.
    pub(crate) fn of_team_node(scenario: &Scenario, node: &str) -> Chain {
        let mut chain = Chain {
            teams: Arc::new(TeamLimits::of(scenario)),
            ..Chain::default()
        };
        chain.seat(node.to_string(), true, 0);
        chain
    }

    /// Give control to `entry` at `t_ms`, the coordinator when
    /// `coordinated`.
    pub(super) fn seat(&mut self, entry: String, coordinated: bool, t_ms: u64) {
        if coordinated {
            self.coordinator = Some(entry.clone());
        }
        self.links.push(Link {
            agent: entry,
            since_ms: t_ms,
            deadline_ms: None,
            turns: 0,
            until_ms: None,
            cut: false,
        });
    }

    /// How many of each list the chain keeps.
    fn kept(&self) -> usize {
        if self.depth == 0 { KEPT } else { TEAM_KEPT }
    }

    /// The agent holding control.
    pub(crate) fn holder(&self) -> Option<&Link> {
        self.links.last()
    }

    /// Transfers asked for in the whole run, and how many were refused.
    pub(crate) fn transfers(&self) -> (usize, usize) {
        let refused = self
            .handoffs
            .iter()
            .filter(|h| h.rejected.is_some())
            .count();
        (
            self.earlier.handoffs + self.handoffs.len(),
            self.earlier.refused + refused,
        )
    }

    /// Member calls in the whole run, and how many answered.
    pub(crate) fn member_calls(&self) -> (usize, usize) {
        let done = self
            .members
            .iter()
            .filter(|m| matches!(m.state, MemberState::Done { .. }))
            .count();
        (
            self.earlier.members + self.members.len(),
            self.earlier.members_done + done,
        )
    }

    /// Keep the latest [`KEPT`] of each list ([`TEAM_KEPT`] in a member
    /// team's chain) once one holds twice as many, counting what goes (so
    /// trimming costs nothing per item on average).
    pub(super) fn trim(&mut self) {
        let kept = self.kept();
        self.keep_latest(kept, 2 * kept);
    }

    /// Keep only the latest `kept` of each list that holds `over` or more,
    /// counting what goes.
    pub(super) fn keep_latest(&mut self, kept: usize, over: usize) {
        let earlier = &mut self.earlier;
        earlier.links += drop_to(&mut self.links, kept, over, |_| {});
        earlier.handoffs += drop_to(&mut self.handoffs, kept, over, |h| {
            earlier.refused += usize::from(h.rejected.is_some());
        });
        // A member call still running is recent: the oldest are over.
        earlier.members += drop_to(&mut self.members, kept, over, |m| {
            earlier.members_done += usize::from(matches!(m.state, MemberState::Done { .. }));
        });
        earlier.tool_calls += drop_to(&mut self.tool_calls, kept, over, |_| {});
    }

    /// How many distinct names the window holds.
    pub(crate) fn distinct(&self) -> usize {
        let mut names: Vec<&str> = self.window.iter().map(String::as_str).collect();
        names.sort_unstable();
        names.dedup();
        names.len()
    }

    /// The latest tool call `agent` made since `since_ms`.
    pub(crate) fn last_tool_call(&self, agent: &str, since_ms: u64) -> Option<&ToolCallView> {
        self.tool_calls
            .iter()
            .rev()
            .take_while(|c| c.at_ms >= since_ms)
            .find(|c| c.agent == agent)
    }

    /// The coordinator's turn whose member calls are shown side by side:
    /// the latest one.
    pub(crate) fn latest_batch(&self) -> impl Iterator<Item = &MemberView> {
        let turn = self.members.last().map(|m| m.turn);
        self.members.iter().filter(move |m| Some(m.turn) == turn)
    }

    pub(super) fn record(
        &mut self,
        from: &str,
        to: &str,
        t_ms: u64,
        rejected: Option<HandoffRejection>,
        counted: u64,
        window: &[String],
    ) {
        self.counted = counted;
        self.window = window.to_vec();
        self.handoffs.push(HandoffView {
            from: from.to_string(),
            to: to.to_string(),
            at_ms: t_ms,
            rejected,
            counted,
            window: window.to_vec(),
            message: self.asked_message.take(),
        });
    }

    pub(super) fn running_member(&mut self, member: &str) -> Option<&mut MemberView> {
        self.members
            .iter_mut()
            .rev()
            .find(|m| m.member == member && m.state == MemberState::Running)
    }
}

/// Drop the oldest of `items` down to `kept` once they are `over` or
/// more, each seen by `gone`; how many went.
fn drop_to<T>(items: &mut Vec<T>, kept: usize, over: usize, mut gone: impl FnMut(&T)) -> usize {
    if items.len() < over.max(kept + 1) {
        return 0;
    }
    let over = items.len() - kept;
    for item in items.drain(..over) {
        gone(&item);
    }
    over
}

/// The limits of the scenario's teams, by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TeamLimits(pub(super) BTreeMap<String, ChainLimits>);

impl TeamLimits {
    pub(super) fn of(scenario: &Scenario) -> TeamLimits {
        TeamLimits(
            scenario
                .teams
                .iter()
                .map(|(name, team)| {
                    let limits = team.limits.clone().unwrap_or_default();
                    (name.clone(), ChainLimits::of(limits))
                })
                .collect(),
        )
    }
}

/// A member team as its call announced it, with its own chain.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SubTeam {
    /// The team's name in the scenario's `teams`.
    pub(crate) name: String,
    /// `swarm` or `coordinator`, as the bus names it.
    pub(crate) pattern: String,
    /// A coordinator's team (its lead calls members), not a swarm's.
    pub(crate) coordinator: bool,
    /// The team's place in the tree (`launch/research_team`).
    pub(crate) path: String,
    /// Its agents' chain, named relative to the team.
    pub(crate) chain: Chain,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{EventKind, RunStatus, RunSummary};
    use crate::patterns::events::PatternEvent;
    use crate::patterns::events::TeamEvent;
    use crate::patterns::events::TurnOutcome;
    use crate::tui::patterns::folding::Fold;
    use crate::tui::state::outcome::Outcome;
    use serde_json::json;

    fn outcome() -> Outcome {
        Outcome {
            status: RunStatus::Stopped,
            stop_reason: StopReason::Cancelled,
            phase: None,
            result: std::sync::Arc::new(json!({}).into()),
            summary: RunSummary::default(),
            error: None,
            shown: Default::default(),
        }
    }

    fn scenario(pattern: &str) -> Scenario {
        serde_json::from_value(json!({
            "name": "t", "pattern": pattern, "goal": "g", "context": {},
            "entry": "triage", "agents": {"triage": {}, "billing": {}, "refunds": {}},
            "limits": {"max_handoffs": 5, "node_timeout_ms": 2000, "repetitive_handoff_window": 3,
                       "repetitive_handoff_min_unique": 2},
            "provider": {"kind": "sim"}
        }))
        .unwrap()
    }

    #[test]
    fn a_long_chain_keeps_its_latest_links_and_transfers_and_counts_the_rest() {
        let mut chain = Chain::seated(&scenario("swarm"), false);
        let agents = ["triage", "billing"];
        for n in 0..10_000u64 {
            let (from, to) = (agents[(n % 2) as usize], agents[((n + 1) % 2) as usize]);
            if n % 10 == 9 {
                chain.apply(
                    &EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffRejected {
                        from: from.into(),
                        to: "refunds".into(),
                        reason: HandoffRejection::SelfTransfer,
                        handoffs: n + 1,
                        window: vec![],
                    })),
                    n,
                );
            }
            chain.apply(
                &EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                    from: from.into(),
                    to: to.into(),
                    handoffs: n + 1,
                    window: vec![],
                    deadline_ms: None,
                })),
                n,
            );
            assert!(chain.links.len() < 2 * KEPT && chain.handoffs.len() < 2 * KEPT);
        }
        assert_eq!(
            chain.earlier.links + chain.links.len(),
            10_001,
            "the entry and 10,000 links"
        );
        assert_eq!(chain.transfers(), (11_000, 1_000));
        assert_eq!(chain.holder().map(|l| l.agent.as_str()), Some("triage"));
        assert!(chain.links.len() >= KEPT && chain.handoffs.len() >= KEPT);
    }

    #[test]
    fn accepted_and_refused_transfers_grow_the_chain_and_its_dead_ends() {
        let chain = &mut Chain::seated(&scenario("swarm"), false);
        assert_eq!(chain.holder().unwrap().agent, "triage");
        chain.apply(
            &EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted {
                turn: 1,
                agent: "triage".into(),
            })),
            0,
        );
        assert_eq!(chain.turn.as_ref().unwrap().agent, "triage");
        chain.apply(
            &EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnFinished {
                turn: 1,
                agent: "triage".into(),
                outcome: TurnOutcome::Transfer,
                latency_ms: 300,
            })),
            300,
        );
        chain.apply(
            &EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffRejected {
                from: "triage".into(),
                to: "ghost".into(),
                reason: HandoffRejection::UnknownAgent {
                    agent: "ghost".into(),
                },
                handoffs: 0,
                window: vec![],
            })),
            300,
        );
        chain.apply(
            &EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                from: "triage".into(),
                to: "billing".into(),
                handoffs: 1,
                window: vec!["billing".into()],
                deadline_ms: Some(2600),
            })),
            600,
        );
        let agents: Vec<&str> = chain.links.iter().map(|l| l.agent.as_str()).collect();
        assert_eq!(agents, ["triage", "billing"]);
        assert_eq!(chain.links[0].turns, 1);
        assert_eq!(chain.links[0].until_ms, Some(600));
        assert_eq!(chain.holder().unwrap().deadline_ms, Some(2600));
        assert_eq!(chain.handoffs.len(), 2);
        assert!(chain.handoffs[0].rejected.is_some());
        assert_eq!((chain.counted, chain.distinct()), (1, 1));
        assert_eq!(chain.limits.max_handoffs, 5);
    }

    #[test]
    fn member_calls_run_side_by_side_and_end_on_their_own() {
        let chain = &mut Chain::seated(&scenario("coordinator"), true);
        assert_eq!(chain.coordinator.as_deref(), Some("triage"));
        for member in ["billing", "refunds"] {
            chain.apply(
                &EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallStarted {
                    turn: 1,
                    member: member.into(),
                    task: "look".into(),
                    deadline_ms: None,
                    team: None,
                })),
                100,
            );
        }
        chain.apply(
            &EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted {
                turn: 2,
                agent: "billing".into(),
            })),
            100,
        );
        assert!(chain.turn.is_none(), "a member's turn is the member's");
        assert_eq!(chain.members[0].turns, 1);
        chain.apply(
            &EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                turn: 1,
                member: "billing".into(),
                outcome: CallOutcome::Ok,
                latency_ms: 400,
                reply: Some("paid".into()),
                reason: None,
            })),
            500,
        );
        assert_eq!(chain.latest_batch().count(), 2);
        assert!(matches!(chain.members[0].state, MemberState::Done { .. }));
        chain.close(&outcome());
        assert!(matches!(
            chain.members[1].state,
            MemberState::Failed { reason: None, .. }
        ));
    }
}
