//! `--answer` (and `--decide`, its older name, kept for scripts): an
//! answer given in advance to a question a run asks a person. The value is
//! any option name here; the question's options check it before the run
//! starts (exit 2 naming them when none takes it).

use clap::Args;
use conclave::bus::GivenAnswer;

/// The answer to the first question a run asks a person that offers it.
#[derive(Args, Debug, Default, Clone)]
pub(crate) struct AnswerArgs {
    /// Answer in advance the first question the run asks a person that
    /// offers OPTION: the round table's, with
    /// budget.escalate_after_blocking_rounds (go, go_with_caution, no_go or
    /// continue), or a graph's human node (its options). OPTION is checked against the options of the questions
    /// the scenario may ask; when none takes it, or the scenario asks
    /// nothing, the command exits 2 naming them. Without it a question
    /// nobody answers takes its default, or the run stops there (the round
    /// table with escalated_to_human).
    #[arg(long, value_name = "OPTION", conflicts_with = "decide")]
    answer: Option<String>,
    /// The same as --answer, by the name the round table's question first
    /// had: go|go_with_caution|no_go|continue, checked as --answer is.
    #[arg(long, value_name = "OPTION")]
    decide: Option<String>,
}

impl AnswerArgs {
    /// `--answer` as written, for a launched run's fork (a file), and
    /// whether `--decide` was given (which such a fork refuses).
    pub(crate) fn as_written(&self) -> (Option<&str>, bool) {
        (self.answer.as_deref(), self.decide.is_some())
    }

    /// The answer given, and the flag it was given with.
    pub(crate) fn given(&self) -> Option<GivenAnswer> {
        match (&self.answer, &self.decide) {
            (Some(option), _) => Some(GivenAnswer::new(option.clone(), "--answer")),
            (None, Some(option)) => Some(GivenAnswer::new(option.clone(), "--decide")),
            (None, None) => None,
        }
    }
}
