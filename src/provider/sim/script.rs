//! The script of a test's call that no scenario scripts. How a pattern
//! tells the sim to answer its calls (`SimScript`, `Script`) stands with
//! the purpose that carries it.

use crate::provider::{ModelOutput, ProviderError, Purpose};
use crate::scenario::ProviderSpec;
use serde_json::Value;

use super::{Script, SimScript};

/// The script of a test's call that no scenario scripts: the sim answers
/// it with a failure.
#[derive(Debug)]
pub(crate) struct Unscripted;

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
