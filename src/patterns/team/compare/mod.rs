//! Two swarm or coordinator runs aligned: the chain of agents that held
//! control, each turn (who took it and how it ended), each transfer asked
//! for (accepted or refused, and why) and each member call of a
//! coordinator, by position.

mod tables;

use crate::bus::figures::Figures;
use crate::bus::{CallOutcome, Event, EventKind, RunSummary};
use crate::compare::sections::Cell;
use crate::compare::{Aligned, Alignment, CompareRules, Difference};
use crate::patterns::events::PatternEvent;
use crate::patterns::team::events::TeamEvent;
use crate::patterns::team::events::TurnOutcome;
use crate::stop::StopReason;
use serde::Serialize;
use std::sync::Arc;

/// A turn in each run, by turn number.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TurnRow {
    pub(crate) turn: u32,
    pub(crate) a: Option<TurnFacts>,
    pub(crate) b: Option<TurnFacts>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TurnFacts {
    pub(crate) agent: String,
    /// `null` while the turn had not ended.
    pub(crate) outcome: Option<TurnOutcome>,
}

/// The n-th transfer asked for in each run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct HandoffRow {
    pub(crate) n: usize,
    pub(crate) a: Option<Handoff>,
    pub(crate) b: Option<Handoff>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Handoff {
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) accepted: bool,
    /// Why it was refused.
    pub(crate) reason: Option<String>,
}

/// A coordinator's call of a member, by the turn that asked for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct MemberRow {
    pub(crate) turn: u32,
    pub(crate) member: String,
    pub(crate) a: Option<MemberCall>,
    pub(crate) b: Option<MemberCall>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct MemberCall {
    /// `null` while the call had not ended.
    pub(crate) outcome: Option<CallOutcome>,
    pub(crate) reason: Option<StopReason>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct ChainAligned {
    /// The agents that held control, in order, in each run.
    pub(crate) chain_a: Vec<String>,
    pub(crate) chain_b: Vec<String>,
    pub(crate) turns: Vec<TurnRow>,
    pub(crate) handoffs: Vec<HandoffRow>,
    pub(crate) members: Vec<MemberRow>,
}

#[derive(Default)]
struct Chain {
    chain: Vec<String>,
    turns: Vec<(u32, TurnFacts)>,
    handoffs: Vec<Handoff>,
    members: Vec<((u32, String), MemberCall)>,
}

impl Chain {
    fn of(events: &[Arc<Event>]) -> Chain {
        let mut chain = Chain::default();
        for event in events {
            match &event.kind {
                EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted { turn, agent })) => {
                    if chain.chain.is_empty() {
                        chain.chain.push(agent.clone());
                    }
                    chain.turns.push((
                        *turn,
                        TurnFacts {
                            agent: agent.clone(),
                            outcome: None,
                        },
                    ));
                }
                EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnFinished {
                    turn,
                    outcome,
                    ..
                })) => {
                    if let Some((_, facts)) = chain.turns.iter_mut().find(|(t, _)| t == turn) {
                        facts.outcome = Some(*outcome);
                    }
                }
                EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                    from,
                    to,
                    ..
                })) => {
                    chain.chain.push(to.clone());
                    chain.handoffs.push(Handoff {
                        from: from.clone(),
                        to: to.clone(),
                        accepted: true,
                        reason: None,
                    });
                }
                EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffRejected {
                    from,
                    to,
                    reason,
                    ..
                })) => chain.handoffs.push(Handoff {
                    from: from.clone(),
                    to: to.clone(),
                    accepted: false,
                    reason: Some(reason.to_string()),
                }),
                EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallStarted {
                    turn,
                    member,
                    ..
                })) => chain.members.push((
                    (*turn, member.clone()),
                    MemberCall {
                        outcome: None,
                        reason: None,
                    },
                )),
                EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                    turn,
                    member,
                    outcome,
                    reason,
                    ..
                })) => {
                    let key = (*turn, member.clone());
                    if let Some((_, call)) = chain.members.iter_mut().find(|(k, _)| *k == key) {
                        call.outcome = Some(*outcome);
                        call.reason = reason.clone();
                    }
                }
                _ => {}
            }
        }
        chain
    }
}

