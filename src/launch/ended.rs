//! How a launched run ended: the program's own exit, a stop from outside,
//! or its run's endpoint (a budget spent, a cassette's miss).

/// A budget the run went past: its name (`max_tokens`, `max_cost`,
/// `max_calls`) and what the endpoint said of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetSpent {
    pub budget: String,
    pub message: String,
}

/// Why the run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The program exited by itself (its status says how).
    Exited,
    /// It ran past `max_seconds` and was stopped.
    MaxSeconds,
    /// A person (or the steering's stop) stopped it: why.
    Stopped(String),
    /// Conclave itself was told to end (Ctrl-C): the signal's number.
    Interrupted(crate::exit::Signal),
    /// The run went past a budget of its model calls.
    Budget(BudgetSpent),
    /// A model call the cassette does not hold: the first difference.
    CassetteMiss(String),
}
