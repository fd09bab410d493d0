//! What a shipped scenario's description promises is what its data does:
//! the picker shows the description, and an operator plans by it.

use serde_json::Value;

fn shipped(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn seconds(ms: &Value) -> String {
    format!("{:.1} s", ms.as_f64().unwrap() / 1000.0)
}

#[test]
fn vendor_outage_says_its_true_outage_window_and_breaker() {
    let scenario = shipped("vendor_outage.json");
    let description = scenario["description"].as_str().unwrap();
    let outage = &scenario["workers"]["enrichment_worker"]["outage_ms"];
    assert_eq!(outage.as_array().unwrap().len(), 1, "one outage window");
    let window = format!(
        "down from {} to {} on the run clock",
        seconds(&outage[0][0]),
        seconds(&outage[0][1])
    );
    assert!(
        description.contains(&window),
        "{window:?} in {description:?}"
    );
    let breaker = &scenario["resilience"]["tools"]["enrichment_worker"]["circuit_breaker"];
    for promise in [
        format!("opens after {} failures", breaker["fail_threshold"]),
        format!(
            "fails fast for {} at a time",
            seconds(&breaker["open_for_ms"])
        ),
        format!("lets {} probes through", breaker["half_open_probes"]),
    ] {
        assert!(
            description.contains(&promise),
            "{promise:?} in {description:?}"
        );
    }
}
