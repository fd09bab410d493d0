//! Which patterns ask a person a question at a gate, and what the fronts
//! need of it: the questions a scenario may ask (so that an answer given
//! on the command line is checked before anything runs) and the question
//! an event of the run raised (so that a dialog or a terminal shows it).
//! Each pattern's `Runner` says whether its runs ask, and how.

use crate::bus::{EventKind, GivenAnswer, NoSuchOption, Question};
use crate::scenario::{PatternKind, Scenario};

/// How a pattern asks.
pub(crate) struct Asking {
    /// Who asks, in words: `a round table that asks a person`.
    pub(crate) who: &'static str,
    /// What makes a scenario ask, in words.
    pub(crate) when: &'static str,
    /// The questions a run of the scenario may ask; none when it never
    /// asks.
    pub(crate) questions: fn(&Scenario) -> Vec<Question>,
    /// The question an event of a run raised, if it raised one.
    pub(crate) question_of: fn(&EventKind) -> Option<Question>,
}

/// How runs of `pattern` ask a person (its `Runner` says); `None` when
/// they never do.
pub(crate) fn asking(pattern: PatternKind) -> Option<&'static Asking> {
    super::runner(pattern).asking
}

/// The question `kind`, an event of a run of `pattern`, raised.
pub fn question_of(pattern: PatternKind, kind: &EventKind) -> Option<Question> {
    asking(pattern).and_then(|a| (a.question_of)(kind))
}

/// The questions a run of `scenario` may ask a person; none when it
/// never asks.
pub(crate) fn questions(scenario: &Scenario) -> Vec<Question> {
    asking(scenario.pattern)
        .map(|a| (a.questions)(scenario))
        .unwrap_or_default()
}

/// Why an answer given on the command line cannot be used for a run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GivenAnswerError {
    /// The scenario never asks a person anything.
    #[error("{flag} answers {who}, and this scenario never asks one: only {when} does")]
    NeverAsks {
        flag: &'static str,
        who: String,
        when: String,
    },
    /// No question the scenario may ask takes it.
    #[error("{flag}: {refused}")]
    NoSuchOption {
        flag: &'static str,
        refused: NoSuchOption,
    },
}

/// Whether `given` answers a question a run of `scenario` may ask: one of
/// them must offer it (the run takes it at the first that does).
pub(crate) fn check_given(
    scenario: &Scenario,
    given: &GivenAnswer,
) -> Result<(), GivenAnswerError> {
    let asking = asking(scenario.pattern);
    let questions = asking.map(|a| (a.questions)(scenario)).unwrap_or_default();
    if questions.is_empty() {
        let askers = every_asker();
        return Err(GivenAnswerError::NeverAsks {
            flag: given.flag,
            who: askers
                .iter()
                .map(|a| a.who)
                .collect::<Vec<_>>()
                .join(" or "),
            when: askers
                .iter()
                .map(|a| a.when)
                .collect::<Vec<_>>()
                .join(" or "),
        });
    }
    if questions.iter().any(|q| q.offers(&given.option)) {
        return Ok(());
    }
    let refused = questions[0].check(&given.option).expect_err("not offered");
    Err(GivenAnswerError::NoSuchOption {
        flag: given.flag,
        refused,
    })
}

/// Every pattern that may ask, in the order of the patterns.
fn every_asker() -> Vec<&'static Asking> {
    super::declared::PATTERNS
        .iter()
        .filter_map(|pattern| asking(*pattern))
        .collect()
}
