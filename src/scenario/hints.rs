//! A research scenario's limits and domain allowlists, read from
//! `context.policy_hints` exactly as leniently as 004 reads them (numbers
//! given as text, clamps to its ranges, its defaults for whatever is
//! missing or unreadable), plus `max_seconds` and `max_steps` from the
//! scenario's budget. Pure: it reads the scenario and decides nothing.

use super::types::Scenario;
use crate::pycompat::{py_int, py_strip};
use serde_json::Value;
use std::collections::BTreeSet;

/// 004's `Budget` defaults.
pub(crate) const DEFAULT_MAX_SECONDS: f64 = 25.0;
pub(crate) const DEFAULT_MAX_STEPS: u32 = 8;
pub(crate) const DEFAULT_MAX_URLS: i64 = 6;
pub(crate) const DEFAULT_MAX_READ_PAGES: i64 = 3;
pub(crate) const DEFAULT_MAX_NOTES: i64 = 6;
pub(crate) const DEFAULT_MAX_ANSWER_CHARS: i64 = 850;
/// 004's allowlists when the hints give no list.
pub(crate) const DEFAULT_POLICY_DOMAINS: [&str; 3] = [
    "official-status.example.com",
    "vendor.example.com",
    "regulator.example.org",
];
pub(crate) const DEFAULT_EXECUTION_DOMAINS: [&str; 2] =
    ["official-status.example.com", "vendor.example.com"];

/// What bounds one research run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ResearchLimits {
    /// Domains the policy lets the run read.
    pub(crate) policy: BTreeSet<String>,
    /// Domains this deployment may read (before flags narrow it).
    pub(crate) execution: BTreeSet<String>,
    /// 1 to 20.
    pub(crate) max_urls: usize,
    /// 1 to 10.
    pub(crate) max_read_pages: usize,
    /// 1 to 20.
    pub(crate) max_notes: usize,
    /// 120 to 2000.
    pub(crate) max_answer_chars: usize,
    pub(crate) max_seconds: f64,
    pub(crate) max_steps: usize,
}

impl ResearchLimits {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        let hints = scenario.context.get("policy_hints");
        let hints = hints.as_ref().and_then(Value::as_object);
        let hint = |key: &str| hints.and_then(|h| h.get(key));
        // `_safe_int(hints.get(key, default), default=default)`, then 004's clamp.
        let number = |key: &str, default: i64, min: i64, max: i64| {
            let read = hint(key).and_then(py_int).unwrap_or(default);
            usize::try_from(read.clamp(min, max)).unwrap_or(0)
        };
        let budget = scenario.budget.clone().unwrap_or_default();
        ResearchLimits {
            policy: domains(hint("allowed_domains_policy"), &DEFAULT_POLICY_DOMAINS),
            execution: domains(
                hint("allowed_domains_execution"),
                &DEFAULT_EXECUTION_DOMAINS,
            ),
            max_urls: number("max_urls", DEFAULT_MAX_URLS, 1, 20),
            max_read_pages: number("max_read_pages", DEFAULT_MAX_READ_PAGES, 1, 10),
            max_notes: number("max_notes", DEFAULT_MAX_NOTES, 1, 20),
            max_answer_chars: number("max_answer_chars", DEFAULT_MAX_ANSWER_CHARS, 120, 2000),
            max_seconds: budget.max_seconds.unwrap_or(DEFAULT_MAX_SECONDS),
            max_steps: budget.max_steps.unwrap_or(DEFAULT_MAX_STEPS) as usize,
        }
    }
}

/// An allowlist hint: a list keeps its non-blank text items, stripped and
/// lower-cased (an empty list allows nothing); anything else, or no hint,
/// gives the defaults.
fn domains(hint: Option<&Value>, defaults: &[&str]) -> BTreeSet<String> {
    match hint {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(py_strip)
            .filter(|d| !d.is_empty())
            .map(str::to_lowercase)
            .collect(),
        _ => defaults.iter().map(|d| (*d).to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limits(hints: Value, budget: Value) -> ResearchLimits {
        let scenario: Scenario = serde_json::from_value(json!({
            "name": "t", "pattern": "research", "goal": "g",
            "context": {"request": {"question": "q"}, "policy_hints": hints},
            "budget": budget,
            "provider": {"kind": "sim"}
        }))
        .unwrap();
        ResearchLimits::of(&scenario)
    }

    #[test]
    fn numbers_are_read_leniently_and_clamped() {
        let l = limits(
            json!({"max_urls": "4", "max_read_pages": 2.9, "max_notes": true,
                   "max_answer_chars": " 5000 "}),
            json!({}),
        );
        assert_eq!(
            (
                l.max_urls,
                l.max_read_pages,
                l.max_notes,
                l.max_answer_chars
            ),
            (4, 2, 1, 2000)
        );
        let l = limits(
            json!({"max_urls": "six", "max_read_pages": null, "max_notes": [3],
                   "max_answer_chars": "3.0"}),
            json!({}),
        );
        assert_eq!(
            (
                l.max_urls,
                l.max_read_pages,
                l.max_notes,
                l.max_answer_chars
            ),
            (6, 3, 6, 850),
            "unreadable values take the defaults"
        );
        let l = limits(
            json!({"max_urls": -3, "max_read_pages": 99, "max_notes": "0", "max_answer_chars": 7}),
            json!({"max_seconds": 2.5, "max_steps": 5}),
        );
        assert_eq!(
            (
                l.max_urls,
                l.max_read_pages,
                l.max_notes,
                l.max_answer_chars
            ),
            (1, 10, 1, 120),
            "clamped to 004's ranges"
        );
        assert_eq!((l.max_seconds, l.max_steps), (2.5, 5));
    }

    #[test]
    fn allowlists_keep_text_items_and_default_when_not_lists() {
        let l = limits(
            json!({"allowed_domains_policy": [" Vendor.Example.COM ", "", "  ", 7, null, "a.example"],
                   "allowed_domains_execution": []}),
            json!({}),
        );
        assert_eq!(
            l.policy.into_iter().collect::<Vec<_>>(),
            vec!["a.example", "vendor.example.com"]
        );
        assert!(l.execution.is_empty(), "an empty list allows nothing");
        let l = limits(
            json!({"allowed_domains_policy": "vendor.example.com"}),
            json!({}),
        );
        assert_eq!(l.policy.len(), 3, "not a list: the defaults");
        assert_eq!(l.execution.len(), 2);
        let l = limits(json!("not an object"), json!({}));
        assert_eq!((l.max_urls, l.policy.len()), (6, 3));
        assert_eq!((l.max_seconds, l.max_steps), (25.0, 8));
    }
}
