//! The calls through the gateway a run is waiting on, as the panes name
//! them.

use super::partial::PartialText;

/// A call through the gateway that has started and not finished.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallInFlight {
    pub(crate) call: u64,
    /// `model`, or the worker or tool called.
    pub(crate) tool: String,
    pub(crate) attempt: u32,
    /// What the call is for, e.g. `round 2 · risk_analyst`.
    pub(crate) label: String,
    /// The role or agent a model call speaks for.
    pub(crate) agent: Option<String>,
    /// A streamed model call's text so far, dropped with the call when it
    /// finishes.
    pub(crate) text: PartialText,
}
