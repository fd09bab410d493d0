//! A team's part of a run's trace: each turn of a swarm or coordinator
//! team an `invoke_agent <agent>` span, lasting until the tool or member
//! calls it asked for are done; each member call an `execute_tool
//! <member>` span holding the member's turns; a member that is a team
//! holds its agents' turns (named by path) and their member calls in
//! turn, so a team of teams is a tree of `invoke_agent` spans; handoffs
//! and rejected transfers as events on the team's span (the root at the
//! top), transfers asked for on the turn.

use crate::bus::CallOutcome;
use crate::patterns::team::events::{HandoffRejection, TeamEvent, TurnOutcome};
use crate::stop::StopReason;
use crate::telemetry::names as n;
use crate::telemetry::{Attrs, ROOT, SpanNo, TraceSpans, wire};

/// A team's own names, beside the shared ones in `telemetry::names`: how
/// a turn ended, the transfers so far, and the transfer events.
pub(crate) const TURN_OUTCOME: &str = "conclave.turn.outcome";
pub(crate) const HANDOFFS: &str = "conclave.handoffs";
pub(crate) const EVENT_TRANSFER_REQUESTED: &str = "conclave.transfer_requested";
pub(crate) const EVENT_HANDOFF: &str = "conclave.handoff";
pub(crate) const EVENT_HANDOFF_REJECTED: &str = "conclave.handoff_rejected";

/// The team's open turns and member calls.
#[derive(Debug, Default)]
pub(crate) struct TeamSpans {
    turns: Vec<Turn>,
    /// Open member calls of a coordinator, oldest first.
    members: Vec<Member>,
}

#[derive(Debug)]
struct Member {
    name: String,
    no: SpanNo,
    /// The path of the team the member is, when it is one: its agents'
    /// names start with it.
    team: Option<String>,
}

impl Member {
    /// Whether `agent`'s turns belong under this call.
    fn holds(&self, agent: &str) -> bool {
        self.name == agent
            || self.team.as_deref().is_some_and(|path| {
                agent
                    .strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('/'))
            })
    }
}

#[derive(Debug)]
struct Turn {
    no: SpanNo,
    turn: u32,
    agent: String,
}

impl Turn {
    /// What the gateway calls the turn's model and tool calls.
    fn label(&self) -> String {
        format!("turn {} · {}", self.turn, self.agent)
    }
}

impl TeamSpans {
    /// Fold in a team's event.
    pub(crate) fn apply(&mut self, trace: &mut TraceSpans<'_>, event: &TeamEvent, t: u64) {
        match event {
            TeamEvent::TurnStarted { turn, agent } => self.turn_started(trace, *turn, agent, t),
            TeamEvent::TurnFinished { turn, outcome, .. } => {
                self.turn_finished(trace, *turn, *outcome, t);
            }
            TeamEvent::TransferRequested { turn, from, to, .. } => {
                let no = self.turn_span(*turn).unwrap_or(ROOT);
                let attrs = Attrs::default()
                    .with(n::FROM, from.as_str())
                    .with(n::TO, to.as_str())
                    .with(n::TURN, *turn);
                trace.event(no, EVENT_TRANSFER_REQUESTED, t, attrs);
            }
            TeamEvent::HandoffAccepted {
                from, to, handoffs, ..
            } => {
                let on = self.member_span_of(from);
                handoff(trace, on, EVENT_HANDOFF, [from, to], None, *handoffs, t);
            }
            TeamEvent::HandoffRejected {
                from,
                to,
                reason,
                handoffs,
                ..
            } => {
                let on = self.member_span_of(from);
                let name = EVENT_HANDOFF_REJECTED;
                handoff(trace, on, name, [from, to], Some(reason), *handoffs, t);
            }
            TeamEvent::MemberCallStarted {
                turn, member, team, ..
            } => {
                let team = team.as_ref().map(|team| team.path.clone());
                self.member_call_started(trace, *turn, member, team, t);
            }
            TeamEvent::MemberCallFinished {
                member,
                outcome,
                reply,
                reason,
                ..
            } => {
                let reply = reply.as_deref();
                self.member_call_finished(trace, member, *outcome, reply, reason.as_ref(), t);
            }
            TeamEvent::ToolUsed { .. } => {}
        }
    }

    /// A graph's team node started: the turns of the team at `path` go
    /// under the activation's span `no`, as a member team's go under its
    /// member call.
    pub(crate) fn hold(&mut self, path: &str, no: SpanNo) {
        self.members.push(Member {
            name: path.to_owned(),
            no,
            team: Some(path.to_owned()),
        });
    }

    /// The turn a model or tool call labelled `label` belongs to.
    pub(crate) fn call_parent(&self, label: &str) -> Option<SpanNo> {
        self.turns
            .iter()
            .rev()
            .find(|t| t.label() == label)
            .map(|t| t.no)
    }