fn align(a: &[Arc<Event>], b: &[Arc<Event>]) -> ChainAligned {
    let (ca, cb) = (Chain::of(a), Chain::of(b));
    let mut turn_numbers: Vec<u32> = ca.turns.iter().chain(&cb.turns).map(|t| t.0).collect();
    turn_numbers.sort_unstable();
    turn_numbers.dedup();
    let turn = |chain: &Chain, n: u32| chain.turns.iter().find(|t| t.0 == n).map(|t| t.1.clone());
    let turns = turn_numbers
        .into_iter()
        .map(|n| TurnRow {
            turn: n,
            a: turn(&ca, n),
            b: turn(&cb, n),
        })
        .collect();
    let handoffs = (0..ca.handoffs.len().max(cb.handoffs.len()))
        .map(|i| HandoffRow {
            n: i + 1,
            a: ca.handoffs.get(i).cloned(),
            b: cb.handoffs.get(i).cloned(),
        })
        .collect();
    let mut keys: Vec<(u32, String)> = ca.members.iter().map(|m| m.0.clone()).collect();
    for (key, _) in &cb.members {
        if !keys.contains(key) {
            keys.push(key.clone());
        }
    }
    keys.sort_by_key(|k| k.0);
    let member = |chain: &Chain, key: &(u32, String)| {
        chain
            .members
            .iter()
            .find(|m| &m.0 == key)
            .map(|m| m.1.clone())
    };
    let members = keys
        .iter()
        .map(|key| MemberRow {
            turn: key.0,
            member: key.1.clone(),
            a: member(&ca, key),
            b: member(&cb, key),
        })
        .collect();
    ChainAligned {
        chain_a: ca.chain,
        chain_b: cb.chain,
        turns,
        handoffs,
        members,
    }
}

impl Aligned for ChainAligned {
    fn differences(&self) -> Vec<Difference> {
        let mut out = Vec::new();
        if self.chain_a != self.chain_b {
            out.push(Difference::new("chain", &self.chain_a, &self.chain_b));
        }
        for row in &self.turns {
            if row.a != row.b {
                out.push(Difference::new(
                    format!("turns.{}", row.turn),
                    &row.a,
                    &row.b,
                ));
            }
        }
        for row in &self.handoffs {
            if row.a != row.b {
                out.push(Difference::new(
                    format!("handoffs.{}", row.n),
                    &row.a,
                    &row.b,
                ));
            }
        }
        for row in &self.members {
            if row.a != row.b {
                out.push(Difference::new(
                    format!("members.{}.{}", row.turn, row.member),
                    &row.a,
                    &row.b,
                ));
            }
        }
        out
    }

    fn sections(&self) -> Vec<crate::compare::sections::Section> {
        tables::chain_tables(self)
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "chain": self })
    }
}

/// The rules by which two runs of a team pattern are compared: the
/// swarm's and the coordinator's chains align alike, and each pattern
/// reports its own figures.
pub(crate) struct Rules {
    figures: &'static Figures,
}

/// A swarm's rules.
pub(crate) const SWARM: Rules = Rules {
    figures: &super::figures::SWARM,
};

/// A coordinator's rules.
pub(crate) const COORDINATOR: Rules = Rules {
    figures: &super::figures::COORDINATOR,
};

impl CompareRules for Rules {
    fn align(&self, a: &[Arc<Event>], b: &[Arc<Event>]) -> Alignment {
        Alignment::new(align(a, b))
    }

    fn figures(&self) -> &'static Figures {
        self.figures
    }

    /// The agent that answered: `answered by writer`.
    fn came_to(&self, summary: &RunSummary) -> Option<Cell> {
        let agent = summary.text(super::figures::FINAL_AGENT)?;
        Some(Cell::plain(format!("answered by {agent}")))
    }
}
