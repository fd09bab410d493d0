//! A run's result in named values, published beside the result document
//! the references define: the values its pattern declares (a decision, a
//! health, an agent, the notes cited; `Registry::figures`), the answer
//! among them, whether it fell short, and the counts its runner kept.
//! Each pattern's runner fills it by the names it declares, and viewers
//! read it back the same way; this floor spells none of them. Nothing
//! reads it out of the document, except for recordings written before it
//! existed (`RunSummary::of_result`), by where each pattern declares its
//! values were written.

use super::figures::{ANSWER, Was};
use super::pattern::{Patterns, Registry};
use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

pub(crate) use super::figures::FAILED_TASKS;

/// Written as one JSON object: the values in their pattern's order, then
/// `partial` and `degraded` where they say something, then `counts`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    /// The pattern's values and the answer, by name, in the order written.
    values: Vec<(String, Value)>,
    /// Safe mode skipped calls that failed fast: the result lacks their
    /// part.
    pub(crate) partial: bool,
    /// The tools safe mode skipped, in the order first skipped.
    pub(crate) degraded: Vec<String>,
    pub(crate) counts: RunCounts,
}

/// What a run used of the budgets its pattern counts, by the names its
/// pattern declares, in its order; a count the pattern does not keep is
/// not there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RunCounts(Vec<(String, u64)>);

/// Where `name` goes in `order`: names it does not list go last.
fn place(order: &[&str], name: &str) -> usize {
    order.iter().position(|o| *o == name).unwrap_or(usize::MAX)
}

impl RunCounts {
    /// The counts given, each in its pattern's place.
    pub(crate) fn of<'n>(named: impl IntoIterator<Item = (&'n str, u64)>) -> RunCounts {
        let mut counts = RunCounts::default();
        for (name, n) in named {
            counts.set(name, n);
        }
        counts
    }

    /// The count of this name, when the run has it.
    pub(crate) fn get(&self, name: &str) -> Option<u64> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// Set a count, in its pattern's place among the others.
    pub(crate) fn set(&mut self, name: &str, n: u64) {
        if let Some((_, value)) = self.0.iter_mut().find(|(had, _)| had == name) {
            *value = n;
            return;
        }
        let order = &Patterns::summary_order().1;
        let at = self
            .0
            .iter()
            .position(|(had, _)| place(order, had) > place(order, name))
            .unwrap_or(self.0.len());
        self.0.insert(at, (name.to_string(), n));
    }
}

impl RunSummary {
    /// Set the value of `name`, in its pattern's place among the others; a
    /// null or an empty list leaves it out, as a run without it.
    pub(crate) fn put(&mut self, name: &str, value: impl Serialize) {
        let value = serde_json::to_value(value).unwrap_or(Value::Null);
        self.values.retain(|(had, _)| had != name);
        if says_nothing(&value) {
            return;
        }
        let order = &Patterns::summary_order().0;
        let at = self
            .values
            .iter()
            .position(|(had, _)| place(order, had) > place(order, name))
            .unwrap_or(self.values.len());
        self.values.insert(at, (name.to_string(), value));
    }

    /// The value of `name`, when the run has it.
    pub(crate) fn value(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The value of `name` read back as the type its pattern wrote it
    /// from; `None` when the run has none (or one of another type).
    pub(crate) fn read<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        T::deserialize(self.value(name)?).ok()
    }

    /// The answer or brief, when the run gave one.
    pub fn answer(&self) -> Option<&str> {
        self.value(ANSWER.name)?.as_str()
    }

    /// Give the run's answer or brief.
    pub(crate) fn set_answer(&mut self, answer: Option<String>) {
        self.put(ANSWER.name, answer);
    }

