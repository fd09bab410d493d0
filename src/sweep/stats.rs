//! Summaries of one measure over a combination's runs: counts by value
//! for small measures, and total, min, max, mean and percentiles. They
//! depend only on the values, never on the order runs finished in. A total
//! past the largest count (2^64 − 1) is held there, never wrapped, and
//! said: `"saturated": true`, as it is when a run's own count was held.

use serde_json::{Value, json};
use std::collections::BTreeMap;

/// `{"total", "min", "max", "mean", "p50", "p90"}` of `values`; `null`
/// figures when there are none. `"saturated": true` is added when the
/// total or a value stands at the largest count, which it was held at.
pub(crate) fn spread(values: &[u64]) -> Value {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    // 128 bits hold the sum of any number of 64-bit counts a sweep has.
    let sum: u128 = sorted.iter().map(|v| u128::from(*v)).sum();
    let total = u64::try_from(sum).unwrap_or(u64::MAX);
    let mean = mean_of(sum, sorted.len());
    let mut spread = json!({
        "total": total,
        "min": sorted.first(),
        "max": sorted.last(),
        "mean": mean,
        "p50": percentile(&sorted, 50),
        "p90": percentile(&sorted, 90),
    });
    if total == u64::MAX
        && let Value::Object(fields) = &mut spread
    {
        fields.insert("saturated".into(), Value::Bool(true));
    }
    spread
}

/// The mean of `n` counts summing to `sum`, rounded to a thousandth so
/// that documents compare as text too. Past 2^53, where a float no longer
/// holds every whole count, it is the whole count it rounds down to, so
/// that it never reads above the largest value (2^64 − 1 is no float).
fn mean_of(sum: u128, n: usize) -> Value {
    if n == 0 {
        return Value::Null;
    }
    let whole = sum / n as u128;
    if whole >= 1 << 53 {
        return json!(u64::try_from(whole).unwrap_or(u64::MAX));
    }
    json!((sum as f64 / n as f64 * 1000.0).round() / 1000.0)
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
    fn a_total_past_the_largest_count_is_held_and_said() {
        let held = spread(&[u64::MAX - 3, 7, 1]);
        assert_eq!(held["total"], u64::MAX, "not 4");
        assert_eq!(held["saturated"], true);
        assert_eq!(held["max"], u64::MAX - 3);
        let mean = (u128::from(u64::MAX) + 5) / 3;
        assert_eq!(
            held["mean"],
            u64::try_from(mean).unwrap(),
            "from the sum, not from the held total, and whole"
        );
        let all_held = spread(&[u64::MAX, u64::MAX, u64::MAX]);
        assert_eq!(all_held["mean"], u64::MAX, "never above the largest value");
        assert_eq!(spread(&[1, 2])["mean"], 1.5);
        let run_held = spread(&[u64::MAX]);
        assert_eq!(run_held["saturated"], true);
        assert!(spread(&[u64::MAX - 1, 0]).get("saturated").is_none());
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
