//! Aggregation after dispatch, after 001's `aggregate_results`: each
//! declared worker's result under its short name, the failed tasks, and
//! the health the rules give (red wins over yellow). Pure functions.

use super::result::TaskRecord;
use super::scenario::{HealthLevel, HealthOp, HealthRule};
use crate::patterns::orchestrator::events::{Health, TaskStatus};
use crate::pycompat::{py_eq, py_number, py_truthy};
use crate::scenario::{Scenario, short_name};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

/// 001's rules, as health rules.
pub(crate) fn default_rules() -> Vec<HealthRule> {
    let rule = |worker: &str, field: &str, op, value, level| HealthRule {
        worker: worker.into(),
        field: field.into(),
        op,
        value,
        level,
    };
    vec![
        rule(
            "payments_worker",
            "failed_payment_rate",
            HealthOp::AtLeast,
            Some(json!(0.03)),
            HealthLevel::Yellow,
        ),
        rule(
            "inventory_worker",
            "out_of_stock_skus",
            HealthOp::NonEmpty,
            None,
            HealthLevel::Yellow,
        ),
        rule(
            "payments_worker",
            "gateway_incident",
            HealthOp::NotIn,
            Some(json!([null, "none"])),
            HealthLevel::Red,
        ),
    ]
}

/// The aggregate document and its health.
pub(crate) fn aggregate(scenario: &Scenario, records: &[TaskRecord]) -> (Health, Value) {
    // A later task of the same worker replaces an earlier one, as in 001.
    let mut done: IndexMap<&str, &Value> = IndexMap::new();
    for record in records {
        if let (TaskStatus::Done, Some(observation)) = (record.status, &record.observation) {
            done.insert(&record.worker, observation);
        }
    }
    let results: IndexMap<&str, Value> = scenario
        .workers
        .keys()
        .map(|name| {
            let result = done
                .get(name.as_str())
                .and_then(|o| o.get("result"))
                .cloned()
                .unwrap_or_else(|| json!({}));
            (name.as_str(), result)
        })
        .collect();
    let defaults;
    let rules = match &scenario.health_rules {
        Some(rules) => rules.as_slice(),
        None => {
            defaults = default_rules();
            defaults.as_slice()
        }
    };
    let health = rate(rules, &results);

    let mut document = Map::new();
    document.insert("report_date".into(), scenario.fact("report_date"));
    document.insert("region".into(), scenario.fact("region"));
    document.insert("health".into(), health.as_str().into());
    for (name, result) in results {
        document.insert(short_name(name).to_string(), result);
    }
    let failed: Vec<Value> = records
        .iter()
        .filter(|r| r.status == TaskStatus::Failed)
        .map(|r| {
            json!({"task_id": r.task_id, "worker": r.worker, "critical": r.critical,
                   "stop_reason": r.stop_reason})
        })
        .collect();
    document.insert("failed_tasks".into(), Value::Array(failed));
    (health, Value::Object(document))
}

/// The highest level among the rules that fire; green when none does.
pub(crate) fn rate(rules: &[HealthRule], results: &IndexMap<&str, Value>) -> Health {
    rules
        .iter()
        .filter(|rule| {
            let field = results
                .get(rule.worker.as_str())
                .and_then(|r| r.get(&rule.field));
            fires(rule, field)
        })
        .map(|rule| match rule.level {
            HealthLevel::Yellow => Health::Yellow,
            HealthLevel::Red => Health::Red,
        })
        .max()
        .unwrap_or(Health::Green)
}

/// Whether `rule` fires on `field` (absent when the result lacks it).
fn fires(rule: &HealthRule, field: Option<&Value>) -> bool {
    let value = rule.value.as_ref().unwrap_or(&Value::Null);
    let compare = |test: fn(f64, f64) -> bool| match (field.and_then(py_number), value.as_f64()) {
        (Some(field), Some(limit)) => test(field, limit),
        _ => false,
    };
    // Python's `.get(field)`: a missing field reads as None.
    let read = field.unwrap_or(&Value::Null);
    match rule.op {
        HealthOp::AtLeast => compare(|a, b| a >= b),
        HealthOp::Above => compare(|a, b| a > b),
        HealthOp::AtMost => compare(|a, b| a <= b),
        HealthOp::Below => compare(|a, b| a < b),
        HealthOp::Equals => py_eq(read, value),
        HealthOp::Differs => !py_eq(read, value),
        HealthOp::NonEmpty => field.is_some_and(py_truthy),
        HealthOp::NotIn => !value
            .as_array()
            .is_some_and(|list| list.iter().any(|v| py_eq(read, v))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(payments: Value, inventory: Value) -> Health {
        let results: IndexMap<&str, Value> = [
            ("payments_worker", payments),
            ("inventory_worker", inventory),
        ]
        .into();
        rate(&default_rules(), &results)
    }

    #[test]
    fn the_reference_rules_red_wins_over_yellow() {
        assert_eq!(health(json!({}), json!({})), Health::Green);
        assert_eq!(
            health(
                json!({"failed_payment_rate": 0.023, "gateway_incident": "none"}),
                json!({"out_of_stock_skus": []})
            ),
            Health::Green
        );
        assert_eq!(
            health(json!({"failed_payment_rate": 0.03}), json!({})),
            Health::Yellow
        );
        assert_eq!(
            health(json!({"failed_payment_rate": true}), json!({})),
            Health::Yellow,
            "True >= 0.03"
        );
        assert_eq!(
            health(json!({}), json!({"out_of_stock_skus": ["SKU-9033"]})),
            Health::Yellow
        );
        assert_eq!(
            health(json!({"gateway_incident": null}), json!({})),
            Health::Green
        );
        for incident in [
            json!("degraded"),
            json!(0),
            json!(false),
            json!(""),
            json!([]),
        ] {
            assert_eq!(
                health(
                    json!({"failed_payment_rate": 0.5, "gateway_incident": incident}),
                    json!({})
                ),
                Health::Red,
                "{incident}"
            );
        }
    }

    #[test]
    fn every_op_of_a_scenario_rule() {
        let rule = |op, value: Option<Value>| HealthRule {
            worker: "w".into(),
            field: "f".into(),
            op,
            value,
            level: HealthLevel::Yellow,
        };
        let table = [
            (HealthOp::AtLeast, Some(json!(2)), Some(json!(2)), true),
            (HealthOp::Above, Some(json!(2)), Some(json!(2)), false),
            (HealthOp::AtMost, Some(json!(2)), Some(json!(1.5)), true),
            (HealthOp::Below, Some(json!(2)), Some(json!("1")), false),
            (HealthOp::Below, Some(json!(2)), None, false),
            (HealthOp::Equals, Some(json!(1)), Some(json!(1.0)), true),
            (HealthOp::Equals, Some(json!(null)), None, true),
            (
                HealthOp::Differs,
                Some(json!("ok")),
                Some(json!("ok")),
                false,
            ),
            (HealthOp::Differs, Some(json!("ok")), None, true),
            (HealthOp::NonEmpty, None, Some(json!([1])), true),
            (HealthOp::NonEmpty, None, Some(json!(0)), false),
            (HealthOp::NonEmpty, None, None, false),
            (
                HealthOp::NotIn,
                Some(json!(["a", "b"])),
                Some(json!("c")),
                true,
            ),
            (HealthOp::NotIn, Some(json!(["a", null])), None, false),
        ];
        for (op, value, field, want) in table {
            assert_eq!(
                fires(&rule(op, value.clone()), field.as_ref()),
                want,
                "{op:?} {value:?} on {field:?}"
            );
        }
    }
}
