//! The shared stop reasons in words an operator reads at a glance ("the
//! message budget ran out (12 of 12 used)"), in one table; a pattern's own
//! reasons are worded by its folder, reached through the pattern registry.
//! The wire name stays the reason's name; this is only what a viewer shows
//! beside it. Names in the words come from scenarios and models: a viewer
//! cleans them before they reach a terminal.

use super::StopReason;

/// What a stop's sentence may quote from the run besides the reason.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct StopFacts {
    /// Rounds a pattern that goes in rounds convened.
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
    /// The reason in words, with the run's figures where they say more. A
    /// pattern's own reason reads as one this function does not know: its
    /// pattern words it (`patterns::explain`).
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
            StopReason::AgentDenied { role } => {
                format!("{role} is in the speaking order but not allowed to run (flag off?)")
            }
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
            StopReason::MaxLlmCalls => facts.budget_ran_out("model call"),
            StopReason::CircuitOpen { tool } => {
                format!("{tool}'s circuit breaker was open: the call failed fast")
            }
            StopReason::BulkheadFull { tool } => {
                format!("{tool}'s bulkhead stayed full past its wait")
            }
            StopReason::RetryBudgetExhausted => "the run's retry budget ran out".into(),
            StopReason::MaxTokens => facts.tokens_ran_out(),
            StopReason::MaxCost => facts.dollars_ran_out(),
            StopReason::EscalatedToHuman => {
                "the run asked a person and nobody answered (answer with --decide)".into()
            }
            StopReason::CassetteMiss => {
                "the cassette does not hold a call the run made (the run's error names it)".into()
            }
            StopReason::ModelOutputCut => {
                "a model's answer was cut at its output limit, even after a repair (the run's error names the call)".into()
            }
            StopReason::ModelRefused => {
                "the model refused to answer (the run's error quotes it)".into()
            }
            StopReason::Pattern(reason) => {
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
}
