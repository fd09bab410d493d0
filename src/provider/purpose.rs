//! What a model call is for, as the pattern that makes the call names it:
//! the provider reads a call's purpose, never the pattern behind it. A
//! purpose carries how the sim answers it (`SimScript`): where in the
//! scenario's `provider` script its outputs are, and what the sim writes
//! when the script has none. The sim plays whatever a purpose's script
//! says; it never knows which pattern asked.

use super::{ModelOutput, ProviderError};
use crate::scenario::{JsonText, ProviderSpec};
use serde_json::Value;

/// What a model call is for, as the pattern that makes the call built it:
/// its name in recordings, who speaks and who spends, the words its prompt
/// is filled with and how the sim answers it. The provider never tells
/// patterns apart: it reads a purpose only through these.
#[derive(Clone, Debug)]
pub(crate) struct Purpose {
    /// As a recording names the call, to match it by: `plan`,
    /// `final_brief`, a role's or an agent's call with its name after a
    /// colon. Cassettes hold these: they never change.
    label: String,
    /// The key of the call's outputs in a sim script, which counts the
    /// calls made (a member team's agent is scripted as `TEAM/AGENT`).
    script_key: String,
    /// The role or agent the call speaks for, when it speaks for one.
    speaker: Option<String>,
    /// Who spends the call's tokens, as the run's `usage.by_agent` names
    /// them.
    spender: String,
    /// The words the prompt's `{{placeholders}}` are filled with.
    fills: Vec<(&'static str, String)>,
    /// How the sim answers the call.
    sim: &'static dyn SimScript,
}

impl Purpose {
    /// A call named `label` in recordings, scripted under `script_key` and
    /// answered by `sim` when the sim plays the model; it speaks for no one
    /// and `spender` spends its tokens.
    pub(crate) fn new(
        label: impl Into<String>,
        script_key: impl Into<String>,
        spender: impl Into<String>,
        sim: &'static dyn SimScript,
    ) -> Self {
        Purpose {
            label: label.into(),
            script_key: script_key.into(),
            speaker: None,
            spender: spender.into(),
            fills: Vec::new(),
            sim,
        }
    }

    /// The purpose, spoken by `speaker` (a role or an agent's path).
    pub(crate) fn spoken_by(mut self, speaker: impl Into<String>) -> Self {
        self.speaker = Some(speaker.into());
        self
    }

    /// The purpose, its prompt's `{{placeholder}}` filled with `text`.
    pub(crate) fn filling(mut self, placeholder: &'static str, text: impl Into<String>) -> Self {
        self.fills.push((placeholder, text.into()));
        self
    }

    /// The key of this purpose's outputs in a sim script.
    pub(crate) fn script_key(&self) -> &str {
        &self.script_key
    }

    /// The role or agent the call speaks for, when it speaks for one.
    pub(crate) fn agent(&self) -> Option<&str> {
        self.speaker.as_deref()
    }

    /// The purpose as a recording names it, to match a call by.
    pub(crate) fn key(&self) -> String {
        self.label.clone()
    }

    /// Who spends the call's tokens, as the run's `usage.by_agent` names
    /// them.
    pub(crate) fn spender(&self) -> &str {
        &self.spender
    }

    /// The words the prompt's placeholders are filled with, by name.
    pub(crate) fn fills(&self) -> &[(&'static str, String)] {
        &self.fills
    }

    /// How the sim answers the call.
    pub(crate) fn sim(&self) -> &'static dyn SimScript {
        self.sim
    }
}

#[cfg(test)]
impl Purpose {
    /// A test's call named and spent by `label`, which no scenario
    /// scripts.
    pub(crate) fn unscripted(label: &str) -> Self {
        Purpose::new(label, label, label, &super::sim::Unscripted)
    }
}

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
