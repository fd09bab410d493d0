//! The coordinator's member calls: the members named in one turn run at
//! once, a bounded number in flight (or one after another, with
//! `limits.parallel: false`), each taking its turns through the gateway
//! until it replies, in the order named whenever they can move together. A
//! member's failure is its answer; only cancelling and budgets stop the run.

use super::history::{self, Entry, Names};
use super::result::MemberRecord;
use crate::bus::{CallOutcome, EventKind};
use crate::cassette::Measure;
use crate::patterns::events::PatternEvent;
use crate::patterns::in_flight::InFlight;
use crate::patterns::orchestrator::events::TaskStatus;
use crate::patterns::team::action::{Action, MemberCall};
use crate::patterns::team::agent::{Halt, Halted, TeamRun, millis};
use crate::patterns::team::events::TeamEvent;
use crate::patterns::team::scenario::MemberHistory;
use crate::patterns::team::stops::TeamStop;
use crate::patterns::team::trace::TraceEntry;
use crate::patterns::team::turn_order::Lane;
use crate::stop::StopReason;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// How one member call ended, and what it adds to the run's record.
#[derive(Debug)]
pub(super) struct MemberEnd {
    pub(crate) record: MemberRecord,
    pub(crate) trace: Vec<TraceEntry>,
    pub(crate) history: Vec<Entry>,
    /// A stop of the whole run met during the call: cancelling, one of
    /// the run's budgets, or safe mode without partial results.
    pub(crate) run_stop: Option<StopReason>,
    /// A waiting call of the same turn starts in this one's place.
    pub(crate) started_next: bool,
}

/// What one coordinator turn asks of its members.
#[derive(Clone, Copy)]
pub(super) struct Asked<'a> {
    pub(super) coordinator: &'a str,
    pub(super) turn: u32,
    pub(super) calls: &'a [MemberCall],
    /// For each call, how many calls of the same member come before it.
    pub(super) earlier: &'a [usize],
    pub(super) member_timeout: Duration,
    /// The coordinator's conversation so far, for members that share it
    /// (built when a member of the team does).
    pub(super) shared: Option<&'a Value>,
    /// The team's agents' names, shared by their history entries.
    pub(super) names: &'a Names,
}

/// For each of `calls`, how many calls of the same member come before it
/// in the turn: a team called again runs again under a path of its own.
pub(super) fn earlier_calls(calls: &[MemberCall]) -> Vec<usize> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    calls
        .iter()
        .map(|call| {
            let count = seen.entry(call.member.as_str()).or_insert(0);
            *count += 1;
            *count - 1
        })
        .collect()
}

/// Member calls of one turn in flight at once, at most: a turn may ask for
/// any number of calls, and each call in flight holds its conversation;
/// the others wait for a place, in the order named.
pub(super) const MEMBERS_IN_FLIGHT: usize = 256;

/// Run the members `asked.calls` names at once, [`MEMBERS_IN_FLIGHT`] at a
/// time, giving their ends to `take` in call order as soon as the calls
/// before have ended (an end that comes early waits for them; a turn's
/// calls are not held until the last ends). Once one meets a stop of the
/// whole run no call starts after it, as [`call_in_turn`] does. Their
/// turns take their numbers in the order the run decides, not as they
/// come back.
pub(super) async fn call_all(
    team: &TeamRun<'_>,
    asked: Asked<'_>,
    take: &mut (dyn FnMut(MemberEnd) + Send),
) {
    let calls = asked.calls;
    let first = team
        .turns()
        .call(team.lane, calls.len(), MEMBERS_IN_FLIGHT)
        .start;
    // tokio's cooperative budget would make some ready members wait for a
    // later poll at the same instant, out of order.
    tokio::task::unconstrained(async {
        let start = |index: usize| -> Pin<Box<dyn Future<Output = MemberEnd> + Send + '_>> {
            // A member starts once no other is held at a gate: stepped,
            // the members start in the order and at the run times they
            // would have, not while the one before waits to be stepped.
            Box::pin(async move {
                team.gate.unheld().await;
                call_one(team, asked, (index, first + index as Lane)).await
            })
        };
        let mut running = InFlight::new(calls.len());
        // Ends that came before an earlier call's; the calls started are
        // always the first ones named, so every one of them is taken.
        let mut early: BTreeMap<usize, MemberEnd> = BTreeMap::new();
        let mut taken = 0;
        let mut next = calls.len().min(MEMBERS_IN_FLIGHT);
        for index in 0..next {
            running.push(index, start(index));
        }
        while !running.is_empty() {
            for (index, end) in running.next_batch().await {
                // The turn order says which waiting call starts, and when.
                if end.started_next && next < calls.len() {
                    running.push(next, start(next));
                    next += 1;
                }
                early.insert(index, end);
            }
            while let Some(end) = early.remove(&taken) {
                take(end);
                taken += 1;
            }
        }
    })
    .await
}

