//! The swarm (002): the agent holding control takes turns until one
//! replies; a transfer hands control on when the transfer controller
//! accepts it, else the same agent goes on. It never times a call: the
//! gateway cuts a transfer target's call off at its node deadline.

pub(crate) mod controller;
pub(crate) mod result;
mod told;

use super::team::action::Action;
use super::team::agent::{Halt, TeamRun, millis};
use super::team::figures::HANDOFFS;
use super::team::result::{TeamEnd, TeamRan};
use super::team::stops::TeamStop;
use super::team::trace::TraceEntry;
use super::{RunContext, RunOutcome, Runner};
use crate::bus::{EventKind, RunCounts};
use crate::control::SharedGate;
use crate::patterns::coordinator::history::{Entry, Names};
use crate::patterns::events::PatternEvent;
use crate::patterns::team::events::HandoffRejection;
use crate::patterns::team::events::TeamEvent;
use crate::patterns::team::scenario::DEFAULT_TEAM_MAX_SECONDS;
use crate::patterns::team::turn_context::TurnContext;
use crate::provider::prompts::{Prompt, compiled_in};
use crate::stop::StopReason;
use controller::{HandoffLimits, TransferController};
use result::{HandoffRecord, SwarmSteps};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How many history entries an agent is shown.
const RECENT: usize = 8;

/// How many of the chain's latest agents an agent is shown. A longer
/// chain is shown as its tail and the count of the agents before it, so
/// that a turn's prompt stays the same size however long the run goes on
/// (a model's context is bounded too).
const CHAIN_SHOWN: usize = 32;

/// The system prompt of every agent's turns.
const TURN_PROMPT: Prompt = compiled_in!("swarm_turn.md", json);

/// The swarm, with the team's time budget.
pub(crate) const RUNNER: Runner = Runner {
    run: |ctx| Box::pin(run(ctx)),
    default_max_seconds: DEFAULT_TEAM_MAX_SECONDS,
    compare: &super::team::compare::SWARM,
    explain_stop: super::team::stops::explain,
    asking: None,
};

pub(crate) async fn run(ctx: RunContext) -> RunOutcome {
    let RunContext {
        scenario,
        goal,
        bus,
        mut gate,
        gateway,
        ..
    } = ctx;
    let gate = SharedGate::new(&mut gate);
    let team = TeamRun::new(&scenario, &goal, &bus, &gateway, &gate);
    let mut swarm = Swarm::new(team);
    let ended = swarm.play().await;
    let gateway = swarm.team.gateway;
    swarm.end(ended).outcome(gateway)
}

/// A member team that is a swarm, run to its own stop for its caller.
pub(crate) async fn run_member(team: TeamRun<'_>) -> TeamRan {
    let mut swarm = Swarm::new(team);
    let ended = swarm.play().await;
    let part = swarm.team.part.clone();
    swarm.end(ended).ran(&part)
}

struct Swarm<'a> {
    team: TeamRun<'a>,
    controller: TransferController,
    node_timeout: Duration,
    /// The agent holding control.
    holder: Arc<str>,
    /// Run time by which the holder must be done, when it came by a
    /// transfer and `node_timeout_ms` is set.
    deadline: Option<Duration>,
    chain: Vec<Arc<str>>,
    handoffs: Vec<HandoffRecord>,
    trace: Vec<TraceEntry>,
    history: Vec<Entry>,
    /// The team's agents' names, each held once.
    names: Names,
    /// Whom each agent may hand control to, as it is told, written at its
    /// first turn.
    peers: BTreeMap<Arc<str>, Box<RawValue>>,
}

impl<'a> Swarm<'a> {
    fn new(team: TeamRun<'a>) -> Self {
        let limits = &team.part.limits;
        let names = Names::of(team.part.agents.keys());
        let entry = names.get(&team.part.entry);
        Swarm {
            controller: TransferController::new(HandoffLimits::of(limits)),
            node_timeout: crate::duration::clamp_millis(limits.node_timeout_ms()),
            holder: Arc::clone(&entry),
            deadline: None,
            chain: vec![entry],
            handoffs: Vec::new(),
            trace: Vec::new(),
            history: Vec::new(),
            names,
            peers: BTreeMap::new(),
            team,
        }
    }

