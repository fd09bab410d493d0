//! The coordinator team (002's other form): the coordinator holds control
//! throughout; a turn of its may call members as tools, several at once,
//! and their answers come back to it; its reply ends the run. The run's
//! budgets count every model call, the members' included; a member's
//! deadline (`member_timeout_ms`) is applied by the gateway.

pub(crate) mod history;
mod members;
pub(crate) mod result;

use super::team::action::{Action, MemberCall};
use super::team::agent::{Halt, Halted, TeamRun};
use super::team::figures::MEMBER_CALLS;
use super::team::part::Part;
use super::team::result::{TeamEnd, TeamRan};
use super::team::stops::TeamStop;
use super::team::trace::TraceEntry;
use super::team::turn_order::Lane;
use super::team::turn_payload::TurnContext;
use super::{RunContext, RunOutcome, Runner};
use crate::bus::RunCounts;
use crate::control::SharedGate;
use crate::patterns::team::scenario::{DEFAULT_TEAM_MAX_SECONDS, MemberHistory};
use crate::provider::prompts::{Prompt, compiled_in};
use crate::scenario::PatternKind;
use crate::stop::StopReason;
use history::{Entry, Names};
use result::{CoordinatorSteps, MemberRecord};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// How many history entries the coordinator is shown.
const RECENT: usize = 12;

/// The system prompts of the coordinator's turns and of its members'.
const TURN_PROMPT: Prompt = compiled_in!("coordinator_turn.md", json);
const MEMBER_PROMPT: Prompt = compiled_in!("coordinator_member.md", json);

/// The member `member` of `team`'s coordinator as a team of its own, when
/// it is one, called within `deadline`, after `earlier` calls of it in the
/// same turn.
fn member_team<'a>(
    team: &TeamRun<'a>,
    (member, earlier): (&str, usize),
    deadline: Option<Duration>,
) -> Option<Part<'a>> {
    let name = team.part.agents.get(member)?.team.as_deref()?;
    let (name, spec) = team.scenario.teams.get_key_value(name)?;
    Some(
        team.part
            .member_team(name, spec, (member, earlier), deadline),
    )
}

/// Run member team `part`, asked `task` in the member call `lane`, to its
/// own stop. Boxed: a coordinator team's members may be teams in turn.
fn run_team<'t, 'a: 't>(
    caller: &'t TeamRun<'a>,
    part: Part<'a>,
    (task, lane): (&str, Lane),
) -> Pin<Box<dyn Future<Output = TeamRan> + Send + 't>> {
    let team = caller.member_team(part, task, lane);
    match team.part.pattern {
        PatternKind::Swarm => Box::pin(crate::patterns::swarm::run_member(team)),
        _ => Box::pin(run_member(team)),
    }
}

/// The coordinator, with the team's time budget.
pub(crate) const RUNNER: Runner = Runner {
    run: |ctx| Box::pin(run(ctx)),
    default_max_seconds: DEFAULT_TEAM_MAX_SECONDS,
    compare: &super::team::compare::COORDINATOR,
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
    let mut desk = Desk::new(team);
    let ended = desk.play().await;
    let gateway = desk.team.gateway;
    desk.end(ended).outcome(gateway)
}

/// A member team that is a coordinator, run to its own stop for its
/// caller (a coordinator's member call, or a graph's team node).
pub(crate) async fn run_member(team: TeamRun<'_>) -> TeamRan {
    let mut desk = Desk::new(team);
    let ended = desk.play().await;
    let part = desk.team.part.clone();
    desk.end(ended).ran(&part)
}

struct Desk<'a> {
    team: TeamRun<'a>,
    coordinator: String,
    member_timeout: Duration,
    /// Members of one turn run at once (`limits.parallel`, default).
    parallel: bool,
    /// The members' answers end the run (`limits.skip_summary`).
    skip_summary: bool,
    /// The team's agents' names, each held once for the history.
    names: Names,
    /// Shared with the answers of the turn that made them, in `history`.
    member_calls: Vec<Arc<MemberRecord>>,
    trace: Vec<TraceEntry>,
    history: Vec<Entry>,
}

impl<'a> Desk<'a> {
    fn new(team: TeamRun<'a>) -> Self {
        let limits = &team.part.limits;
        Desk {
            coordinator: team.part.entry.clone(),
            member_timeout: crate::duration::clamp_millis(limits.member_timeout_ms()),
            parallel: limits.parallel(),
            skip_summary: limits.skip_summary(),
            names: Names::of(team.part.agents.keys()),
            member_calls: Vec::new(),
            trace: Vec::new(),
            history: Vec::new(),
            team,
        }
    }

