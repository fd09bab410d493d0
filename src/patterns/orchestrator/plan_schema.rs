//! The plan contract as an endpoint is asked for it: a strict schema built
//! from the keys and the kind `plan` checks, its workers the declared ones,
//! built once a run. A task's args are free-form, so the wire form asks
//! for them as a string holding the object, and `normalise` reads it back.

use super::plan::{KIND, PLAN_KIND, REQUIRED_KEYS, TASKS};
use crate::provider::contract::{Contract, wire};
use serde_json::Value;

/// The plan contract of a run whose declared workers are `workers` and
/// whose plan may hold `max_tasks` tasks.
pub(crate) fn plan_contract<'a>(
    workers: impl IntoIterator<Item = &'a str>,
    max_tasks: u32,
) -> Contract {
    let workers: Vec<&str> = workers.into_iter().collect();
    let task = wire::object(
        "One task for a worker.",
        REQUIRED_KEYS
            .iter()
            .map(|key| (*key, task_property(key, &workers)))
            .collect(),
    );
    let schema = wire::object(
        "Your plan of tasks.",
        vec![
            (KIND, wire::one_of([PLAN_KIND], "Always \"plan\".")),
            (
                TASKS,
                wire::bounded(
                    wire::array(
                        task,
                        &format!(
                            "The tasks: at least one, at most {max_tasks}; each id used once."
                        ),
                    ),
                    1,
                    usize::try_from(max_tasks).ok(),
                ),
            ),
        ],
    );
    wire::single("plan", schema, normalise)
}

fn task_property(key: &str, workers: &[&str]) -> Value {
    let worker = "The worker that runs the task.";
    match key {
        "id" => wire::string("The task's id, unique in the plan and not blank (t1, t2, ...)."),
        // A plan without workers is refused at load; an empty enum is
        // not a schema.
        "worker" if workers.is_empty() => wire::string(worker),
        "worker" => wire::one_of(workers.iter().copied(), worker),
        "args" => wire::object_as_string(
            "the worker's arguments, e.g. {\"report_date\": \"2026-02-26\", \"region\": \"US\"}",
        ),
        "critical" => wire::boolean("Whether the run stops when this task fails."),
        other => unreachable!("the task key {other} has no schema"),
    }
}

/// Each task's args written as a string holding an object, read back as
/// the object.
fn normalise(mut plan: Value) -> Value {
    let tasks = plan.get_mut(TASKS).and_then(Value::as_array_mut);
    for task in tasks.into_iter().flatten() {
        if let Some(args) = task.get_mut("args") {
            wire::object_of_string(args);
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::super::plan::validate_plan;
    use super::super::{Limits, PLAN_PROMPT, plan_payload};
    use super::*;
    use crate::patterns::contract_checks::{json_of, outputs, shipped};
    use crate::provider::contract::strict::{check_answer, check_contract};
    use crate::provider::{ModelRequest, SimProvider};
    use crate::rng::RunRng;
    use crate::scenario::PatternKind;
    use serde_json::json;
    use std::sync::Arc;

    #[tokio::test(start_paused = true)]
    async fn every_accepted_sim_plan_keeps_the_contract() {
        let mut checked = 0;
        for (_, scenario) in shipped() {
            if scenario.pattern != PatternKind::Orchestrator {
                continue;
            }
            let limits = Limits::of(&scenario);
            let workers = scenario.workers.keys().map(String::as_str);
            let contract = plan_contract(workers, limits.max_tasks);
            check_contract(&contract);
            let declared = |w: &str| scenario.workers.contains_key(w);
            let mut answers: Vec<Value> = match &scenario.provider.plan {
                Some(plan) => outputs(&plan.to_value())
                    .into_iter()
                    .filter_map(json_of)
                    .collect(),
                None => Vec::new(),
            };
            // The sim's own plan, when the scenario scripts none.
            let mut spec = (*scenario.provider).clone();
            (spec.plan, spec.latency_ms) = (None, None);
            let sim = SimProvider::new(Arc::new(spec), RunRng::seeded(0));
            let payload = plan_payload(&scenario, &scenario.goal, limits.max_tasks);
            let request = ModelRequest::new(super::super::sim::plan(), &PLAN_PROMPT, payload);
            let own = sim
                .complete(&request)
                .await
                .unwrap()
                .returned_json()
                .unwrap();
            answers.push(own);
            for answer in answers {
                if validate_plan(answer.clone(), declared, limits.max_tasks).is_ok() {
                    check_answer(&contract, &answer);
                    checked += 1;
                }
            }
        }
        assert!(checked >= 10, "only {checked} plans checked");
    }

    #[test]
    fn args_are_asked_for_as_a_string_and_read_back_as_the_object() {
        let contract = plan_contract(["sales_worker"], 4);
        let task = &contract.schema["properties"]["tasks"]["items"];
        assert_eq!(task["required"], json!(REQUIRED_KEYS));
        assert_eq!(
            task["properties"]["worker"]["enum"],
            json!(["sales_worker"])
        );
        assert_eq!(task["properties"]["args"]["type"], "string");
        // No pattern: llama.cpp reads one on the raw text, where it lets
        // the answer's JSON break. What llama-server wrote for args when
        // any string would do is left to the check, which refuses it.
        assert_eq!(task["properties"]["args"].get("pattern"), None);
        let schema = jsonschema::validator_for(&contract.schema).unwrap();
        let plan = |args: &str| {
            json!({"kind": "plan", "tasks": [{"id": "t1", "worker": "sales_worker",
                "args": args, "critical": true}]})
        };
        for prose in ["Sales KPIs for a date and region, by store", "][0],", "{"] {
            let read = (contract.normalise)(plan(prose));
            assert!(
                validate_plan(read, |w| w == "sales_worker", 4).is_err(),
                "{prose}"
            );
        }
        assert!(schema.is_valid(&plan("{\"region\": \"US\"}")));
        assert!(schema.is_valid(&plan("{}")));
        // At least one task, at most the run's limit.
        let mut none = plan("{}");
        none["tasks"] = json!([]);
        assert!(!schema.is_valid(&none));
        let mut five = plan("{}");
        five["tasks"] = Value::Array(vec![five["tasks"][0].clone(); 5]);
        assert!(!schema.is_valid(&five), "max_tasks is 4");
        let wire = json!({"kind": "plan", "tasks": [{"id": "t1", "worker": "sales_worker",
            "args": "{\"region\": \"US\"}", "critical": true}]});
        let read = (contract.normalise)(wire);
        assert_eq!(read["tasks"][0]["args"], json!({"region": "US"}));
        assert!(validate_plan(read, |w| w == "sales_worker", 4).is_ok());
        assert_eq!(
            (contract.normalise)(json!({"kind": "plan", "tasks": [{"args": "[1]"}]})),
            json!({"kind": "plan", "tasks": [{"args": "[1]"}]}),
            "args that hold no object are left for the check to refuse"
        );
    }
}
