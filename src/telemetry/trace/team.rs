//! A team's agents as spans: each turn of a swarm or coordinator team an
//! `invoke_agent <agent>` span, lasting until the tool or member calls it
//! asked for are done; each member call an `execute_tool <member>` span
//! holding the member's turns; handoffs and rejected transfers as events
//! on the root, transfers asked for on the turn.

use super::{ROOT, TraceBuilder, wire};
use crate::bus::TeamEvent;
use crate::bus::{CallOutcome, EventKind, HandoffRejection, TurnOutcome};
use crate::stop::StopReason;
use crate::telemetry::names as n;
use crate::telemetry::span::{Attrs, SpanNo, SpanStatus};

#[derive(Debug)]
pub(super) struct Turn {
    pub(super) no: SpanNo,
    pub(super) turn: u32,
    pub(super) agent: String,
}

impl Turn {
    /// What the gateway calls the turn's model and tool calls.
    pub(super) fn label(&self) -> String {
        format!("turn {} · {}", self.turn, self.agent)
    }
}

impl TraceBuilder {
    /// Fold in a team's event; whether it was one.
    pub(super) fn apply_team(&mut self, kind: &EventKind, t: u64) -> bool {
        match kind {
            EventKind::Team(TeamEvent::TurnStarted { turn, agent }) => {
                self.turn_started(*turn, agent, t)
            }
            EventKind::Team(TeamEvent::TurnFinished { turn, outcome, .. }) => {
                self.turn_finished(*turn, *outcome, t);
            }
            EventKind::Team(TeamEvent::TransferRequested { turn, from, to, .. }) => {
                self.transfer_requested(*turn, from, to, t);
            }
            EventKind::Team(TeamEvent::HandoffAccepted {
                from, to, handoffs, ..
            }) => self.handoff(n::EVENT_HANDOFF, from, to, None, *handoffs, t),
            EventKind::Team(TeamEvent::HandoffRejected {
                from,
                to,
                reason,
                handoffs,
                ..
            }) => self.handoff(
                n::EVENT_HANDOFF_REJECTED,
                from,
                to,
                Some(reason),
                *handoffs,
                t,
            ),
            EventKind::Team(TeamEvent::MemberCallStarted { turn, member, .. }) => {
                self.member_call_started(*turn, member, t);
            }
            EventKind::Team(TeamEvent::MemberCallFinished {
                member,
                outcome,
                reply,
                reason,
                ..
            }) => self.member_call_finished(member, *outcome, reply.as_deref(), reason.as_ref(), t),
            _ => return false,
        }
        true
    }

    /// `agent` takes turn `turn`: an `invoke_agent` span under the member
    /// call that asked for it, else the root.
    fn turn_started(&mut self, turn: u32, agent: &str, t: u64) {
        let parent = self
            .shape
            .members
            .iter()
            .rev()
            .find(|(member, _)| member == agent)
            .map_or(ROOT, |(_, no)| *no);
        self.end_waiting_turns(parent, t);
        let no = self.agent_span(parent, agent, t);
        self.span(no).attrs.set(n::TURN, turn);
        self.shape.turns.push(Turn {
            no,
            turn,
            agent: agent.to_owned(),
        });
    }

    /// A turn that waited for its calls is over once they are done and
    /// another turn starts outside them, under `parent` (a later one or
    /// the run's end closes one whose calls still run).
    fn end_waiting_turns(&mut self, parent: SpanNo, t: u64) {
        let over: Vec<SpanNo> = self
            .shape
            .turns
            .iter()
            .map(|t| t.no)
            .filter(|no| {
                !self.encloses(*no, parent) && !self.open.values().any(|s| s.parent == Some(*no))
            })
            .collect();
        for no in over {
            self.end(no, t);
        }
    }

    /// Turn `turn` ended with `outcome`: its span ends, or waits for the
    /// calls the agent asked for.
    fn turn_finished(&mut self, turn: u32, outcome: TurnOutcome, t: u64) {
        let Some(no) = self.turn_span(turn) else {
            return;
        };
        self.span(no).attrs.set(n::TURN_OUTCOME, outcome.as_str());
        match outcome {
            // The calls the agent asked for follow its turn's
            // model call: the turn lasts until they are done.
            TurnOutcome::ToolCall | TurnOutcome::CallMembers => {
                self.span(no).done_at = Some(t);
            }
            TurnOutcome::Reply | TurnOutcome::Transfer => self.end(no, t),
            failed => {
                let span = self.span(no);
                span.attrs.set(n::ERROR_TYPE, failed.as_str());
                span.status = SpanStatus::Error(failed.as_str().into());
                self.end(no, t);
            }
        }
    }

    /// The agent of turn `turn` asked to hand control to `to`: an event on
    /// the turn (on the root when the turn is unknown).
    fn transfer_requested(&mut self, turn: u32, from: &str, to: &str, t: u64) {
        let no = self.turn_span(turn).unwrap_or(ROOT);
        let attrs = Attrs::default()
            .with(n::FROM, from)
            .with(n::TO, to)
            .with(n::TURN, turn);
        self.event(no, n::EVENT_TRANSFER_REQUESTED, t, attrs);
    }

    /// A transfer accepted, or refused for `reason`: event `name` on the
    /// root.
    fn handoff(
        &mut self,
        name: &'static str,
        from: &str,
        to: &str,
        reason: Option<&HandoffRejection>,
        handoffs: u64,
        t: u64,
    ) {
        let mut attrs = Attrs::default().with(n::FROM, from).with(n::TO, to);
        if let Some(reason) = reason {
            attrs = attrs.with(n::REASON, reason.to_string());
        }
        self.event(ROOT, name, t, attrs.with(n::HANDOFFS, handoffs));
    }

    /// The coordinator's turn `turn` calls `member`: an `execute_tool`
    /// span under the turn that will hold the member's turns.
    fn member_call_started(&mut self, turn: u32, member: &str, t: u64) {
        let parent = self.turn_span(turn).unwrap_or(ROOT);
        let no = self.open_span(Some(parent), format!("{} {member}", n::OP_EXECUTE_TOOL), t);
        let attrs = &mut self.span(no).attrs;
        attrs.set(n::OPERATION_NAME, n::OP_EXECUTE_TOOL);
        attrs.set(n::TOOL_NAME, member);
        attrs.set(n::TURN, turn);
        self.shape.members.push((member.to_owned(), no));
    }

    /// The latest open call of `member` ended: its outcome, its failure,
    /// and its reply when content is on.
    fn member_call_finished(
        &mut self,
        member: &str,
        outcome: CallOutcome,
        reply: Option<&str>,
        reason: Option<&StopReason>,
        t: u64,
    ) {
        let found = self.shape.members.iter().rposition(|(m, _)| m == member);
        let Some(index) = found else {
            return;
        };
        let (_, no) = self.shape.members.remove(index);
        self.span(no).attrs.set(n::OUTCOME, wire(&outcome));
        if let Some(reason) = reason {
            self.fail(no, reason);
        }
        if self.content
            && let Some(reply) = reply
        {
            self.content_event(no, t, n::OUTPUT_MESSAGES, "assistant", reply);
        }
        self.end(no, t);
    }

    fn turn_span(&self, turn: u32) -> Option<SpanNo> {
        self.shape
            .turns
            .iter()
            .rev()
            .find(|t| t.turn == turn)
            .map(|t| t.no)
    }
}
