//! Folding the team events into the chain: turns, transfers asked for,
//! accepted and refused, tool calls, the LLM call budget and the
//! coordinator's member calls; a member team's agents' events go to its
//! own chain (`nested`).

use super::state::{Chain, Link, MemberState, ToolCallView, TurnView};
use crate::bus::{BudgetKind, CallOutcome, EventKind};
use crate::patterns::events::PatternEvent;
use crate::patterns::events::TeamEvent;
use crate::patterns::events::TurnOutcome;
use crate::stop::StopReason;
use crate::tui::patterns::folding::Fold;
use crate::tui::state::outcome::Outcome;

impl Fold for Chain {
    /// Fold one team event at run time `t_ms`; others are ignored.
    fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        self.fold(kind, t_ms);
        self.trim();
    }

    /// The run ended: nothing is in flight any more.
    fn close(&mut self, _outcome: &Outcome) {
        self.stop();
    }
}

impl Chain {
    pub(crate) fn fold(&mut self, kind: &EventKind, t_ms: u64) {
        if let EventKind::Pattern(PatternEvent::Team(event)) = kind
            && self.route(event, t_ms)
        {
            return;
        }
        match kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted { turn, agent })) => {
                self.turn_started(*turn, agent, t_ms)
            }
            EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnFinished {
                turn,
                agent,
                outcome,
                ..
            })) if self.turn.as_ref().is_some_and(|t| t.turn == *turn) => {
                self.turn = None;
                if let Some(link) = self.links.last_mut().filter(|l| &l.agent == agent) {
                    link.turns += 1;
                    link.cut |= *outcome == TurnOutcome::Cut;
                }
            }
            EventKind::Pattern(PatternEvent::Team(TeamEvent::TransferRequested {
                message,
                ..
            })) => {
                self.asked_message = message.clone();
            }
            EventKind::Pattern(PatternEvent::Team(TeamEvent::ToolUsed {
                turn,
                agent,
                tool,
                args,
                result,
                ok,
            })) => self.tool_calls.push(ToolCallView {
                at_ms: t_ms,
                turn: *turn,
                agent: agent.clone(),
                tool: tool.clone(),
                args: args.clone(),
                result: result.clone(),
                ok: *ok,
            }),
            EventKind::BudgetConsumed {
                budget: BudgetKind::LlmCalls,
                used,
                limit,
            } => {
                self.llm_calls = *used;
                self.limits.max_llm_calls = *limit;
            }
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                from,
                to,
                handoffs,
                window,
                deadline_ms,
            })) => {
                self.record(from, to, t_ms, None, *handoffs, window);
                self.hand_over(to, t_ms, *deadline_ms);
            }
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffRejected {
                from,
                to,
                reason,
                handoffs,
                window,
            })) => self.record(from, to, t_ms, Some(reason.clone()), *handoffs, window),
            EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallStarted {
                turn,
                member,
                task,
                deadline_ms,
                team,
            })) => self.call((*turn, member, task), *deadline_ms, team.as_ref(), t_ms),
            EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
                member,
                outcome,
                latency_ms,
                reply,
                reason,
                ..
            })) => self.call_finished(member, *outcome, *latency_ms, reply, reason),
            _ => {}
        }
    }
}

impl Chain {
    /// The running call of `member` ended.
    fn call_finished(
        &mut self,
        member: &str,
        outcome: CallOutcome,
        latency_ms: u64,
        reply: &Option<String>,
        reason: &Option<StopReason>,
    ) {
        let Some(view) = self.running_member(member) else {
            return;
        };
        view.state = match (outcome, reply) {
            (CallOutcome::Ok, Some(reply)) => MemberState::Done {
                latency_ms,
                reply: reply.clone(),
            },
            _ => MemberState::Failed {
                latency_ms: Some(latency_ms),
                outcome: Some(outcome),
                reason: reason.clone(),
            },
        };
        // The team ran to its own stop before its call ended.
        if let Some(team) = view.team.as_deref_mut() {
            team.chain.stop();
        }
    }

    /// Turn `turn` began: a member's own turn counts on its card, else it
    /// is the holder's turn in flight.
    fn turn_started(&mut self, turn: u32, agent: &str, t_ms: u64) {
        self.turns = self.turns.max(turn);
        if let Some(member) = self.running_member(agent) {
            member.turns += 1;
        } else {
            self.turn = Some(TurnView {
                turn,
                agent: agent.to_string(),
                started_ms: t_ms,
            });
        }
    }

    /// Control passed to `to` at `t_ms`: the holder's link ends, a new one
    /// starts.
    fn hand_over(&mut self, to: &str, t_ms: u64, deadline_ms: Option<u64>) {
        if let Some(link) = self.links.last_mut() {
            link.until_ms = Some(t_ms);
        }
        self.links.push(Link {
            agent: to.to_string(),
            since_ms: t_ms,
            deadline_ms,
            turns: 0,
            until_ms: None,
            cut: false,
        });
    }
}