/// Run the members `calls` names one after another, in the order named
/// (`limits.parallel: false`), giving each end to `take`; a stop of the
/// whole run met by one calls none after it.
pub(super) async fn call_in_turn(
    team: &TeamRun<'_>,
    asked: Asked<'_>,
    take: &mut (dyn FnMut(MemberEnd) + Send),
) {
    let lanes = team.turns().call(team.lane, asked.calls.len(), 1);
    for (index, lane) in lanes.enumerate() {
        let end = call_one(team, asked, (index, lane)).await;
        let next = end.started_next;
        take(end);
        if !next {
            break;
        }
    }
}

/// A member call's chain of turns, which leaves the run's turn order when
/// the call is dropped before it ended.
struct InLane<'t, 'a> {
    team: &'t TeamRun<'a>,
    lane: Lane,
    ended: bool,
}

impl InLane<'_, '_> {
    /// The call ended; whether a waiting call starts in its place.
    async fn end(mut self, stops_run: bool) -> bool {
        self.ended = true;
        self.team.turns().end(self.lane, stops_run).await.is_some()
    }
}

impl Drop for InLane<'_, '_> {
    fn drop(&mut self) {
        if !self.ended {
            self.team.turns().leave(self.lane);
        }
    }
}

/// One member call: the member's turns until it replies, within
/// `member_timeout` (0: no limit). A member whose history is shared also
/// sees `shared`, the coordinator's conversation so far.
async fn call_one(team: &TeamRun<'_>, asked: Asked<'_>, (index, lane): (usize, Lane)) -> MemberEnd {
    let in_lane = InLane {
        team,
        lane,
        ended: false,
    };
    let Asked {
        coordinator,
        turn,
        member_timeout,
        shared,
        ..
    } = asked;
    let call = &asked.calls[index];
    let member = call.member.as_str();
    let path = team.part.path_of(member).into_owned();
    let started = team.now();
    let deadline = team
        .part
        .deadline((!member_timeout.is_zero()).then(|| started + member_timeout));
    let member_team = super::member_team(team, (member, asked.earlier[index]), deadline);
    team.bus.publish(EventKind::Pattern(PatternEvent::Team(
        TeamEvent::MemberCallStarted {
            turn,
            member: path.clone(),
            task: call.task.clone(),
            deadline_ms: deadline.map(millis),
            team: member_team.as_ref().and_then(|part| part.announced()),
        },
    )));
    let mut end = MemberEnd {
        record: MemberRecord {
            turn,
            member: member.to_string(),
            task: call.task.clone(),
            status: TaskStatus::Failed,
            latency_ms: 0,
            reply: None,
            stop_reason: None,
            team: None,
        },
        trace: Vec::new(),
        history: Vec::new(),
        run_stop: None,
        started_next: false,
    };
    let answered = if member == coordinator || !team.part.agents.contains_key(member) {
        Err(TeamStop::UnknownMember {
            member: path.clone(),
        }
        .into())
    } else if !team.gate.allows(&team.part.flag_name(member)) {
        Err(StopReason::AgentDenied { role: path.clone() })
    } else if let Some(part) = member_team {
        let ran = super::run_team(team, part, (&call.task, lane)).await;
        end.trace.extend(ran.trace);
        end.record.team = Some(Box::new(ran.record));
        ran.ended
    } else {
        let sees = team.part.agents.get(member).and_then(|a| a.history);
        let shared = shared.filter(|_| sees == Some(MemberHistory::Shared));
        let agent = asked.names.get(member);
        converse(team, (call, lane), deadline, (agent, shared), &mut end).await
    };
    let outcome = outcome_of(&answered);
    let latency_ms = latency_of(team, turn, &path, started);
    end.run_stop = answered
        .as_ref()
        .err()
        .filter(|reason| stops_the_run(team, reason))
        .cloned();
    end.started_next = in_lane.end(end.run_stop.is_some()).await;
    team.bus.publish(EventKind::Pattern(PatternEvent::Team(
        TeamEvent::MemberCallFinished {
            turn,
            member: path,
            outcome,
            latency_ms,
            reply: answered.as_ref().ok().cloned(),
            reason: answered.as_ref().err().cloned(),
        },
    )));
    end.record.latency_ms = latency_ms;
    match answered {
        Ok(reply) => {
            end.record.status = TaskStatus::Done;
            end.record.reply = Some(reply);
        }
        Err(reason) => end.record.stop_reason = Some(reason),
    }
    end
}

