//! One role's contribution of a round: asked through the gateway, read
//! once by the contract's check (repaired on an endpoint while the model
//! can fix it), then judged in 000's order: the flags, the message budget,
//! the contract; accepted or rejected as an event either way.

use super::contract::{Contribution, REQUIRED_KEYS, contribution_of, with_denied_agent};
use super::stops::{ContributionError, RoundStop, Stop};
use super::{Table, call_stop, sim};
use crate::bus::{BudgetKind, EventKind};
use crate::gateway::{CallError, Check};
use crate::patterns::answer_words;
use crate::patterns::collaboration::events::RoundEvent;
use crate::patterns::events::PatternEvent;
use crate::provider::prompts::{Prompt, compiled_in};
use crate::provider::{ModelOutput, ModelRequest};
use crate::stop::StopReason;
use serde_json::{Value, json};

/// The system prompt of a role's contribution.
const CONTRIBUTION_PROMPT: Prompt = compiled_in!("collaboration_contribution.md", json);

impl Table<'_> {
    /// Ask `role` and pass its answer through the gateway's checks, in 000's
    /// order: the model is asked first, then the execution allowlist, the
    /// message budget and the contract are applied.
    pub(super) async fn contribution(
        &mut self,
        round: u32,
        role: &str,
    ) -> Result<Contribution, Stop> {
        let phase = format!("round_{round}:{role}");
        self.ctx.bus.publish(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::ContributionRequested {
                round,
                agent: role.to_string(),
            },
        )));
        let (read, raw) = match self.ask(round, role).await {
            Ok(answer) => answer,
            Err(error) => return Err(Stop::new(call_stop(&error)).in_phase(phase)),
        };

        let flags = self.ctx.gate.flags();
        let accepted = if !flags.allows(role) {
            Err(StopReason::AgentDenied {
                role: role.to_string(),
            })
        } else {
            self.messages += 1;
            self.ctx.bus.publish(EventKind::BudgetConsumed {
                budget: BudgetKind::Messages,
                used: u64::from(self.messages),
                limit: u64::from(self.limits.max_messages),
            });
            if self.messages > self.limits.max_messages {
                Err(StopReason::MaxMessages)
            } else {
                // An answer the check took names the role, which the flags
                // allow; one it refused may name a seated agent they deny.
                let denied =
                    |agent: &str| self.team.roles.contains_key(agent) && !flags.allows(agent);
                read.map_err(|error| {
                    RoundStop::InvalidContribution(with_denied_agent(error, &raw, denied)).into()
                })
            }
        };

        match accepted {
            Ok(contribution) => {
                self.ctx.bus.publish(EventKind::Pattern(PatternEvent::Round(
                    RoundEvent::ContributionAccepted {
                        round,
                        agent: role.to_string(),
                        stance: contribution.stance,
                        confidence: contribution.confidence,
                        summary: contribution.summary.clone(),
                        actions: contribution.actions.clone(),
                    },
                )));
                Ok(contribution)
            }
            Err(reason) => {
                self.ctx.bus.publish(EventKind::Pattern(PatternEvent::Round(
                    RoundEvent::ContributionRejected {
                        round,
                        agent: role.to_string(),
                        reason: reason.clone(),
                        raw: raw.clone(),
                    },
                )));
                Err(Stop {
                    reason,
                    phase: Some(phase),
                    raw_contribution: Some(raw),
                })
            }
        }
    }

    /// `role`'s answer of `round`, read once by the gateway's check: the
    /// contribution or what the contract refused, and the answer as read.
    /// An answer that breaks the contract is asked for again (on an
    /// endpoint); repairs are the same message, not more of them. Only
    /// what the model can fix is repaired: a broken contract or an agent
    /// the table does not seat. A role its flag denies is a policy
    /// outcome, judged after the call once, as on the sim.
    async fn ask(
        &mut self,
        round: u32,
        role: &str,
    ) -> Result<(Result<Contribution, ContributionError>, Value), CallError> {
        let focus = self.team.roles.get(role).and_then(|r| r.focus.as_deref());
        let request = ModelRequest::new(
            sim::contribution(role, focus.unwrap_or("the question as a whole")),
            &CONTRIBUTION_PROMPT,
            self.contribution_payload(role),
        )
        .sharing(self.shared_facts())
        .keeping(self.contracts.of(role));
        let declared = |agent: &str| self.team.roles.contains_key(agent);
        let read = |output: ModelOutput| {
            let raw = read_contribution(output);
            match contribution_of(&raw, role, declared) {
                Ok(contribution) => Ok((contribution, raw)),
                Err(error) => Err((error, raw)),
            }
        };
        let problem = |(error, raw): &(ContributionError, Value)| {
            let reason = RoundStop::InvalidContribution(error.clone());
            match (error, raw.get("confidence")) {
                (ContributionError::ConfidenceRange, Some(found)) => format!(
                    "{reason}: \"confidence\" must be a number from 0 to 1; the answer has {}",
                    answer_words::found(found)
                ),
                _ => answer_words::problem(&reason, raw, &REQUIRED_KEYS),
            }
        };
        let check = Check {
            read: &read,
            problem: &problem,
            before_repair: &|| Ok(()),
        };
        let (answer, _) = self
            .ctx
            .gateway
            .model_checked(format!("round {round} · {role}"), request, None, &check)
            .await;
        match answer.unwrap_or(Err(CallError::Timeout))? {
            Ok((contribution, raw)) => Ok((Ok(contribution), raw)),
            Err((error, raw)) => Ok((Err(error), raw)),
        }
    }
}

/// 000 reads text that is not JSON as `{"invalid": true, "raw": text}`.
fn read_contribution(output: ModelOutput) -> serde_json::Value {
    #[cfg(test)]
    crate::patterns::parses::note("contribution");
    output.into_json(|raw| json!({"invalid": true, "raw": raw}))
}
