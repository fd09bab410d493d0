//! What a pattern's event measured on the run's clock: data only, read
//! by the registry of events and by the patterns that ask a cassette for
//! a recorded measure again.

/// A measure a recorded run took on its clock around its calls, which a
/// run served from the recording asks for again (see `cassette`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Measure {
    /// A member call's `latency_ms`, by the turn that asked for it and the
    /// member's path.
    MemberCall { turn: u32, member: String },
    /// The run time at which a research step ended, by its number.
    StepEnded(u32),
}
