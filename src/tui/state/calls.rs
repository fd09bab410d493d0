//! The calls through the gateway a run is waiting on, as the panes name
//! them.

/// A call through the gateway that has started and not finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallInFlight {
    pub(crate) call: u64,
    /// `model`, or the worker or tool called.
    pub(crate) tool: String,
    pub(crate) attempt: u32,
    /// What the call is for, e.g. `round 2 · risk_analyst`.
    pub(crate) label: String,
}