/// How a member call that ended with `answered` went, as its event says.
fn outcome_of<T>(answered: &Result<T, StopReason>) -> CallOutcome {
    match answered {
        Ok(_) => CallOutcome::Ok,
        Err(StopReason::Cancelled) => CallOutcome::Cancelled,
        Err(StopReason::AgentDenied { .. }) => CallOutcome::Refused,
        Err(reason) => match reason.pattern::<TeamStop>() {
            Some(TeamStop::MemberTimeout { .. }) => CallOutcome::Timeout,
            Some(TeamStop::UnknownMember { .. }) => CallOutcome::Refused,
            _ => CallOutcome::Error,
        },
    }
}

/// Whether a member call's `reason` stops the whole run: cancelling, one
/// of the run's budgets, or safe mode without partial results.
fn stops_the_run(team: &TeamRun<'_>, reason: &StopReason) -> bool {
    matches!(
        reason,
        StopReason::Cancelled | StopReason::MaxSeconds | StopReason::MaxLlmCalls
    ) || reason.is_spend_budget()
        || team.is_safe_mode_stop(reason)
}

/// How long the member call of turn `turn` to `path`, started at run time
/// `started`, took. Served, the recorded run's latency: its clock also
/// counted the work between the calls, which takes no time on the served
/// run's.
fn latency_of(team: &TeamRun<'_>, turn: u32, path: &str, started: Duration) -> u64 {
    let measure = || Measure::MemberCall {
        turn,
        member: path.to_string(),
    };
    team.gateway
        .served_measure(measure)
        .unwrap_or_else(|| millis(team.now().saturating_sub(started)))
}

/// The member `agent`'s turns until its reply; `shared`, the
/// coordinator's conversation, when the member sees it.
async fn converse(
    team: &TeamRun<'_>,
    (call, lane): (&MemberCall, Lane),
    deadline: Option<Duration>,
    (agent, shared): (Arc<str>, Option<&Value>),
    end: &mut MemberEnd,
) -> Result<String, StopReason> {
    let member = call.member.as_str();
    let cut = || -> StopReason {
        TeamStop::MemberTimeout {
            member: team.part.path_of(member).into_owned(),
        }
        .into()
    };
    loop {
        // In `json!`'s key order, from owned values.
        let mut context = Map::new();
        context.insert("task".into(), call.task.as_str().into());
        context.insert("recent".into(), history::to_values(&end.history));
        if let Some(shared) = shared {
            context.insert("coordinator_history".into(), shared.clone());
        }
        let context = Value::Object(context);
        let turn = match team
            .turn(lane, member, &super::MEMBER_PROMPT, deadline, context)
            .await
        {
            Ok(turn) => turn,
            Err(Halted { halt, call }) => {
                let reason = match halt {
                    Halt::Cut => cut(),
                    Halt::Stop(reason) => reason,
                };
                if let Some((number, outcome, latency_ms)) = call {
                    let mut entry =
                        TraceEntry::turn(number, Arc::clone(&agent), outcome, latency_ms);
                    entry.reason = Some(reason.to_string());
                    end.trace.push(entry);
                }
                return Err(reason);
            }
        };
        let outcome = turn.action.outcome();
        let mut entry = TraceEntry::turn(turn.number, Arc::clone(&agent), outcome, turn.latency_ms);
        end.history
            .push(Entry::turn(turn.number, Arc::clone(&agent), &turn.output));
        drop(turn.output);
        match turn.action {
            Action::Reply(reply) => {
                end.trace.push(entry);
                return Ok(reply);
            }
            Action::Empty => {
                end.trace.push(entry);
                return Err(StopReason::LlmEmpty);
            }
            // A member answers its caller; it neither hands control on nor
            // calls members of its own.
            Action::Transfer { .. } | Action::CallMembers(_) | Action::Invalid => {
                end.trace.push(entry);
                return Err(TeamStop::InvalidTurn.into());
            }
            Action::Call { tool, args } => {
                let record = team
                    .use_tool(member, turn.number, &tool, &args, deadline, &mut entry)
                    .await;
                match record {
                    Ok(record) => {
                        end.trace.push(entry);
                        end.history.push(Entry::Tool(Box::new(record)));
                    }
                    Err(halt) => {
                        let reason = match halt {
                            Halt::Cut => cut(),
                            Halt::Stop(reason) => reason,
                        };
                        entry.reason = Some(reason.to_string());
                        end.trace.push(entry);
                        return Err(reason);
                    }
                }
            }
        }
    }
}