    /// Turns until a reply (`Ok` with the answer) or a stop.
    async fn play(&mut self) -> Result<String, StopReason> {
        loop {
            let holder = Arc::clone(&self.holder);
            let context = self.context();
            let turn = match self
                .team
                .turn(
                    self.team.lane,
                    &holder,
                    &TURN_PROMPT,
                    self.deadline,
                    context,
                )
                .await
            {
                Ok(turn) => turn,
                Err(halted) => {
                    let reason = self.stop_of(halted.halt);
                    if let Some((number, outcome, latency_ms)) = halted.call {
                        let mut entry =
                            TraceEntry::turn(number, Arc::clone(&holder), outcome, latency_ms);
                        entry.reason = Some(reason.to_string());
                        self.trace.push(entry);
                    }
                    return Err(reason);
                }
            };
            let mut entry = TraceEntry::turn(
                turn.number,
                Arc::clone(&holder),
                turn.action.outcome(),
                turn.latency_ms,
            );
            self.history
                .push(Entry::turn(turn.number, Arc::clone(&holder), &turn.output));
            match turn.action {
                Action::Reply(answer) => {
                    self.trace.push(entry);
                    return Ok(answer);
                }
                Action::Empty => {
                    self.trace.push(entry);
                    return Err(StopReason::LlmEmpty);
                }
                Action::CallMembers(_) | Action::Invalid => {
                    self.trace.push(entry);
                    return Err(TeamStop::InvalidTurn.into());
                }
                Action::Transfer { to } => {
                    let message = turn
                        .output
                        .get(super::team::action::MESSAGE)
                        .filter(|m| !m.is_null())
                        .map(crate::patterns::team::events::turn_json);
                    let refused = self.transfer(turn.number, &to, message);
                    entry.target = Some(to);
                    entry.ok = Some(refused.is_none());
                    entry.reason = refused.map(|r| r.to_string());
                    self.trace.push(entry);
                }
                Action::Call { tool, args } => {
                    let record = self
                        .team
                        .use_tool(
                            &holder,
                            turn.number,
                            &tool,
                            &args,
                            self.deadline,
                            &mut entry,
                        )
                        .await;
                    match record {
                        Ok(record) => {
                            self.trace.push(entry);
                            self.history.push(Entry::Tool(Box::new(record)));
                        }
                        Err(halt) => {
                            let reason = self.stop_of(halt);
                            entry.reason = Some(reason.to_string());
                            self.trace.push(entry);
                            return Err(reason);
                        }
                    }
                }
            }
        }
    }

    /// Ask the controller; hand control on or publish the refusal. The
    /// refusal, if any.
    fn transfer(
        &mut self,
        turn: u32,
        to: &str,
        message: Option<String>,
    ) -> Option<HandoffRejection> {
        let from = Arc::clone(&self.holder);
        let bus = self.team.bus;
        let part = &self.team.part;
        let (from_path, to_path) = (part.path_of(&from), part.path_of(to));
        bus.publish(EventKind::Pattern(PatternEvent::Team(
            TeamEvent::TransferRequested {
                turn,
                from: from_path.to_string(),
                to: to_path.to_string(),
                message,
            },
        )));
        let gate = self.team.gate;
        let decided = self.controller.decide(
            &from,
            to,
            |n| part.agents.contains_key(n),
            |n| gate.allows(&part.flag_name(n)),
        );
        let window = self.controller.window();
        let window: Vec<String> = window
            .iter()
            .map(|n| part.path_of(n).into_owned())
            .collect();
        let handoffs = self.controller.count();
        let refused = match decided {
            Ok(()) => {
                self.holder = self.names.get(to);
                self.chain.push(Arc::clone(&self.holder));
                self.deadline =
                    (!self.node_timeout.is_zero()).then(|| self.team.now() + self.node_timeout);
                bus.publish(EventKind::Pattern(PatternEvent::Team(
                    TeamEvent::HandoffAccepted {
                        from: from_path.to_string(),
                        to: to_path.to_string(),
                        handoffs,
                        window,
                        deadline_ms: self.deadline.map(millis),
                    },
                )));
                None
            }
            Err(reason) => {
                bus.publish(EventKind::Pattern(PatternEvent::Team(
                    TeamEvent::HandoffRejected {
                        from: from_path.to_string(),
                        to: to_path.to_string(),
                        reason: reason.clone(),
                        handoffs,
                        window,
                    },
                )));
                Some(reason)
            }
        };
        self.handoffs.push(HandoffRecord {
            from,
            to: self.names.get(to),
            accepted: refused.is_none(),
            reason: refused.clone(),
        });
        refused
    }

    /// Why the swarm stops on `halt`: a cut is the holder's node
    /// deadline, unless the caller's deadline for a member team passed.
    fn stop_of(&self, halt: Halt) -> StopReason {
        match halt {
            Halt::Cut => self.team.cut_by_caller().unwrap_or_else(|| {
                TeamStop::NodeTimeout {
                    agent: self.team.part.path_of(&self.holder).into_owned(),
                }
                .into()
            }),
            Halt::Stop(reason) => reason,
        }
    }

    /// What the holder is told besides the basics: whom it may hand
    /// control to and the recent history, written as text.
    fn context(&mut self) -> TurnContext {
        let (part, holder) = (&self.team.part, &self.holder);
        let peers = self.peers.entry(Arc::clone(holder)).or_insert_with(|| {
            let peers: Vec<Value> = part
                .agents
                .iter()
                .filter(|(name, _)| name.as_str() != holder.as_ref())
                .map(|(name, spec)| {
                    json!({"name": name, "description": spec.description.clone().unwrap_or_default()})
                })
                .collect();
            told::peers_text(&peers)
        });
        let start = self.history.len().saturating_sub(RECENT);
        let earlier = self.chain.len().saturating_sub(CHAIN_SHOWN);
        told::Told {
            can_transfer_to: peers,
            chain: &self.chain[earlier..],
            recent: &self.history[start..],
            chain_earlier: (earlier > 0).then_some(earlier),
        }
        .written()
    }

    fn end(self, ended: Result<String, StopReason>) -> TeamEnd<SwarmSteps, Entry> {
        TeamEnd {
            ended,
            llm_calls: self.team.llm_calls(),
            degraded: self.team.degraded(),
            counts: RunCounts::of([(HANDOFFS, self.handoffs.len() as u64)]),
            final_agent: self.holder.to_string(),
            steps: SwarmSteps {
                chain: self.chain,
                handoffs: self.handoffs,
            },
            trace: self.trace,
            history: self.history,
        }
    }
}
