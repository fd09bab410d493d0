//! The research pattern's own stop reasons, named as 004 names them, and
//! their sentences: a plan, a step, the notes or the answer that broke
//! their contract (`invalid_step:args`), a tool that answered outside its
//! own (`tool_invalid_output:read_source`), the verifier's rejection, and
//! sources that ran dry. The floors carry them as opaque strings
//! (`StopReason::Pattern`).

use crate::stop::{PatternReason, StopFacts, StopKind, StopReason};
use std::fmt;
use std::str::FromStr;

/// Why a research run stops, beyond the reasons every pattern shares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ResearchStop {
    /// The plan failed the plan contract (004's `validate_plan`).
    InvalidPlan(PlanError),
    /// A plan step failed the step contract (004's `validate_plan`).
    InvalidStep(StepError),
    /// The research plan's search step has an empty query.
    InvalidSearchQuery,
    /// The search found nothing to read.
    NoSourcesAfterDedupe,
    /// No note came out of the sources the policy let through.
    NoReliableSources,
    /// A research tool answered outside its output contract (or failed).
    ToolInvalidOutput { tool: String },
    /// The verifier found a problem in the notes; the first one it named.
    VerificationFailed { issue: String },
    /// The extracted notes failed the notes contract.
    InvalidNotes(NotesError),
    /// The synthesis failed the answer contract.
    InvalidAnswer(AnswerError),
}

impl fmt::Display for ResearchStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResearchStop::InvalidPlan(e) => write!(f, "invalid_plan:{e}"),
            ResearchStop::InvalidStep(e) => write!(f, "invalid_step:{e}"),
            ResearchStop::InvalidSearchQuery => f.write_str("invalid_search:query"),
            ResearchStop::NoSourcesAfterDedupe => f.write_str("no_sources_after_dedupe"),
            ResearchStop::NoReliableSources => f.write_str("no_reliable_sources"),
            ResearchStop::ToolInvalidOutput { tool } => write!(f, "tool_invalid_output:{tool}"),
            ResearchStop::VerificationFailed { issue } => write!(f, "verification_failed:{issue}"),
            ResearchStop::InvalidNotes(e) => write!(f, "invalid_notes:{e}"),
            ResearchStop::InvalidAnswer(e) => write!(f, "invalid_answer:{e}"),
        }
    }
}

impl PatternReason for ResearchStop {
    fn kind(&self) -> StopKind {
        match self {
            ResearchStop::InvalidPlan(_)
            | ResearchStop::InvalidStep(_)
            | ResearchStop::InvalidSearchQuery
            | ResearchStop::InvalidNotes(_)
            | ResearchStop::InvalidAnswer(_) => StopKind::Contract,
            ResearchStop::NoSourcesAfterDedupe
            | ResearchStop::NoReliableSources
            | ResearchStop::ToolInvalidOutput { .. }
            | ResearchStop::VerificationFailed { .. } => StopKind::Plain,
        }
    }

    fn read(wire: &str) -> Option<Self> {
        match wire {
            "invalid_search:query" => return Some(ResearchStop::InvalidSearchQuery),
            "no_sources_after_dedupe" => return Some(ResearchStop::NoSourcesAfterDedupe),
            "no_reliable_sources" => return Some(ResearchStop::NoReliableSources),
            _ => {}
        }
        let (head, rest) = wire.split_once(':')?;
        Some(match head {
            "invalid_plan" => ResearchStop::InvalidPlan(rest.parse().ok()?),
            "invalid_step" => ResearchStop::InvalidStep(rest.parse().ok()?),
            "invalid_notes" => ResearchStop::InvalidNotes(rest.parse().ok()?),
            "invalid_answer" => ResearchStop::InvalidAnswer(rest.parse().ok()?),
            "tool_invalid_output" => ResearchStop::ToolInvalidOutput { tool: rest.into() },
            "verification_failed" => ResearchStop::VerificationFailed { issue: rest.into() },
            _ => return None,
        })
    }

