//! The orchestrator's cross-reference checks: flags and health rules may
//! only name declared workers, each worker's short name must be its own
//! key in the aggregate, and the simulated calls must be well-formed.

use super::scenario::HealthOp;
use crate::scenario::error::Problem;
use crate::scenario::path::JsonPath;
use crate::scenario::short_name;
use crate::scenario::types::Scenario;
use crate::scenario::value_words::describe_value;
use serde_json::Value;

/// Keys the aggregate uses itself, so no worker's short name may take them.
const AGGREGATE_KEYS: [&str; 4] = ["report_date", "region", "health", "failed_tasks"];

pub(crate) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let declared: Vec<&str> = scenario.workers.keys().map(String::as_str).collect();
    if declared.is_empty() {
        problems.push(Problem::at(
            root.clone(),
            "missing field \"workers\": an orchestrator scenario declares at least one worker",
        ));
    }
    let expected_worker = |found: &str| {
        format!(
            "expected a worker declared in workers ({}), found {}",
            declared.join(", "),
            Value::from(found)
        )
    };
    check_workers(scenario, problems);

    for (name, flag) in &scenario.flags {
        let flag_path = root.key("flags").key(name);
        for (i, worker) in flag.workers.iter().enumerate() {
            if !scenario.workers.contains_key(worker) {
                problems.push(Problem::at(
                    flag_path.key("workers").index(i),
                    expected_worker(worker),
                ));
            }
        }
        flag.check_gates(&flag_path, (&"orchestrator", "workers"), problems);
    }

    for (i, rule) in scenario.health_rules.iter().flatten().enumerate() {
        let path = root.key("health_rules").index(i);
        if !scenario.workers.contains_key(&rule.worker) {
            problems.push(Problem::at(
                path.key("worker"),
                expected_worker(&rule.worker),
            ));
        }
        let op = rule.op.as_str();
        match (&rule.value, rule.op) {
            (None, HealthOp::NonEmpty) | (Some(Value::Array(_)), HealthOp::NotIn) => {}
            (Some(_), HealthOp::NonEmpty) => problems.push(Problem::at_key(
                path.key("value"),
                "\"non_empty\" takes no value",
            )),
            (Some(Value::Number(_)), op) if op.is_comparison() => {}
            (Some(_), HealthOp::Equals | HealthOp::Differs) => {}
            (Some(found), _) => {
                let wanted = if rule.op == HealthOp::NotIn {
                    "a list"
                } else {
                    "a number"
                };
                problems.push(Problem::at(
                    path.key("value"),
                    format!(
                        "expected {wanted} for op \"{op}\", found {}",
                        describe_value(found)
                    ),
                ));
            }
            (None, _) => problems.push(Problem::at(
                path,
                format!("missing field \"value\": op \"{op}\" compares the field with it"),
            )),
        }
    }
}

fn check_workers(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let workers_path = JsonPath::root().key("workers");
    let mut shorts: Vec<(&str, &str)> = Vec::new();
    for (name, spec) in &scenario.workers {
        let path = workers_path.key(name);
        let short = short_name(name);
        if short.is_empty() || name.trim() != name {
            problems.push(Problem::at_key(
                path.clone(),
                format!(
                    "expected a worker name without surrounding spaces and with more than \"_worker\", found {}",
                    Value::from(name.as_str())
                ),
            ));
        } else if AGGREGATE_KEYS.contains(&short) {
            problems.push(Problem::at_key(
                path.clone(),
                format!("the aggregate keeps \"{short}\" for itself; rename the worker"),
            ));
        } else if let Some((other, _)) = shorts.iter().find(|(_, s)| *s == short) {
            problems.push(Problem::at_key(
                path.clone(),
                format!(
                    "{} and {} both report under \"{short}\" in the aggregate; rename one",
                    Value::from(*other),
                    Value::from(name.as_str())
                ),
            ));
        }
        shorts.push((name, short));

        spec.check_times(&path, problems);
    }
}
