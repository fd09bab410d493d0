//! The plan contract, after 001's `validate_orchestration_plan`: the
//! planner's output is untrusted input, checked in 001's order so that the
//! first failing rule names the stop reason. Pure functions.
//!
//! A plan written as text (the sim's, a scenario's tasks) is read one task
//! at a time from the text rather than into one `serde_json::Value` first:
//! through the value, a 100,000-task run peaks at 330 MiB of memory
//! against 266 MiB read from the text, past the 300 MB a run of that size
//! may take. Anything else, and any plan that breaks a rule, goes through
//! the value, which says what is wrong.

use super::stops::PlanError;
use crate::patterns::orchestrator::events::PlannedTask;
use crate::provider::ModelOutput;
use crate::pycompat::py_strip;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::HashSet;

/// A plan's keys, and the one kind a plan has.
pub(super) const KIND: &str = "kind";
pub(super) const TASKS: &str = "tasks";
pub(super) const PLAN_KIND: &str = "plan";
/// A task's keys, in the order the schema asks for them.
pub(super) const REQUIRED_KEYS: [&str; 4] = ["id", "worker", "args", "critical"];

/// The keys of a plan itself.
pub(crate) const PLAN_KEYS: [&str; 2] = ["kind", "tasks"];

/// The planner's output as 001 reads it: text that is not JSON becomes
/// `{"kind": "invalid", "raw": text}`.
pub(crate) fn plan_json(output: ModelOutput) -> Value {
    output.into_json(|raw| json!({"kind": "invalid", "raw": raw}))
}

/// Check the planner's output and take its tasks, as [`validate_plan`]
/// does. A plan the sim returns as the scenario's text is read one task at
/// a time: 100,000 tasks are never held as one value beside the tasks.
pub(crate) fn read_plan(
    output: ModelOutput,
    allowed: impl Fn(&str) -> bool,
    max_tasks: u32,
) -> Result<Vec<PlannedTask>, (PlanError, Value)> {
    #[cfg(test)]
    crate::patterns::parses::note("plan");
    if let ModelOutput::JsonText(text) = &output
        && let Some(tasks) = tasks_of_text(text.text(), &allowed, max_tasks)
    {
        return Ok(tasks);
    }
    validate_plan(plan_json(output), allowed, max_tasks)
}

/// The tasks of the plan written as JSON `text` when it passes every rule
/// of [`check_plan`], taken as [`into_tasks`] takes them; `None` for any
/// other text, which [`validate_plan`] then reads whole to say what is
/// wrong (a repeated key, which a value holds once, is left to it too).
fn tasks_of_text(
    text: &str,
    allowed: &impl Fn(&str) -> bool,
    max_tasks: u32,
) -> Option<Vec<PlannedTask>> {
    #[derive(Deserialize)]
    struct Plan<'a> {
        #[serde(borrow)]
        kind: Cow<'a, str>,
        #[serde(borrow)]
        tasks: Vec<&'a RawValue>,
    }
    if !object(text) {
        return None;
    }
    let plan: Plan = serde_json::from_str(text).ok()?;
    let count = plan.tasks.len();
    if plan.kind != PLAN_KIND || count == 0 || count > max_tasks as usize {
        return None;
    }
    let read = read_tasks(&plan.tasks, allowed)?;
    // Ids repeat as written, before they are stripped.
    let mut seen = HashSet::with_capacity(count);
    if !read.iter().all(|(id, _)| seen.insert(id.as_ref())) {
        return None;
    }
    Some(read.into_iter().map(|(_, task)| task).collect())
}

/// The tasks of `raws`, each with its id as written; `None` at the first
/// that breaks a rule.
fn read_tasks<'a>(
    raws: &[&'a RawValue],
    allowed: &impl Fn(&str) -> bool,
) -> Option<Vec<(Cow<'a, str>, PlannedTask)>> {
    raws.iter().map(|raw| task_of(raw, allowed)).collect()
}

/// What an object's text starts with.
const OPEN_OBJECT: char = '{';

/// A struct would also read a list of its fields.
fn object(text: &str) -> bool {
    text.trim_start().starts_with(OPEN_OBJECT)
}

