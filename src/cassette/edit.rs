//! A fork's edit of a recorded output: `--output review:/verdict=approve`
//! serves the node's (the call purpose's) last answer before the fork's
//! gate with one value changed, so the run routes as if the model had
//! said so, and goes live from the gate on that path.
//!
//! The edit is of what was recorded, not of the run: the cassette serves
//! the edited answer where it served the recorded one, and everything the
//! run decided from it (a graph's route, a state write) follows as it
//! would have.

use super::{Cassette, Recorded};
use crate::bus::cassette::{Answer, RawJson};
use crate::provider::lenient::{Lenient, read};
use serde_json::Value;
use std::fmt;
use std::str::FromStr;
use std::sync::PoisonError;

/// One value of one recorded output to change: `NODE:POINTER=VALUE`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputEdit {
    /// The node whose output it is: the name in the purpose its model
    /// calls were recorded under (`review` for `node:review`).
    pub node: String,
    /// A JSON Pointer into the output (`/verdict`); empty for the whole.
    pub pointer: String,
    pub value: Value,
}

/// Why an edit cannot be read or made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--output {given:?}: {reason}")]
pub struct EditError {
    given: String,
    reason: String,
}

impl fmt::Display for OutputEdit {
    /// As it is given on the command line, the value as JSON.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}={}", self.node, self.pointer, self.value)
    }
}

impl FromStr for OutputEdit {
    type Err = EditError;

    /// `NODE:POINTER=VALUE`: the value is read as JSON, and taken as a
    /// string when it is none (`verdict=approve` means `"approve"`).
    fn from_str(given: &str) -> Result<Self, EditError> {
        let refuse = |reason: &str| EditError {
            given: given.to_string(),
            reason: reason.to_string(),
        };
        let (node, rest) = given
            .split_once(':')
            .ok_or_else(|| refuse("expected NODE:/POINTER=VALUE, e.g. review:/verdict=approve"))?;
        let (pointer, value) = rest
            .split_once('=')
            .ok_or_else(|| refuse("expected =VALUE after the pointer"))?;
        if node.trim().is_empty() {
            return Err(refuse("the node is empty"));
        }
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return Err(refuse("a JSON Pointer starts with '/' (e.g. /verdict)"));
        }
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.into()));
        Ok(OutputEdit {
            node: node.trim().to_string(),
            pointer: pointer.to_string(),
            value,
        })
    }
}

impl OutputEdit {
    /// Whether a call recorded for `purpose` speaks for the edit's node:
    /// the purpose is the node's name, or its kind and the name
    /// (`node:review`, `turn:billing`).
    fn names(&self, purpose: &str) -> bool {
        purpose == self.node
            || purpose
                .split_once(':')
                .is_some_and(|(_, name)| name == self.node)
    }
}

impl Cassette {
    /// The cassette with `edit` made to the last answer of its node
    /// recorded before event `before` (the seq of the event that opened
    /// the fork's gate).
    pub(crate) fn edit_output(&self, edit: &OutputEdit, before: u64) -> Result<(), EditError> {
        let refuse = |reason: String| EditError {
            given: edit.to_string(),
            reason,
        };
        let mut shelves = self.shelves.lock().unwrap_or_else(PoisonError::into_inner);
        let last = shelves
            .iter_mut()
            .filter(|((_, purpose), _)| purpose.as_deref().is_some_and(|p| edit.names(p)))
            .flat_map(|(_, shelf)| shelf.calls.iter_mut())
            .filter(|recorded| recorded.seq < before && recorded.record.answer.is_some())
            .max_by_key(|recorded| recorded.seq);
        let Some(recorded) = last else {
            return Err(refuse(format!(
                "no answer of {:?} was recorded before the fork's gate",
                edit.node
            )));
        };
        edited(recorded, edit).map_err(refuse)
    }
}

/// `recorded` with its answer changed as `edit` says.
fn edited(recorded: &mut Recorded, edit: &OutputEdit) -> Result<(), String> {
    let answer = recorded
        .record
        .answer
        .as_mut()
        .expect("filtered on an answer");
    let mut output = match &*answer {
        Answer::Json(json) => serde_json::from_str(json.text()).unwrap_or(Value::Null),
        Answer::Text(text) => match read(text) {
            Lenient::Whole => serde_json::from_str(text.trim())
                .map_err(|_| "its recorded answer is no JSON".to_string())?,
            Lenient::Found(value, _) => value,
            _ => return Err("its recorded answer holds no one JSON object".into()),
        },
        Answer::Observation(value) => value.clone(),
        _ => return Err("its recorded call failed: it has no output to edit".into()),
    };
    set(&mut output, &edit.pointer, edit.value.clone())?;
    *answer = match &*answer {
        Answer::Observation(_) => Answer::Observation(output),
        _ => Answer::Json(RawJson::of(&output)),
    };
    // The streamed text was the recorded answer's: the edited one is
    // served whole.
    recorded.deltas.retain(|delta| delta.reasoning);
    Ok(())
}

/// Set the value at `pointer` in `output`, adding the last key to an
/// object that lacks it.
fn set(output: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        *output = value;
        return Ok(());
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    match output.pointer_mut(parent) {
        Some(Value::Object(object)) => {
            object.insert(key, value);
            Ok(())
        }
        Some(Value::Array(items)) => {
            let slot = key
                .parse::<usize>()
                .ok()
                .and_then(|at| items.get_mut(at))
                .ok_or_else(|| format!("{pointer}: no such item in the output"))?;
            *slot = value;
            Ok(())
        }
        _ => Err(format!("{pointer}: the output has no object there")),
    }
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
