//! How a pattern tells the sim to answer its calls: where in the
//! scenario's `provider` script a purpose's outputs are, and what the sim
//! writes when the script has none. The sim plays whatever a purpose's
//! script says; it never knows which pattern asked.

use crate::provider::{ModelOutput, ProviderError, Purpose};
use crate::scenario::{JsonText, ProviderSpec};
use serde_json::Value;

/// Where a purpose's outputs stand in the scenario's script.
pub(crate) enum Script<'a> {
    /// None scripted: the sim writes its own answer.
    None,
    /// Outputs consumed one per call (a single value is the only one);
    /// the last one repeats.
    Outputs(&'a Value),
    /// As `Outputs`, and an object output may carry its own `latency_ms`,
    /// taken as the call's latency and out of the answer.
    TimedOutputs(&'a Value),
    /// As `Outputs`, kept as the scenario's text: a plan of 100,000 tasks
    /// is read as it is checked, never held as one value.
    Text(&'a JsonText),
    /// One answer given whole, the same to every call: no call is counted.
    Whole(Value),
}

/// How the sim answers one kind of a pattern's calls. A pattern's sim
/// script implements it in the pattern's folder; a `Purpose` carries it.
pub(crate) trait SimScript: Send + Sync + std::fmt::Debug {
    /// Where `purpose`'s outputs are in `spec`.
    fn script<'a>(&self, spec: &'a ProviderSpec, purpose: &Purpose) -> Script<'a>;

    /// The sim's answer when `spec` scripts no output for `purpose`,
    /// written from the call's `payload`.
    fn unscripted(&self, purpose: &Purpose, payload: &Value) -> Result<ModelOutput, ProviderError>;
}

/// The script of a test's call that no scenario scripts: the sim answers
/// it with a failure.
#[cfg(test)]
#[derive(Debug)]
pub(crate) struct Unscripted;

#[cfg(test)]
impl SimScript for Unscripted {
    fn script<'a>(&self, _: &'a ProviderSpec, _: &Purpose) -> Script<'a> {
        Script::None
    }

    fn unscripted(&self, purpose: &Purpose, _: &Value) -> Result<ModelOutput, ProviderError> {
        Err(ProviderError::Failed(format!(
            "the sim has no script for {}",
            purpose.key()
        )))
    }
}