    /// The coordinator's turns until its reply (`Ok`) or a stop.
    async fn play(&mut self) -> Result<String, StopReason> {
        let coordinator = self.coordinator.clone();
        loop {
            let turn = match self
                .team
                .turn(
                    self.team.lane,
                    &coordinator,
                    &TURN_PROMPT,
                    None,
                    self.context(),
                )
                .await
            {
                Ok(turn) => turn,
                Err(halted) => return Err(self.halted(&coordinator, halted)),
            };
            let mut entry = TraceEntry::turn(
                turn.number,
                self.names.get(&coordinator),
                turn.action.outcome(),
                turn.latency_ms,
            );
            self.history.push(Entry::turn(
                turn.number,
                self.names.get(&coordinator),
                &turn.output,
            ));
            drop(turn.output);
            match turn.action {
                Action::Reply(answer) => {
                    self.trace.push(entry);
                    return Ok(answer);
                }
                Action::Empty => {
                    self.trace.push(entry);
                    return Err(StopReason::LlmEmpty);
                }
                // The coordinator answers the user itself; it never hands
                // control on.
                Action::Transfer { .. } | Action::Invalid => {
                    self.trace.push(entry);
                    return Err(TeamStop::InvalidTurn.into());
                }
                Action::Call { tool, args } => {
                    let record = self
                        .team
                        .use_tool(&coordinator, turn.number, &tool, &args, None, &mut entry)
                        .await;
                    self.trace.push(entry);
                    let record = record.map_err(|h| self.halt_reason(h))?;
                    self.history.push(Entry::Tool(Box::new(record)));
                }
                Action::CallMembers(calls) => {
                    entry.members = calls.iter().map(|c| c.member.clone()).collect();
                    self.trace.push(entry);
                    let ended = self.call_members(&coordinator, turn.number, &calls).await;
                    if let Some(ended) = ended {
                        return ended;
                    }
                }
            }
        }
    }

    /// The coordinator's turn came back without an output: its call, if it
    /// started, enters the trace with the reason the run stops for.
    fn halted(&mut self, coordinator: &str, halted: Halted) -> StopReason {
        let reason = self.halt_reason(halted.halt);
        if let Some((number, outcome, latency_ms)) = halted.call {
            let mut entry =
                TraceEntry::turn(number, self.names.get(coordinator), outcome, latency_ms);
            entry.reason = Some(reason.to_string());
            self.trace.push(entry);
        }
        reason
    }

    /// Call the members of turn `turn`, at once or in turn, and give their
    /// answers back to the coordinator; `Some` when they end the run. Each
    /// call's end is taken into the record as soon as the calls before it
    /// have ended: what a call leaves is held once.
    async fn call_members(
        &mut self,
        coordinator: &str,
        turn: u32,
        calls: &[MemberCall],
    ) -> Option<Result<String, StopReason>> {
        let earlier = members::earlier_calls(calls);
        let shared = self.shared_history();
        let asked = members::Asked {
            coordinator,
            turn,
            calls,
            earlier: &earlier,
            member_timeout: self.member_timeout,
            shared: shared.as_ref(),
            names: &self.names,
        };
        let mut run_stop = None;
        let mut answers = Vec::new();
        let mut take = |end: members::MemberEnd| {
            self.trace.extend(end.trace);
            self.history.extend(end.history);
            let record = Arc::new(end.record);
            answers.push(Arc::clone(&record));
            self.member_calls.push(record);
            run_stop = run_stop.take().or(end.run_stop);
        };
        if self.parallel {
            members::call_all(&self.team, asked, &mut take).await;
        } else {
            members::call_in_turn(&self.team, asked, &mut take).await;
        }
        self.history.push(Entry::Members {
            turn,
            agent: self.names.get(coordinator),
            answers,
        });
        if let Some(reason) = run_stop {
            return Some(Err(reason));
        }
        self.answered_by_members(turn).map(Ok)
    }

    /// What a member with shared history sees: the coordinator's
    /// conversation as the coordinator does, as it stood when the turn
    /// called its members. Built once a turn, and only when a member of
    /// the team shares it.
    fn shared_history(&self) -> Option<Value> {
        let shares = self
            .team
            .part
            .agents
            .values()
            .any(|agent| agent.history == Some(MemberHistory::Shared));
        let start = self.history.len().saturating_sub(RECENT);
        shares.then(|| history::to_values(&self.history[start..]))
    }

    /// With `skip_summary`, the answers of turn `turn`'s members that
    /// answered, in the order called, end the run without the
    /// coordinator's summary; none answered, the coordinator goes on.
    fn answered_by_members(&self, turn: u32) -> Option<String> {
        if !self.skip_summary {
            return None;
        }
        let replies: Vec<&str> = self
            .member_calls
            .iter()
            .filter(|m| m.turn == turn)
            .filter_map(|m| m.reply.as_deref())
            .collect();
        (!replies.is_empty()).then(|| replies.join("\n\n"))
    }

    /// What the coordinator is told besides the basics: its members and
    /// the recent history, the members' answers included, written as text
    /// from the typed history: a turn after 100,000 member calls builds no
    /// tree of their answers.
    fn context(&self) -> TurnContext {
        let members = self
            .team
            .part
            .agents
            .iter()
            .filter(|(name, _)| **name != self.coordinator)
            .map(|(name, spec)| (name.as_str(), spec.description.as_deref().unwrap_or("")))
            .collect();
        let start = self.history.len().saturating_sub(RECENT);
        history::written(&history::Told {
            members: history::Members(members),
            recent: &self.history[start..],
        })
    }

    /// Why the coordinator's run stops when a call of its is halted. The
    /// coordinator has no deadline of its own: a cut is its caller's.
    fn halt_reason(&self, halt: Halt) -> StopReason {
        match halt {
            Halt::Stop(reason) => reason,
            Halt::Cut => self.team.cut_by_caller().unwrap_or(StopReason::LlmTimeout),
        }
    }

    fn end(self, ended: Result<String, StopReason>) -> TeamEnd<CoordinatorSteps, Entry> {
        TeamEnd {
            ended,
            llm_calls: self.team.llm_calls(),
            degraded: self.team.degraded(),
            counts: RunCounts::of([(MEMBER_CALLS, self.member_calls.len() as u64)]),
            final_agent: self.coordinator,
            steps: CoordinatorSteps {
                member_calls: self.member_calls,
            },
            trace: self.trace,
            history: self.history,
        }
    }
}
