//! A pattern's own stop reason as every floor carries it: the string the
//! pattern declared (`invalid_plan:kind`, `node_timeout:billing`), and the
//! one thing a floor may need to know of it, its kind, which the string's
//! head names. The floors never name a pattern's reasons; a pattern reads
//! its typed form back with `StopReason::pattern`.

use super::StopFacts;
use std::fmt;

/// What a floor may know of a pattern's reason without knowing the
/// pattern: whether the model's answer broke the pattern's contract (the
/// run's error quotes the answer, the dashboard flags the run) or
/// something of the pattern ran out of time (a trace's `error.type` is
/// `timeout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopKind {
    /// The model's answer broke the pattern's contract: `invalid_…`.
    Contract,
    /// One of the pattern's own timeouts: `…_timeout`.
    Timeout,
    /// Anything else the pattern stops for.
    Plain,
}

impl StopKind {
    /// The kind a reason's wire string names by its head, the part before
    /// the first colon: how a floor knows it without asking the pattern,
    /// for a reason made in this run or read from a recording alike. Every
    /// pattern's reasons follow the rule: each pattern declares its kinds
    /// (`PatternReason::kind`), and its tests check them against it.
    pub(crate) fn of_wire(wire: &str) -> StopKind {
        let head = wire.split(':').next().unwrap_or_default();
        if head.starts_with("invalid_") {
            StopKind::Contract
        } else if head.ends_with("_timeout") {
            StopKind::Timeout
        } else {
            StopKind::Plain
        }
    }
}

/// A pattern's reason, opaque to the floors: its wire string, whose head
/// names its kind. A string no part of this build knows (a recording of
/// another version) is one too, and writes back as it was read. The kind
/// is read from the string rather than kept beside it, so a reason read
/// from a recording is the very reason its pattern made.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PatternStop {
    wire: Box<str>,
}

impl PatternStop {
    /// A reason read from its wire string.
    pub(crate) fn read(wire: &str) -> PatternStop {
        PatternStop { wire: wire.into() }
    }

    /// The pattern's typed reason as the floors carry it.
    pub(crate) fn of<R: PatternReason>(reason: &R) -> PatternStop {
        let stop = PatternStop::read(&reason.to_string());
        debug_assert_eq!(
            stop.kind(),
            reason.kind(),
            "{stop}: a pattern's reason names its kind by its head"
        );
        stop
    }

    pub(crate) fn wire(&self) -> &str {
        &self.wire
    }

    /// What the floors may know of the reason, from its head.
    pub(crate) fn kind(&self) -> StopKind {
        StopKind::of_wire(&self.wire)
    }
}

impl fmt::Display for PatternStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.wire)
    }
}

/// What a pattern declares of each of its stop reasons: its wire string
/// (`Display`, as its reference writes it), its kind, how it reads back,
/// and its sentence for a person.
pub(crate) trait PatternReason: fmt::Display + Sized {
    /// What the floors may know of the reason.
    fn kind(&self) -> StopKind;

    /// The reason of this pattern that `wire` names, if it names one.
    fn read(wire: &str) -> Option<Self>;

    /// The reason in words an operator reads at a glance, with the run's
    /// figures where they say more.
    fn explain(&self, facts: &StopFacts) -> String;
}