    fn explain(&self, _: &StopFacts) -> String {
        match self {
            ResearchStop::InvalidPlan(e) => format!("the plan broke the plan contract ({e})"),
            ResearchStop::InvalidStep(e) => {
                format!("a research step broke the step contract ({e})")
            }
            ResearchStop::InvalidSearchQuery => "the research plan searched for nothing".into(),
            ResearchStop::NoSourcesAfterDedupe => "the search found nothing to read".into(),
            ResearchStop::NoReliableSources => {
                "no note came out of the sources the policy let through".into()
            }
            ResearchStop::ToolInvalidOutput { tool } => {
                format!("{tool} answered outside its output contract")
            }
            ResearchStop::VerificationFailed { issue } => {
                format!("the verifier rejected the notes ({issue})")
            }
            ResearchStop::InvalidNotes(e) => format!("the notes broke the notes contract ({e})"),
            ResearchStop::InvalidAnswer(e) => {
                format!("the answer broke the answer contract ({e})")
            }
        }
    }
}

impl From<ResearchStop> for StopReason {
    fn from(reason: ResearchStop) -> Self {
        StopReason::of_pattern(&reason)
    }
}

/// The research pattern's words for its own stops.
pub(crate) fn explain(reason: &StopReason, facts: &StopFacts) -> Option<String> {
    reason
        .pattern::<ResearchStop>()
        .map(|own| own.explain(facts))
}

/// The research plan's contract, after `invalid_plan:`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum PlanError {
    /// The plan holds no list of steps.
    Steps,
    /// More steps than `max_steps`.
    TooManySteps,
    /// The steps' actions are not the bounded workflow, in order.
    StepSequence,
}

/// A plan step's contract, in the order 004's `validate_plan` checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum StepError {
    NotObject,
    Id,
    Action,
    Args,
}

/// The notes contract, in the order 004's `validate_notes` checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum NotesError {
    Empty,
    TooMany,
    Item,
    Id,
    Url,
    Claim,
    Quote,
}

/// The answer contract, in the order 004's `validate_synthesis` checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum AnswerError {
    Empty,
    TooLong,
    Citations,
    CitationUnknown,
}

/// Each error's wire name, both ways.
macro_rules! wire_names {
    ($kind:ty { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl fmt::Display for $kind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(match self {
                    $(Self::$variant => $name,)+
                })
            }
        }

        impl FromStr for $kind {
            type Err = ();

            fn from_str(s: &str) -> Result<Self, ()> {
                match s {
                    $($name => Ok(Self::$variant),)+
                    _ => Err(()),
                }
            }
        }
    };
}

wire_names!(PlanError {
    Steps => "steps",
    TooManySteps => "too_many_steps",
    StepSequence => "step_sequence",
});

wire_names!(StepError {
    NotObject => "not_object",
    Id => "id",
    Action => "action",
    Args => "args",
});

wire_names!(NotesError {
    Empty => "empty",
    TooMany => "too_many",
    Item => "item",
    Id => "id",
    Url => "url",
    Claim => "claim",
    Quote => "quote",
});

wire_names!(AnswerError {
    Empty => "empty",
    TooLong => "too_long",
    Citations => "citations",
    CitationUnknown => "citation_unknown",
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::stops_tests::check_reasons;

    #[test]
    fn every_reason_reads_back_and_has_its_own_sentence() {
        let mut reasons = vec![
            ResearchStop::InvalidSearchQuery,
            ResearchStop::NoSourcesAfterDedupe,
            ResearchStop::NoReliableSources,
            ResearchStop::ToolInvalidOutput {
                tool: "read_source".into(),
            },
            ResearchStop::VerificationFailed {
                issue: "quote_too_short".into(),
            },
        ];
        use PlanError as P;
        let plans = [P::Steps, P::TooManySteps, P::StepSequence];
        reasons.extend(plans.into_iter().map(ResearchStop::InvalidPlan));
        use StepError as S;
        let steps = [S::NotObject, S::Id, S::Action, S::Args];
        reasons.extend(steps.into_iter().map(ResearchStop::InvalidStep));
        use NotesError as N;
        let notes = [
            N::Empty,
            N::TooMany,
            N::Item,
            N::Id,
            N::Url,
            N::Claim,
            N::Quote,
        ];
        reasons.extend(notes.into_iter().map(ResearchStop::InvalidNotes));
        use AnswerError as A;
        let answers = [A::Empty, A::TooLong, A::Citations, A::CitationUnknown];
        reasons.extend(answers.into_iter().map(ResearchStop::InvalidAnswer));
        check_reasons(reasons, explain);
    }
}
