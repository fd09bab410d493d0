//! The plan contract, after 001's `validate_orchestration_plan`: the
//! planner's output is untrusted input, checked in 001's order so that the
//! first failing rule names the stop reason. Pure functions.

use crate::bus::PlannedTask;
use crate::provider::ModelOutput;
use crate::pycompat::py_strip;
use crate::stop::PlanError;
use serde_json::{Value, json};
use std::collections::HashSet;

const REQUIRED_KEYS: [&str; 4] = ["id", "worker", "args", "critical"];

/// The planner's output as 001 reads it: text that is not JSON becomes
/// `{"kind": "invalid", "raw": text}`.
pub(crate) fn plan_json(output: ModelOutput) -> Value {
    output.into_json(|raw| json!({"kind": "invalid", "raw": raw}))
}

/// Check a plan against the policy allowlist (`allowed`) and `max_tasks`,
/// and take its tasks: unknown keys of a task are dropped, id and worker
/// are stripped, and the args are moved out of the plan rather than copied.
/// A rejected plan is given back whole with the reason.
pub(crate) fn validate_plan(
    raw: Value,
    allowed: impl Fn(&str) -> bool,
    max_tasks: u32,
) -> Result<Vec<PlannedTask>, (PlanError, Value)> {
    match check_plan(&raw, allowed, max_tasks) {
        Ok(()) => Ok(into_tasks(raw)),
        Err(error) => Err((error, raw)),
    }
}

fn check_plan(
    raw: &Value,
    allowed: impl Fn(&str) -> bool,
    max_tasks: u32,
) -> Result<(), PlanError> {
    let Value::Object(plan) = raw else {
        return Err(PlanError::NonJson);
    };
    if plan.get("kind").and_then(Value::as_str) != Some("plan") {
        return Err(PlanError::Kind);
    }
    let Some(Value::Array(tasks)) = plan.get("tasks") else {
        return Err(PlanError::Tasks);
    };
    if tasks.is_empty() || tasks.len() > max_tasks as usize {
        return Err(PlanError::MaxTasks);
    }
    // Duplicates are found among the ids as written, before stripping.
    let mut seen: HashSet<&str> = HashSet::with_capacity(tasks.len());
    for task in tasks {
        let Value::Object(task) = task else {
            return Err(PlanError::TaskShape);
        };
        if !REQUIRED_KEYS.iter().all(|k| task.contains_key(*k)) {
            return Err(PlanError::MissingKeys);
        }
        let id = task["id"]
            .as_str()
            .filter(|id| !py_strip(id).is_empty())
            .ok_or(PlanError::TaskId)?;
        if !seen.insert(id) {
            return Err(PlanError::DuplicateTaskId);
        }
        let worker = task["worker"]
            .as_str()
            .filter(|w| !py_strip(w).is_empty())
            .ok_or(PlanError::Worker)?;
        if !allowed(worker) {
            return Err(PlanError::WorkerNotAllowed {
                worker: worker.to_string(),
            });
        }
        if !task["args"].is_object() {
            return Err(PlanError::Args);
        }
        task["critical"].as_bool().ok_or(PlanError::Critical)?;
    }
    Ok(())
}

/// The tasks of a plan that passed [`check_plan`].
fn into_tasks(raw: Value) -> Vec<PlannedTask> {
    let Value::Object(mut plan) = raw else {
        return Vec::new();
    };
    let Some(Value::Array(tasks)) = plan.swap_remove("tasks") else {
        return Vec::new();
    };
    tasks
        .into_iter()
        .filter_map(|task| match task {
            Value::Object(mut task) => Some(PlannedTask {
                id: stripped(task.swap_remove("id")),
                worker: stripped(task.swap_remove("worker")),
                args: task.swap_remove("args").unwrap_or(Value::Null),
                critical: task.get("critical").and_then(Value::as_bool) == Some(true),
            }),
            _ => None,
        })
        .collect()
}

