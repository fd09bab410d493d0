//! The research contracts' rejections, named as 004 names them after
//! `invalid_step:`, `invalid_notes:` and `invalid_answer:`. Data only: the
//! research pattern decides when each applies.

use std::fmt;
use std::str::FromStr;

/// A plan step's contract, in the order 004's `validate_plan` checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StepError {
    NotObject,
    Id,
    Action,
    Args,
}

/// The notes contract, in the order 004's `validate_notes` checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NotesError {
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
pub enum AnswerError {
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
