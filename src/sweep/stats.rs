//! Summaries of one measure over a combination's runs: counts by value
//! for small measures, and total, min, max, mean and percentiles. They
//! depend only on the values, never on the order runs finished in.

use serde_json::{Value, json};
use std::collections::BTreeMap;

/// `{"total", "min", "max", "mean", "p50", "p90"}` of `values`; `null`
/// figures when there are none.
pub(crate) fn spread(values: &[u64]) -> Value {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let total: u64 = sorted.iter().fold(0u64, |sum, v| sum.saturating_add(*v));
    let mean = if sorted.is_empty() {
        Value::Null
    } else {
        // Rounded to a thousandth so that documents compare as text too.
        json!((total as f64 / sorted.len() as f64 * 1000.0).round() / 1000.0)
    };
    json!({
        "total": total,
        "min": sorted.first(),
        "max": sorted.last(),
        "mean": mean,
        "p50": percentile(&sorted, 50),
        "p90": percentile(&sorted, 90),
    })
}

/// The nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: usize) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// `{"<value>": runs}` in ascending order of value.
pub(crate) fn counts_by_value(values: &[u64]) -> Value {
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for v in values {
        *counts.entry(*v).or_default() += 1;
    }
    Value::Object(
        counts
            .into_iter()
            .map(|(value, n)| (value.to_string(), json!(n)))
            .collect(),
    )
}

/// `{"<key>": runs}` in ascending order of key.
pub(crate) fn counts_by_key<'a>(keys: impl Iterator<Item = &'a str>) -> Value {
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for key in keys {
        *counts.entry(key).or_default() += 1;
    }
    Value::Object(
        counts
            .into_iter()
            .map(|(key, n)| (key.to_string(), json!(n)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_does_not_depend_on_order() {
        let a = spread(&[5, 1, 3, 2, 4]);
        assert_eq!(a, spread(&[1, 2, 3, 4, 5]));
        assert_eq!(
            a,
            json!({"total": 15, "min": 1, "max": 5, "mean": 3.0, "p50": 3, "p90": 5})
        );
    }

    #[test]
    fn an_empty_spread_has_no_figures_but_its_total() {
        assert_eq!(
            spread(&[]),
            json!({"total": 0, "min": null, "max": null, "mean": null, "p50": null, "p90": null})
        );
    }

    #[test]
    fn counts_are_keyed_in_ascending_order() {
        assert_eq!(
            counts_by_value(&[3, 1, 3, 10]).to_string(),
            r#"{"1":1,"3":2,"10":1}"#
        );
        assert_eq!(
            counts_by_key(["b", "a", "b"].into_iter()).to_string(),
            r#"{"a":1,"b":2}"#
        );
    }
}