/// A string member, stripped as 001 strips it; kept as it is when there is
/// nothing to strip.
fn stripped(value: Option<Value>) -> String {
    match value {
        Some(Value::String(text)) if py_strip(&text).len() == text.len() => text,
        Some(Value::String(text)) => py_strip(&text).to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, worker: &str) -> Value {
        json!({"id": id, "worker": worker, "args": {"report_date": "2026-02-26", "region": "US"}, "critical": true})
    }

    fn plan(tasks: Vec<Value>) -> Value {
        json!({"kind": "plan", "tasks": tasks})
    }

    fn check(raw: &Value) -> Result<Vec<PlannedTask>, PlanError> {
        let allowed = |w: &str| w == "sales_worker" || w == "payments_worker";
        validate_plan(raw.clone(), allowed, 3).map_err(|(error, given_back)| {
            assert_eq!(&given_back, raw, "a rejected plan is given back whole");
            error
        })
    }

    fn with(key: &str, value: Value) -> Value {
        let mut t = task("t1", "sales_worker");
        t[key] = value;
        plan(vec![t])
    }

    #[test]
    fn every_rejection_in_the_reference_order() {
        use PlanError::*;
        let mut missing = task("t1", "sales_worker");
        missing.as_object_mut().unwrap().remove("critical");
        let table = [
            (json!([task("t1", "sales_worker")]), NonJson),
            (json!("plan"), NonJson),
            (json!({"tasks": []}), Kind),
            (json!({"kind": "PLAN", "tasks": []}), Kind),
            (json!({"kind": "plan", "tasks": {}}), Tasks),
            (json!({"kind": "plan"}), Tasks),
            (plan(vec![]), MaxTasks),
            (plan(vec![task("a", "sales_worker"); 4]), MaxTasks),
            (plan(vec![json!("t1")]), TaskShape),
            (plan(vec![missing]), MissingKeys),
            (with("id", json!(" \t")), TaskId),
            (with("id", json!(1)), TaskId),
            (
                plan(vec![
                    task("t1", "sales_worker"),
                    task("t1", "payments_worker"),
                ]),
                DuplicateTaskId,
            ),
            (with("worker", json!("")), Worker),
            (with("worker", json!(null)), Worker),
            (
                with("worker", json!(" sales_worker")),
                WorkerNotAllowed {
                    worker: " sales_worker".into(),
                },
            ),
            (
                with("worker", json!("fraud_worker")),
                WorkerNotAllowed {
                    worker: "fraud_worker".into(),
                },
            ),
            (with("args", json!(["US"])), Args),
            (with("critical", json!("true")), Critical),
            (with("critical", json!(1)), Critical),
            // The first failing task decides, whatever follows it.
            (plan(vec![json!(7), task("t1", "fraud_worker")]), TaskShape),
        ];
        for (raw, want) in table {
            assert_eq!(check(&raw), Err(want.clone()), "{raw}");
        }
    }

    #[test]
    fn normalises_like_the_reference() {
        let mut first = task(" t1 ", "sales_worker");
        first["note"] = json!("ignored");
        // " t1 " and "t1" are different ids as written, so both pass.
        let tasks = check(&plan(vec![first, task("t1", "payments_worker")])).unwrap();
        assert_eq!(tasks[0].id, "t1");
        assert_eq!(tasks[1].id, "t1");
        assert_eq!(
            tasks[0].args,
            json!({"report_date": "2026-02-26", "region": "US"})
        );
    }

    #[test]
    fn model_text_is_read_as_the_reference_reads_it() {
        assert_eq!(plan_json(ModelOutput::Text(String::new())), json!({}));
        assert_eq!(
            plan_json(ModelOutput::Text("not json".into())),
            json!({"kind": "invalid", "raw": "not json"})
        );
        assert_eq!(
            plan_json(ModelOutput::Text(" [1, 2] ".into())),
            json!([1, 2])
        );
        assert_eq!(plan_json(ModelOutput::Json(json!(5))), json!(5));
    }
}
