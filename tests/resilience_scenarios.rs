//! Bad resilience sections: every error names the file, the line and
//! column, the JSON path and what was expected; the schema documents the
//! section; no broken outage scenario makes the loader panic.

use crate::common;

use common::files::{self, assert_documented, errors_of, position_of};
use conclave::scenario::{self, GatewayMechanism};
use serde_json::{Value, json};

fn shipped(name: &str) -> Value {
    let path = format!("{}/scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `vendor_outage.json` changed at a JSON pointer: set, or removed with
/// `None`.
fn edit(pointer: &str, value: Option<Value>) -> String {
    files::edit(shipped("vendor_outage.json"), pointer, value)
}

#[test]
fn the_shipped_outage_scenarios_are_valid_and_switch_their_mechanisms() {
    for (file, flag, mechanism) in [
        (
            "vendor_outage.json",
            "breakers",
            GatewayMechanism::CircuitBreaker,
        ),
        (
            "slow_dependency.json",
            "bulkheads",
            GatewayMechanism::Bulkhead,
        ),
    ] {
        let text = serde_json::to_string(&shipped(file)).unwrap();
        let scenario = scenario::parse(&text, file).unwrap();
        assert_eq!(scenario.flags[flag].gateway, Some(mechanism), "{file}");
        assert!(scenario.resilience.unwrap().configures(mechanism));
    }
}

#[test]
fn each_malformed_resilience_section_gets_its_documented_error() {
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "an override for a tool the run never calls",
            edit("/resilience/tools/enrichment_api", Some(json!({}))),
            "resilience.tools.enrichment_api: expected \"model\", \"orders_worker\" or \"enrichment_worker\" (the tools this run calls), found \"enrichment_api\"",
        ),
        (
            "a timeout for an unknown tool",
            edit(
                "/resilience/timeouts_ms",
                Some(json!({"default": 10000, "vendor": 2000})),
            ),
            "resilience.timeouts_ms.vendor: expected \"default\", \"model\", \"orders_worker\" or \"enrichment_worker\"",
        ),
        (
            "an unknown jitter mode",
            edit("/resilience/retries/jitter", Some(json!("random"))),
            "resilience.retries.jitter: expected one of \"none\", \"full\", \"equal\", \"decorrelated\", found string \"random\"",
        ),
        (
            "no attempt at all",
            edit("/resilience/retries/max_attempts", Some(json!(0))),
            "resilience.retries.max_attempts: expected a number ≥ 1, found whole number 0",
        ),
        (
            "an empty backoff list",
            edit("/resilience/retries/backoff_ms", Some(json!([]))),
            "resilience.retries.backoff_ms: expected at least one delay",
        ),
        (
            "exponential backoff capped below its base",
            edit(
                "/resilience/retries/backoff_ms",
                Some(json!({"base_ms": 800, "max_ms": 200})),
            ),
            "resilience.retries.backoff_ms: expected base_ms ≤ max_ms, found base_ms 800 and max_ms 200",
        ),
        (
            "an unknown field of the breaker",
            edit("/resilience/circuit_breaker/open_for_s", Some(json!(30))),
            "resilience.circuit_breaker.open_for_s: unknown field \"open_for_s\"; expected one of: enabled, fail_threshold, open_for_ms, half_open_probes, failure_rate",
        ),
        (
            "a failure rate that needs more calls than its window",
            edit(
                "/resilience/circuit_breaker/failure_rate",
                Some(json!({"window": 10, "threshold": 0.5, "min_calls": 20})),
            ),
            "resilience.circuit_breaker.failure_rate.min_calls: expected at most the window (10), found 20",
        ),
        (
            "a failure rate above 1",
            edit(
                "/resilience/circuit_breaker/failure_rate",
                Some(json!({"window": 10, "threshold": 1.5})),
            ),
            "resilience.circuit_breaker.failure_rate.threshold: expected a number ≤ 1, found number 1.5",
        ),
        (
            "a flag switching a mechanism the section leaves out",
            edit("/flags/breakers/gateway", Some(json!("bulkhead"))),
            "flags.breakers.gateway: \"bulkhead\" is not configured in the resilience section",
        ),
        (
            "a flag switching an unknown mechanism",
            edit("/flags/breakers/gateway", Some(json!("breaker"))),
            "flags.breakers.gateway: expected one of \"circuit_breaker\", \"bulkhead\", \"retries\", \"retry_budget\", \"safe_mode\"",
        ),
        (
            "a gateway flag without a resilience section",
            edit("/resilience", None),
            "flags.breakers.gateway: \"circuit_breaker\" switches a mechanism of the resilience section, and this scenario has none",
        ),
        (
            "a negative retry budget",
            edit("/resilience/retry_budget", Some(json!({"ratio": -0.1}))),
            "resilience.retry_budget.ratio: expected a number ≥ 0, found number -0.1",
        ),
    ];
    assert_documented(&cases);
}

#[test]
fn an_error_points_at_the_line_and_column_of_the_culprit() {
    let text = edit("/resilience/tools/enrichment_api", Some(json!({})));
    let (line, column) = position_of(&text, "\"enrichment_api\"");
    let errors = errors_of(&text);
    assert!(
        errors.to_string().starts_with(&format!(
            "bad.json:{line}:{column}: resilience.tools.enrichment_api:"
        )),
        "{errors}"
    );
}

#[test]
fn the_schema_documents_the_resilience_section() {
    let schema = scenario::json_schema();
    // Doc comments keep their line breaks in the schema.
    let text = schema.to_string().replace("\\n", " ");
    for words in [
        "Every model call (tool name `model`)",
        "retry_budget_exhausted",
        "circuit_open:<tool>",
        "bulkhead_full:<tool>",
        "decorrelated",
        "The gateway mechanism this flag switches",
    ] {
        assert!(text.contains(words), "the schema says {words:?}");
    }
}

/// Truncations and byte flips of the outage scenarios: errors, never a panic.
#[test]
fn no_broken_outage_scenario_makes_the_loader_panic() {
    for file in ["vendor_outage.json", "slow_dependency.json"] {
        let text = serde_json::to_string_pretty(&shipped(file)).unwrap();
        let bytes = text.as_bytes();
        let mut tried = 0;
        for cut in (0..bytes.len()).step_by(97) {
            let _ = scenario::parse(&String::from_utf8_lossy(&bytes[..cut]), file);
            tried += 1;
        }
        for at in (0..bytes.len()).step_by(61) {
            for replacement in [b'0', b'"', b'}', b'-', b'x'] {
                let mut flipped = bytes.to_vec();
                flipped[at] = replacement;
                let _ = scenario::parse(&String::from_utf8_lossy(&flipped), file);
                tried += 1;
            }
        }
        assert!(tried > 100, "{file}: {tried} texts");
    }
}
