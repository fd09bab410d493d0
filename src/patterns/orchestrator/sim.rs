//! The orchestrator's calls as the sim answers them: the plan (scripted in
//! `provider.plan`) and the final brief (`provider.final_answer`). What the
//! sim writes for a run whose scenario scripts no `plan` or no
//! `final_answer`: a plan with one critical task per worker in the
//! catalog, and a brief from the aggregate. Pure functions of the request
//! payload.

use crate::provider::sim::{Script, SimScript};
use crate::provider::{ModelOutput, ProviderError, Purpose};
use crate::pycompat::py_json_dumps;
use crate::scenario::ProviderSpec;
use serde_json::{Map, Value, json};

/// The call for the planner's plan of tasks.
pub(crate) fn plan() -> Purpose {
    Purpose::new("plan", "plan", "planner", &PlanScript)
}

/// The call for the brief after the workers reported.
pub(crate) fn final_brief() -> Purpose {
    Purpose::new("final_brief", "final_answer", "final_answer", &BriefScript)
}

/// `provider.plan`, kept as the scenario's text.
#[derive(Debug)]
struct PlanScript;

impl SimScript for PlanScript {
    fn script<'a>(&self, spec: &'a ProviderSpec, _: &Purpose) -> Script<'a> {
        spec.plan.as_ref().map_or(Script::None, Script::Text)
    }

    fn unscripted(&self, _: &Purpose, payload: &Value) -> Result<ModelOutput, ProviderError> {
        Ok(ModelOutput::Json(default_plan(payload)))
    }
}

/// `provider.final_answer`.
#[derive(Debug)]
struct BriefScript;

impl SimScript for BriefScript {
    fn script<'a>(&self, spec: &'a ProviderSpec, _: &Purpose) -> Script<'a> {
        spec.final_answer
            .as_ref()
            .map_or(Script::None, Script::Outputs)
    }

    fn unscripted(&self, _: &Purpose, payload: &Value) -> Result<ModelOutput, ProviderError> {
        Ok(ModelOutput::Text(brief_from_aggregate(payload)))
    }
}

/// One critical task per worker of `available_workers`, in catalog order,
/// each asked for the payload's `report_date` and `region`.
fn default_plan(payload: &Value) -> Value {
    let tasks: Vec<Value> = payload["available_workers"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, worker)| {
            json!({
                "id": format!("t{}", i + 1),
                "worker": worker["name"],
                "args": {"report_date": payload["report_date"], "region": payload["region"]},
                "critical": true,
            })
        })
        .collect();
    json!({"kind": "plan", "tasks": tasks})
}

/// The headline health, the first three facts of each worker's result and
/// the failed tasks.
fn brief_from_aggregate(payload: &Value) -> String {
    let aggregate = payload["aggregate"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let text = |key: &str| match aggregate.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "?".to_string(),
        Some(other) => py_json_dumps(other),
    };
    let mut brief = format!(
        "Operations report for {} on {}: health {}.",
        text("region"),
        text("report_date"),
        text("health").to_uppercase()
    );
    for (name, result) in &aggregate {
        if matches!(
            name.as_str(),
            "report_date" | "region" | "health" | "failed_tasks"
        ) {
            continue;
        }
        let facts = result.as_object().map_or_else(String::new, facts);
        if facts.is_empty() {
            brief.push_str(&format!(" {name}: no data."));
        } else {
            brief.push_str(&format!(" {name}: {facts}."));
        }
    }
    let failed: Vec<String> = aggregate
        .get("failed_tasks")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|t| {
            format!(
                "{} ({})",
                t["task_id"].as_str().unwrap_or("?"),
                t["stop_reason"].as_str().unwrap_or("?")
            )
        })
        .collect();
    if !failed.is_empty() {
        brief.push_str(&format!(" Failed: {}.", failed.join(", ")));
    }
    brief
}

fn facts(result: &Map<String, Value>) -> String {
    result
        .iter()
        .take(3)
        .map(|(key, value)| match value {
            Value::String(s) => format!("{key} {s}"),
            other => format!("{key} {}", py_json_dumps(other)),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_plan_asks_every_worker_for_the_report() {
        let payload = json!({"report_date": "2026-02-26", "region": "US",
            "available_workers": [{"name": "sales_worker"}, {"name": "payments_worker"}]});
        assert_eq!(
            default_plan(&payload),
            json!({"kind": "plan", "tasks": [
                {"id": "t1", "worker": "sales_worker", "args": {"report_date": "2026-02-26", "region": "US"}, "critical": true},
                {"id": "t2", "worker": "payments_worker", "args": {"report_date": "2026-02-26", "region": "US"}, "critical": true}
            ]})
        );
    }

    #[test]
    fn the_brief_reads_the_aggregate() {
        let payload = json!({"aggregate": {
            "report_date": "2026-02-26", "region": "US", "health": "yellow",
            "sales": {"gross_sales_usd": 182450.0, "orders": 4820, "aov_usd": 37.85, "extra": 1},
            "inventory": {},
            "failed_tasks": [{"task_id": "t3", "stop_reason": "worker_denied:inventory_worker"}]
        }});
        assert_eq!(
            brief_from_aggregate(&payload),
            "Operations report for US on 2026-02-26: health YELLOW. sales: gross_sales_usd 182450.0, \
             orders 4820, aov_usd 37.85. inventory: no data. Failed: t3 (worker_denied:inventory_worker)."
        );
    }
}