/// One task of a plan, with its id as written; `None` when it breaks a
/// rule of [`check_plan`] (other than a repeated id).
fn task_of<'a>(
    raw: &'a RawValue,
    allowed: &impl Fn(&str) -> bool,
) -> Option<(Cow<'a, str>, PlannedTask)> {
    #[derive(Deserialize)]
    struct Task<'a> {
        #[serde(borrow)]
        id: Cow<'a, str>,
        worker: String,
        args: Map<String, Value>,
        critical: bool,
    }
    if !object(raw.get()) {
        return None;
    }
    let task: Task = serde_json::from_str(raw.get()).ok()?;
    let written = |text: &str| !py_strip(text).is_empty();
    if !written(&task.id) || !written(&task.worker) || !allowed(&task.worker) {
        return None;
    }
    let planned = PlannedTask {
        id: stripped(Some(Value::String(task.id.to_string()))),
        worker: stripped(Some(Value::String(task.worker))),
        args: Value::Object(task.args),
        critical: task.critical,
    };
    Some((task.id, planned))
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
    if plan.get(KIND).and_then(Value::as_str) != Some(PLAN_KIND) {
        return Err(PlanError::Kind);
    }
    let Some(Value::Array(tasks)) = plan.get(TASKS) else {
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
    let Some(Value::Array(tasks)) = plan.swap_remove(TASKS) else {
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
    use crate::scenario::JsonText;
    use proptest::prelude::*;
    use std::sync::Arc;

    fn task(id: &str, worker: &str) -> Value {
        json!({"id": id, "worker": worker, "args": {"report_date": "2026-02-26", "region": "US"}, "critical": true})
    }

    fn plan(tasks: Vec<Value>) -> Value {
        json!({"kind": "plan", "tasks": tasks})
    }

    /// The plan checked as a value and, written as text, as the sim
    /// returns it: both read it the same.
    fn check(raw: &Value) -> Result<Vec<PlannedTask>, PlanError> {
        let allowed = |w: &str| w == "sales_worker" || w == "payments_worker";
        let checked = validate_plan(raw.clone(), allowed, 3);
        for text in [raw.to_string(), serde_json::to_string_pretty(raw).unwrap()] {
            let scripted = JsonText::in_text(Arc::new(text.clone()), 0..text.len());
            let read = read_plan(ModelOutput::JsonText(scripted), allowed, 3);
            assert_eq!(read, checked, "{text}");
        }
        checked.map_err(|(error, given_back)| {
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
        let raw = plan(vec![first, task("t1", "payments_worker")]);
        let tasks = check(&raw).unwrap();
        let read = tasks_of_text(&raw.to_string(), &|_: &str| true, 3);
        assert_eq!(read.as_ref(), Some(&tasks), "read as text, not as a value");
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

    /// A task as a planner might write it: each member right, wrong or
    /// missing, ids that repeat or differ only in spaces, extra keys.
    fn any_task() -> impl Strategy<Value = Value> {
        let id = prop_oneof![
            Just(json!("t1")),
            Just(json!("t2")),
            Just(json!(" t1 ")),
            Just(json!(" ")),
            Just(json!(3)),
        ];
        let worker = prop_oneof![
            Just(json!("sales_worker")),
            Just(json!("payments_worker")),
            Just(json!(" sales_worker ")),
            Just(json!("fraud_worker")),
            Just(json!(null)),
        ];
        let args = prop_oneof![
            Just(json!({"report_date": "2026-02-26", "region": "US"})),
            Just(json!({})),
            Just(json!({"n": 1.5e300, "deep": {"x": [1, "é\u{1}"]}})),
            Just(json!(["US"])),
        ];
        let critical = prop_oneof![Just(json!(true)), Just(json!(false)), Just(json!("true"))];
        let member = |value: BoxedStrategy<Value>| prop::option::weighted(0.9, value);
        (
            member(id.boxed()),
            member(worker.boxed()),
            member(args.boxed()),
            member(critical.boxed()),
            any::<bool>(),
        )
            .prop_map(|(id, worker, args, critical, note)| {
                let mut task = serde_json::Map::new();
                for (key, value) in [
                    ("id", id),
                    ("worker", worker),
                    ("args", args),
                    ("critical", critical),
                ] {
                    if let Some(value) = value {
                        task.insert(key.to_string(), value);
                    }
                }
                if note {
                    task.insert("note".to_string(), json!("kept out"));
                }
                Value::Object(task)
            })
    }

    fn any_plan() -> impl Strategy<Value = Value> {
        let tasks =
            prop::collection::vec(prop_oneof![9 => any_task(), 1 => Just(json!("t1"))], 0..5);
        let kind = prop_oneof![Just(json!("plan")), Just(json!("PLAN"))];
        (kind, tasks).prop_map(|(kind, tasks)| json!({"kind": kind, "tasks": tasks}))
    }

    /// Tasks enough for the plan's first and last to be far apart.
    const LONG: usize = 5_000;

    #[test]
    fn a_long_plan_read_as_text_reads_as_a_value() {
        let long = |last: Value| {
            let mut tasks: Vec<Value> = (0..LONG + 9)
                .map(|i| task(&format!("t{i}"), "sales_worker"))
                .collect();
            tasks.push(last);
            plan(tasks)
        };
        let allowed = |w: &str| w == "sales_worker";
        let cases = [
            (long(task("last", "sales_worker")), None),
            // The first id, repeated at the end.
            (
                long(task("t0", "sales_worker")),
                Some(PlanError::DuplicateTaskId),
            ),
            (
                long(task("last", "fraud_worker")),
                Some(PlanError::WorkerNotAllowed {
                    worker: "fraud_worker".into(),
                }),
            ),
            (long(json!("last")), Some(PlanError::TaskShape)),
        ];
        for (raw, want) in cases {
            let text = raw.to_string();
            let scripted = JsonText::in_text(Arc::new(text.clone()), 0..text.len());
            let read = read_plan(ModelOutput::JsonText(scripted), allowed, 10 * LONG as u32);
            let checked = validate_plan(raw.clone(), allowed, 10 * LONG as u32);
            assert_eq!(read, checked);
            assert_eq!(read.err().map(|(error, _)| error), want);
            assert_eq!(
                tasks_of_text(&text, &allowed, 10 * LONG as u32).is_some(),
                checked.is_ok(),
                "the text is read, or left to the value's check"
            );
        }
    }

    proptest! {
        #[test]
        fn a_plan_as_text_reads_as_the_same_plan_as_a_value(raw in any_plan()) {
            // `check` compares the two readings.
            let _ = check(&raw);
        }
    }
}
