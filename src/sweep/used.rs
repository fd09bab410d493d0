//! What a run used of the budgets its pattern counts, by the names its
//! pattern declares (`patterns::figures`), in the pattern's order. The
//! sweep loops over those names and never spells one: a pattern with a
//! new figure declares it, and the document, the tally and the bars show
//! it.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Named counts in their pattern's order, written as a JSON object in
/// that order (`{"waves": 2, "dispatches": 5}`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Used(Vec<(String, u64)>);

impl Used {
    /// The counts as given, in their order; a name given twice keeps its
    /// first place and its last value.
    pub fn new<N: AsRef<str>>(named: impl IntoIterator<Item = (N, u64)>) -> Used {
        let mut used = Used::default();
        for (name, n) in named {
            used.set(name.as_ref(), n);
        }
        used
    }

    fn set(&mut self, name: &str, n: u64) {
        match self.0.iter_mut().find(|(had, _)| had == name) {
            Some((_, value)) => *value = n,
            None => self.0.push((name.to_string(), n)),
        }
    }

    /// Each measure this run has, by its name in the sweep document, in
    /// its pattern's order.
    pub fn named(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(name, n)| (name.as_str(), *n))
    }

    /// The count of this name, when the run has it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.named().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

/// The names of many runs' measures in one order that keeps each run's
/// (`patterns::figures::merged`), so runs of one pattern that lack a
/// measure still list the rest in the pattern's order.
pub(crate) fn merged_names<'r>(runs: impl IntoIterator<Item = &'r Used>) -> Vec<&'r str> {
    crate::patterns::figures::merged(runs.into_iter().map(|used| used.named().map(|(n, _)| n)))
}

impl Serialize for Used {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, n) in &self.0 {
            map.serialize_entry(name, n)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Used {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Used, D::Error> {
        struct Named;
        impl<'de> Visitor<'de> for Named {
            type Value = Used;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of counts by name")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Used, A::Error> {
                let mut used = Used::default();
                while let Some((name, n)) = map.next_entry::<String, Option<u64>>()? {
                    // A count written as null is one the run did not have.
                    if let Some(n) = n {
                        used.set(&name, n);
                    }
                }
                Ok(used)
            }
        }
        deserializer.deserialize_map(Named)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_are_written_and_read_in_their_order() {
        let used = Used::new([("waves", 2), ("dispatches", 5)]);
        let text = serde_json::to_string(&used).unwrap();
        assert_eq!(text, r#"{"waves":2,"dispatches":5}"#);
        assert_eq!(serde_json::from_str::<Used>(&text).unwrap(), used);
        assert_eq!(
            serde_json::from_value::<Used>(json!({"rounds": null, "steps": 3})).unwrap(),
            Used::new([("steps", 3)])
        );
        assert_eq!(serde_json::to_string(&Used::default()).unwrap(), "{}");
    }

    #[test]
    fn names_merge_in_each_run_s_order() {
        let runs = [
            Used::new([("dispatches", 4)]),
            Used::new([("waves", 1), ("dispatches", 2)]),
            Used::new([("dispatches", 2), ("tail", 1)]),
        ];
        assert_eq!(merged_names(&runs), ["waves", "dispatches", "tail"]);
        assert_eq!(runs[1].get("waves"), Some(1));
        assert_eq!(runs[0].get("waves"), None);
    }
}
