//! A team's agents as spans: each turn of a swarm or coordinator team an
//! `invoke_agent <agent>` span, lasting until the tool or member calls it
//! asked for are done; each member call an `execute_tool <member>` span
//! holding the member's turns; handoffs and rejected transfers as events
//! on the root, transfers asked for on the turn.

use super::{ROOT, TraceBuilder, wire};
use crate::bus::{EventKind, TurnOutcome};
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
            EventKind::TurnStarted { turn, agent } => {
                let parent = self
                    .shape
                    .members
                    .iter()
                    .rev()
                    .find(|(member, _)| member == agent)
                    .map_or(ROOT, |(_, no)| *no);
                // A turn that waited for its calls is over once they are
                // done and another turn starts outside them (a later one
                // or the run's end closes one whose calls still run).
                let over: Vec<SpanNo> = self
                    .shape
                    .turns
                    .iter()
                    .map(|t| t.no)
                    .filter(|no| {
                        !self.encloses(*no, parent)
                            && !self.open.values().any(|s| s.parent == Some(*no))
                    })
                    .collect();
                for no in over {
                    self.end(no, t);
                }
                let no = self.agent_span(parent, agent, t);
                self.span(no).attrs.set(n::TURN, *turn);
                self.shape.turns.push(Turn {
                    no,
                    turn: *turn,
                    agent: agent.clone(),
                });
            }
            EventKind::TurnFinished { turn, outcome, .. } => {
                if let Some(no) = self.turn_span(*turn) {
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
            }
            EventKind::TransferRequested { turn, from, to, .. } => {
                let no = self.turn_span(*turn).unwrap_or(ROOT);
                let attrs = Attrs::default()
                    .with(n::FROM, from.as_str())
                    .with(n::TO, to.as_str())
                    .with(n::TURN, *turn);
                self.event(no, n::EVENT_TRANSFER_REQUESTED, t, attrs);
            }
            EventKind::HandoffAccepted {
                from, to, handoffs, ..
            } => {
                let attrs = Attrs::default()
                    .with(n::FROM, from.as_str())
                    .with(n::TO, to.as_str())
                    .with(n::HANDOFFS, *handoffs);
                self.event(ROOT, n::EVENT_HANDOFF, t, attrs);
            }
            EventKind::HandoffRejected {
                from,
                to,
                reason,
                handoffs,
                ..
            } => {
                let attrs = Attrs::default()
                    .with(n::FROM, from.as_str())
                    .with(n::TO, to.as_str())
                    .with(n::REASON, reason.to_string())
                    .with(n::HANDOFFS, *handoffs);
                self.event(ROOT, n::EVENT_HANDOFF_REJECTED, t, attrs);
            }
            EventKind::MemberCallStarted { turn, member, .. } => {
                let parent = self.turn_span(*turn).unwrap_or(ROOT);
                let no =
                    self.open_span(Some(parent), format!("{} {member}", n::OP_EXECUTE_TOOL), t);
                let attrs = &mut self.span(no).attrs;
                attrs.set(n::OPERATION_NAME, n::OP_EXECUTE_TOOL);
                attrs.set(n::TOOL_NAME, member.as_str());
                attrs.set(n::TURN, *turn);
                self.shape.members.push((member.clone(), no));
            }
            EventKind::MemberCallFinished {
                member,
                outcome,
                reply,
                reason,
                ..
            } => {
                let found = self.shape.members.iter().rposition(|(m, _)| m == member);
                if let Some(index) = found {
                    let (_, no) = self.shape.members.remove(index);
                    self.span(no).attrs.set(n::OUTCOME, wire(outcome));
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
            }
            _ => return false,
        }
        true
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