    /// The value of `name` when it is text, as written: a verdict word
    /// (`decision`, `health`) or a name (`final_agent`), for the viewers
    /// that show any run's verdict without knowing its pattern's types.
    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        self.value(name)?.as_str()
    }

    /// Whether a run that finished did less than it was asked: safe mode
    /// skipped calls, or tasks failed. Such a run reads as partial, in
    /// its own colour, wherever its outcome is shown.
    pub(crate) fn falls_short(&self) -> bool {
        self.partial || self.counts.get(FAILED_TASKS).is_some_and(|n| n > 0)
    }

    /// The summary a recording made before summaries were published stands
    /// for, read from its result document where each pattern declares its
    /// values and counts were written. A document that is not one (or a
    /// field of the wrong type) gives an empty summary.
    pub(crate) fn of_result(result: &Value) -> RunSummary {
        written(result).unwrap_or_default()
    }
}

/// Whether a value says nothing a summary writes: null, or an empty list.
fn says_nothing(value: &Value) -> bool {
    value.is_null() || value.as_array().is_some_and(Vec::is_empty)
}

/// What a document written before summaries holds: `None` when a field is
/// of the wrong type.
fn written(result: &Value) -> Option<RunSummary> {
    let mut summary = RunSummary::default();
    let at = |pointer: &str| result.pointer(pointer).filter(|v| !v.is_null());
    for declared in Patterns::figures() {
        for figure in declared.summary {
            match figure.was {
                Was::Value(pointer) => {
                    if let Some(value) = at(pointer) {
                        summary.put(figure.name, value);
                    }
                }
                Was::Length(pointer) => {
                    if let Some(list) = at(pointer) {
                        summary.put(figure.name, list.as_array()?.len());
                    }
                }
                Was::Nowhere => {}
            }
        }
        for count in declared.counts {
            let n = match count.was {
                Was::Value(pointer) => at(pointer).map(|v| v.as_u64()),
                Was::Length(pointer) => at(pointer).map(|v| v.as_array().map(|l| l.len() as u64)),
                Was::Nowhere => None,
            };
            if let Some(n) = n {
                summary.counts.set(count.name, n?);
            }
        }
    }
    if let Some(partial) = at("/partial") {
        summary.partial = partial.as_bool()?;
    }
    if let Some(degraded) = at("/degraded") {
        summary.degraded = Vec::deserialize(degraded).ok()?;
    }
    Some(summary)
}

impl Serialize for RunSummary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (name, value) in &self.values {
            map.serialize_entry(name, value)?;
        }
        if self.partial {
            map.serialize_entry("partial", &true)?;
        }
        if !self.degraded.is_empty() {
            map.serialize_entry("degraded", &self.degraded)?;
        }
        map.serialize_entry("counts", &self.counts)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for RunSummary {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RunSummary, D::Error> {
        struct Summary;
        impl<'de> Visitor<'de> for Summary {
            type Value = RunSummary;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a run summary")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RunSummary, A::Error> {
                let mut summary = RunSummary::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "partial" => summary.partial = map.next_value()?,
                        "degraded" => summary.degraded = map.next_value()?,
                        "counts" => summary.counts = map.next_value()?,
                        _ => {
                            // In the order written, which is the pattern's.
                            let value: Value = map.next_value()?;
                            if !says_nothing(&value) {
                                summary.values.retain(|(had, _)| *had != key);
                                summary.values.push((key, value));
                            }
                        }
                    }
                }
                Ok(summary)
            }
        }
        deserializer.deserialize_map(Summary)
    }
}

impl Serialize for RunCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, n) in &self.0 {
            map.serialize_entry(name, n)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for RunCounts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RunCounts, D::Error> {
        struct Counts;
        impl<'de> Visitor<'de> for Counts {
            type Value = RunCounts;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of counts by name")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RunCounts, A::Error> {
                let mut counts = Vec::new();
                while let Some((name, n)) = map.next_entry::<String, Option<u64>>()? {
                    if let Some(n) = n {
                        counts.push((name, n));
                    }
                }
                Ok(RunCounts(counts))
            }
        }
        deserializer.deserialize_map(Counts)
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
