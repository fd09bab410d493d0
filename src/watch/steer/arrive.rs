//! What a hook's ask is answered at once, when nothing has to wait: a
//! gate the pace lets go (with a lease while the run runs), an approval
//! a `--approve`/`--reject` rule or nobody steering decides, a question
//! nobody is there to answer. `None`: it waits for the pace or a person.

use super::protocol::{Answer, Ask, By, Decision, Refused};
use super::state::{Limits, Pace, Policy, RunSteer, millis};
use tokio::time::Instant;

impl RunSteer {
    pub(super) fn answer_now(
        &mut self,
        ask: &Ask,
        policy: &Policy,
        limits: Limits,
        now: Instant,
    ) -> Result<Option<Answer>, Refused> {
        Ok(match ask {
            Ask::Gate { name, agent, .. } => {
                self.gates += 1;
                let at = [Some(name), agent.as_ref()]
                    .into_iter()
                    .flatten()
                    .find(|n| policy.breaks.contains(n.as_str()));
                if let (Some(at), Pace::Running) = (at, self.pace) {
                    self.pace = Pace::Paused { passes: 0 };
                    self.steered = true;
                    self.touch();
                    let d = Decision::Broke { at: at.clone() };
                    self.decide(now, d, limits.max_decisions);
                    return Ok(None);
                }
                match self.pace {
                    Pace::Running => Some(Answer::Go {
                        lease_ms: millis(limits.lease),
                        epoch: self.epoch,
                    }),
                    Pace::Paused { passes } if passes > 0 => {
                        self.pace = Pace::Paused { passes: passes - 1 };
                        Some(Answer::go())
                    }
                    Pace::Paused { .. } => None,
                }
            }
            Ask::Approval { tool, agent, .. } => {
                self.approval_now(tool, agent.as_ref(), policy, limits, now)
            }
            Ask::Question { question, .. } => {
                if !(self.steered || policy.person_present) {
                    let d = Decision::Unanswered {
                        question: question.clone(),
                    };
                    self.decide(now, d, limits.max_decisions);
                    return Ok(Some(Answer::Unanswered));
                }
                let questions = self
                    .waiting
                    .values()
                    .filter(|w| matches!(w.ask, Ask::Question { .. }))
                    .count();
                if questions >= limits.max_questions {
                    return Err(Refused::TooMany("questions waiting in one run"));
                }
                None
            }
        })
    }

    /// A rule decides, or nobody steering approves; else a person will.
    fn approval_now(
        &mut self,
        tool: &str,
        agent: Option<&String>,
        policy: &Policy,
        limits: Limits,
        now: Instant,
    ) -> Option<Answer> {
        let (tool, agent) = (tool.to_string(), agent.cloned());
        if policy.reject.contains(&tool) {
            let reason = format!("the watch's --reject {tool} rule");
            let d = Decision::Rejected {
                tool,
                agent,
                reason: reason.clone(),
                by: By::Rule,
            };
            self.decide(now, d, limits.max_decisions);
            let by = By::Rule;
            return Some(Answer::Rejected { reason, by });
        }
        let for_the_run = self.approved_for_run.contains(&tool);
        let by = if policy.approve.contains(&tool) {
            By::Rule
        } else if for_the_run {
            By::Person
        } else if !(self.steered || policy.person_present) {
            By::Nobody
        } else {
            return None;
        };
        let d = Decision::Approved {
            tool,
            agent,
            by,
            arguments: None,
            for_the_run,
        };
        self.decide(now, d, limits.max_decisions);
        Some(Answer::Approved { arguments: None })
    }
}
