//! Every stop reason in words an operator reads at a glance ("no consensus
//! after 3 rounds"), in one table. The wire name stays the reason's name;
//! this is only what a viewer shows beside it. Names in the words come from
//! scenarios and models: a viewer cleans them before they reach a terminal.

use super::StopReason;
use crate::words::plural;

/// What a stop's sentence may quote from the run besides the reason.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct StopFacts {
    /// Rounds the table convened (collaboration).
    pub(crate) rounds: Option<u32>,
    /// The count of the budget that stopped the run, and its limit.
    pub(crate) budget: Option<(u64, u64)>,
    /// The run clock when the run stopped.
    pub(crate) elapsed_ms: u64,
    /// Tokens the run's model calls used, and `budget.max_tokens`.
    pub(crate) tokens: Option<(u64, u64)>,
    /// Dollars the run's model calls cost, and `budget.max_cost_usd`.
    pub(crate) dollars: Option<(f64, f64)>,
}

impl StopReason {
    /// The reason in words, with the run's figures where they say more.
    pub(crate) fn explain(&self, facts: &StopFacts) -> String {
        match self {
            StopReason::Success => "completed".into(),
            StopReason::Cancelled => "cancelled by the operator".into(),
            StopReason::MaxSeconds => facts.out_of_time(),
            StopReason::LlmTimeout => "a model call timed out".into(),
            StopReason::LlmError => "a model call failed".into(),
            StopReason::LlmAuth => {
                "the model endpoint refused the credentials (check OPENAI_API_KEY)".into()
            }
            StopReason::LlmBadResponse => "the model's answer was not a chat completion".into(),
            StopReason::LlmUnavailable => {
                "the model stayed down or rate limited through every retry".into()
            }
            StopReason::LlmBadRequest => {
                "the model endpoint refused the request (an unknown model or path?)".into()
            }
            StopReason::LlmUnexpectedStatus => {
                "the model endpoint answered with an HTTP status it should not".into()
            }
            StopReason::LlmEmpty => "the model returned an empty answer".into(),
            StopReason::MaxMessages => facts.budget_ran_out("message"),
            StopReason::MaxRoundsReached => facts.no_consensus(),
            StopReason::AgentDenied { role } => {
                format!("{role} is in the speaking order but not allowed to run (flag off?)")
            }
            StopReason::InvalidContribution(e) => {
                format!("a contribution broke the contribution contract ({e})")
            }
            StopReason::InvalidPlan(e) => format!("the plan broke the plan contract ({e})"),
            StopReason::MaxDispatches => facts.budget_ran_out("dispatch"),
            StopReason::TaskTimeout => "a task's attempt ran past its timeout".into(),
            StopReason::WorkerDenied { worker } => {
                format!("{worker} is not allowed to run (flag off?)")
            }
            StopReason::WorkerBadArgs { worker } => {
                format!("{worker} was called with arguments it does not take")
            }
            StopReason::WorkerError { worker } => format!("{worker} failed"),
            StopReason::WorkerBadResult { worker } => {
                format!("{worker} answered with something that is not a JSON object")
            }
            StopReason::WorkerMissing { worker } => format!("no worker named {worker} exists"),
            StopReason::CriticalTaskFailed => "a critical task failed".into(),
            StopReason::MaxLlmCalls => facts.budget_ran_out("model call"),
            StopReason::NodeTimeout { agent } => {
                format!("{agent} held control past the node timeout")
            }
            StopReason::MemberTimeout { member } => {
                format!("{member} did not answer within the member timeout")
            }
            StopReason::UnknownMember { member } => {
                format!("the coordinator called {member}, who is not a member")
            }
            StopReason::InvalidTurn => "a model output was no turn the agent may take".into(),
            StopReason::InvalidStep(e) => {
                format!("a research step broke the step contract ({e})")
            }
            StopReason::InvalidSearchQuery => "the research plan searched for nothing".into(),
            StopReason::NoSourcesAfterDedupe => "the search found nothing to read".into(),
            StopReason::NoReliableSources => {
                "no note came out of the sources the policy let through".into()
            }
            StopReason::ToolInvalidOutput { tool } => {
                format!("{tool} answered outside its output contract")
            }
            StopReason::VerificationFailed { issue } => {
                format!("the verifier rejected the notes ({issue})")
            }
            StopReason::InvalidNotes(e) => format!("the notes broke the notes contract ({e})"),
            StopReason::InvalidAnswer(e) => {
                format!("the answer broke the answer contract ({e})")
            }
            StopReason::CircuitOpen { tool } => {
                format!("{tool}'s circuit breaker was open: the call failed fast")
            }
            StopReason::BulkheadFull { tool } => {
                format!("{tool}'s bulkhead stayed full past its wait")
            }
            StopReason::RetryBudgetExhausted => "the run's retry budget ran out".into(),
            StopReason::MaxTokens => facts.tokens_ran_out(),
            StopReason::MaxCost => facts.dollars_ran_out(),
            StopReason::EscalatedToHuman => facts.escalated(),
            StopReason::CassetteMiss => {
                "the cassette does not hold a call the run made (the run's error names it)".into()
            }
            StopReason::ModelOutputCut => {
                "a model's answer was cut at its output limit, even after a repair (the run's error names the call)".into()
            }
            StopReason::ModelRefused => {
                "the model refused to answer (the run's error quotes it)".into()
            }
            StopReason::Other(reason) => {
                format!("stopped for a reason this version does not know ({reason})")
            }
        }
    }
}