    /// Span `no` has ended.
    pub(crate) fn forget(&mut self, no: SpanNo) {
        self.turns.retain(|t| t.no != no);
        self.members.retain(|m| m.no != no);
    }

    /// The latest open member call `agent`'s turns belong under: its own
    /// call, or the call of the team it is an agent of; the root when none.
    fn member_span_of(&self, agent: &str) -> SpanNo {
        self.members
            .iter()
            .rev()
            .find(|m| m.holds(agent))
            .map_or(ROOT, |m| m.no)
    }

    /// `agent` takes turn `turn`: an `invoke_agent` span under the member
    /// call that asked for it, else the root.
    fn turn_started(&mut self, trace: &mut TraceSpans<'_>, turn: u32, agent: &str, t: u64) {
        let parent = self.member_span_of(agent);
        self.end_waiting_turns(trace, parent, t);
        let no = trace.open_agent(parent, agent, t);
        trace.set(no, n::TURN, turn);
        self.turns.push(Turn {
            no,
            turn,
            agent: agent.to_owned(),
        });
    }

    /// A turn that waited for its calls is over once they are done and
    /// another turn starts outside them, under `parent` (a later one or
    /// the run's end closes one whose calls still run).
    fn end_waiting_turns(&self, trace: &mut TraceSpans<'_>, parent: SpanNo, t: u64) {
        let over: Vec<SpanNo> = self
            .turns
            .iter()
            .map(|t| t.no)
            .filter(|no| !trace.encloses(*no, parent) && !trace.has_open_children(*no))
            .collect();
        for no in over {
            trace.end(no, t);
        }
    }

    /// Turn `turn` ended with `outcome`: its span ends, or waits for the
    /// calls the agent asked for.
    fn turn_finished(&self, trace: &mut TraceSpans<'_>, turn: u32, outcome: TurnOutcome, t: u64) {
        let Some(no) = self.turn_span(turn) else {
            return;
        };
        trace.set(no, TURN_OUTCOME, outcome.as_str());
        match outcome {
            // The calls the agent asked for follow its turn's
            // model call: the turn lasts until they are done.
            TurnOutcome::ToolCall | TurnOutcome::CallMembers => trace.end_after_children(no, t),
            TurnOutcome::Reply | TurnOutcome::Transfer => trace.end(no, t),
            failed => {
                trace.fail_as(no, failed.as_str());
                trace.end(no, t);
            }
        }
    }

    /// The coordinator's turn `turn` calls `member`: an `execute_tool`
    /// span under the turn that will hold the member's turns.
    fn member_call_started(
        &mut self,
        trace: &mut TraceSpans<'_>,
        turn: u32,
        member: &str,
        team: Option<String>,
        t: u64,
    ) {
        let parent = self.turn_span(turn).unwrap_or(ROOT);
        let no = trace.open(parent, format!("{} {member}", n::OP_EXECUTE_TOOL), t);
        trace.set(no, n::OPERATION_NAME, n::OP_EXECUTE_TOOL);
        trace.set(no, n::TOOL_NAME, member);
        trace.set(no, n::TURN, turn);
        self.members.push(Member {
            name: member.to_owned(),
            no,
            team,
        });
    }

    /// The latest open call of `member` ended: its outcome, its failure,
    /// and its reply when content is on.
    fn member_call_finished(
        &mut self,
        trace: &mut TraceSpans<'_>,
        member: &str,
        outcome: CallOutcome,
        reply: Option<&str>,
        reason: Option<&StopReason>,
        t: u64,
    ) {
        let found = self.members.iter().rposition(|m| m.name == member);
        let Some(index) = found else {
            return;
        };
        let no = self.members.remove(index).no;
        trace.set(no, n::OUTCOME, wire(&outcome));
        if let Some(reason) = reason {
            trace.fail(no, reason);
        }
        if let Some(reply) = reply {
            trace.answer(no, t, reply);
        }
        trace.end(no, t);
    }

    fn turn_span(&self, turn: u32) -> Option<SpanNo> {
        self.turns
            .iter()
            .rev()
            .find(|t| t.turn == turn)
            .map(|t| t.no)
    }
}

/// A transfer accepted, or refused for `reason`: event `name` on span
/// `on`, the swarm's own (the root, or a member team's call).
fn handoff(
    trace: &mut TraceSpans<'_>,
    on: SpanNo,
    name: &'static str,
    [from, to]: [&str; 2],
    reason: Option<&HandoffRejection>,
    handoffs: u64,
    t: u64,
) {
    let mut attrs = Attrs::default().with(n::FROM, from).with(n::TO, to);
    if let Some(reason) = reason {
        attrs = attrs.with(n::REASON, reason.to_string());
    }
    trace.event(on, name, t, attrs.with(HANDOFFS, handoffs));
}