/// The sentences of the stops that quote the run's figures, each plain
/// when the run has no figure to quote.
impl StopFacts {
    fn out_of_time(&self) -> String {
        format!(
            "out of time: the run's time limit was reached at {:.1}s",
            self.elapsed_ms as f64 / 1000.0
        )
    }

    /// The `what` budget (messages, dispatches, model calls) ran out.
    fn budget_ran_out(&self, what: &str) -> String {
        match self.budget {
            Some((used, limit)) => format!("the {what} budget ran out ({used} of {limit} used)"),
            None => format!("the {what} budget ran out"),
        }
    }

    fn no_consensus(&self) -> String {
        match self.rounds {
            Some(rounds) => format!("no consensus after {}", plural(rounds.into(), "round")),
            None => "no consensus within the round limit".into(),
        }
    }

    fn tokens_ran_out(&self) -> String {
        match self.tokens {
            Some((used, limit)) => format!(
                "the token budget ran out ({} of {} tokens used)",
                crate::figures::thousands(used),
                crate::figures::thousands(limit)
            ),
            None => "the token budget ran out".into(),
        }
    }

    fn dollars_ran_out(&self) -> String {
        match self.dollars {
            Some((spent, limit)) => format!(
                "the dollar budget ran out (${} of ${} spent)",
                crate::figures::dollars(spent),
                crate::figures::dollars(limit)
            ),
            None => "the dollar budget ran out".into(),
        }
    }

    fn escalated(&self) -> String {
        match self.rounds {
            Some(rounds) => format!(
                "a blocking stance held the table for rounds in a row; the run asks a person after {} (answer with --decide)",
                plural(rounds.into(), "round")
            ),
            None => {
                "a blocking stance held the table; the run asks a person (answer with --decide)"
                    .into()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::every_reason;
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_reason_has_its_own_sentence() {
        let facts = StopFacts {
            rounds: Some(3),
            budget: Some((12, 12)),
            elapsed_ms: 40_000,
            tokens: Some((1250, 1000)),
            dollars: Some((0.0123, 0.01)),
        };
        let mut seen = HashSet::new();
        for reason in every_reason() {
            let words = reason.explain(&facts);
            assert!(!words.is_empty(), "{reason}");
            assert_ne!(words, reason.to_string(), "{reason} is more than its name");
            let wire = reason.to_string();
            let head = wire.split(':').next().unwrap_or_default();
            if head.contains('_') && !matches!(reason, StopReason::Other(_)) {
                assert!(
                    !words.contains(head),
                    "{reason}: {words:?} says more than its name"
                );
            }
            assert!(seen.insert(words.clone()), "{reason}: {words:?} said twice");
        }
    }

    #[test]
    fn sentences_quote_the_run_s_figures() {
        let facts = StopFacts {
            rounds: Some(3),
            budget: Some((8, 8)),
            elapsed_ms: 25_040,
            tokens: Some((12_345, 10_000)),
            dollars: Some((0.04213, 0.04)),
        };
        assert_eq!(
            StopReason::MaxRoundsReached.explain(&facts),
            "no consensus after 3 rounds"
        );
        assert_eq!(
            StopReason::MaxRoundsReached.explain(&StopFacts {
                rounds: Some(1),
                ..facts
            }),
            "no consensus after 1 round"
        );
        assert_eq!(
            StopReason::MaxDispatches.explain(&facts),
            "the dispatch budget ran out (8 of 8 used)"
        );
        assert_eq!(
            StopReason::MaxTokens.explain(&facts),
            "the token budget ran out (12,345 of 10,000 tokens used)"
        );
        assert_eq!(
            StopReason::MaxCost.explain(&facts),
            "the dollar budget ran out ($0.0421 of $0.04 spent)"
        );
        assert_eq!(
            StopReason::MaxCost.explain(&StopFacts::default()),
            "the dollar budget ran out"
        );
        assert_eq!(
            StopReason::EscalatedToHuman.explain(&StopFacts::default()),
            "a blocking stance held the table; the run asks a person (answer with --decide)"
        );
        assert_eq!(
            StopReason::MaxSeconds.explain(&facts),
            "out of time: the run's time limit was reached at 25.0s"
        );
        assert_eq!(
            StopReason::AgentDenied {
                role: "legal_analyst".into()
            }
            .explain(&StopFacts::default()),
            "legal_analyst is in the speaking order but not allowed to run (flag off?)"
        );
    }
}
