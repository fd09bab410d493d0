//! The research plan contract, after 004's `validate_plan`: the planner's
//! output is untrusted, checked in 004's order so that the first failing
//! rule names the stop reason, and must be the bounded workflow's five
//! actions in order. Pure functions.

use super::stops::{PlanError, ResearchStop, StepError};
use crate::provider::ModelOutput;
use crate::pycompat::{parse_model_text, py_strip};
use serde_json::{Map, Value, json};

/// The only plan 004 accepts, action by action.
pub(crate) const EXPECTED_ACTIONS: [&str; 5] = [
    "search_sources",
    "dedupe_urls",
    "read_extract_notes",
    "verify_notes",
    "synthesize_answer",
];

/// A plan's one key, and a step's keys in the order the schema asks for
/// them.
pub(super) const STEPS: &str = "steps";
pub(super) const STEP_KEYS: [&str; 3] = [ID, ACTION, ARGS];
const ID: &str = "id";
const ACTION: &str = "action";
const ARGS: &str = "args";

/// A step that passed the contract: id and action stripped.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PlanStep {
    pub(crate) id: String,
    pub(crate) action: String,
    pub(crate) args: Map<String, Value>,
}

/// Why a plan was refused; `details` says what was expected when the
/// actions were out of order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PlanRefusal {
    pub(crate) reason: ResearchStop,
    pub(crate) details: Option<Value>,
}

impl PlanRefusal {
    fn of(reason: ResearchStop) -> Self {
        PlanRefusal {
            reason,
            details: None,
        }
    }
}

/// The planner's output as a plan: text is parsed as JSON (empty text as
/// `{}`, text that is not JSON as `{"invalid": true, "raw": text}`, as the
/// references read model text), and a bare list is read as the steps.
pub(crate) fn plan_json(output: ModelOutput) -> Value {
    #[cfg(test)]
    crate::patterns::parses::note("research plan");
    let value = match output.returned_json() {
        Ok(value) => value,
        Err(text) if text.is_empty() => json!({}),
        Err(text) => {
            parse_model_text(&text).unwrap_or_else(|| json!({"invalid": true, "raw": text}))
        }
    };
    match value {
        Value::Array(steps) => json!({STEPS: steps}),
        other => other,
    }
}

/// Check a plan: a non-empty list of at most `max_steps` steps, each an
/// object with a non-blank text id and action and an object of args, whose
/// actions are exactly [`EXPECTED_ACTIONS`].
pub(crate) fn validate_plan(raw: &Value, max_steps: usize) -> Result<Vec<PlanStep>, PlanRefusal> {
    let steps = match raw.get(STEPS) {
        Some(Value::Array(steps)) if !steps.is_empty() => steps,
        _ => return Err(PlanRefusal::of(ResearchStop::InvalidPlan(PlanError::Steps))),
    };
    if steps.len() > max_steps {
        return Err(PlanRefusal::of(ResearchStop::InvalidPlan(
            PlanError::TooManySteps,
        )));
    }
    let mut out = Vec::with_capacity(steps.len());
    for step in steps {
        let refuse = |e| PlanRefusal::of(ResearchStop::InvalidStep(e));
        let Value::Object(step) = step else {
            return Err(refuse(StepError::NotObject));
        };
        let text = |key: &str| {
            step.get(key)
                .and_then(Value::as_str)
                .map(py_strip)
                .filter(|s| !s.is_empty())
        };
        let id = text(ID).ok_or_else(|| refuse(StepError::Id))?;
        let action = text(ACTION).ok_or_else(|| refuse(StepError::Action))?;
        let Some(Value::Object(args)) = step.get(ARGS) else {
            return Err(refuse(StepError::Args));
        };
        out.push(PlanStep {
            id: id.to_string(),
            action: action.to_string(),
            args: args.clone(),
        });
    }
    let actions: Vec<&str> = out.iter().map(|s| s.action.as_str()).collect();
    if actions != EXPECTED_ACTIONS {
        return Err(PlanRefusal {
            reason: ResearchStop::InvalidPlan(PlanError::StepSequence),
            details: Some(json!({"expected": EXPECTED_ACTIONS, "received": actions})),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical() -> Value {
        let steps: Vec<Value> = EXPECTED_ACTIONS
            .iter()
            .enumerate()
            .map(|(i, a)| json!({"id": format!("r{}", i + 1), "action": a, "args": {}}))
            .collect();
        json!({"steps": steps})
    }

    fn with(index: usize, key: &str, value: Value) -> Value {
        let mut plan = canonical();
        plan["steps"][index][key] = value;
        plan
    }

    #[test]
    fn every_rejection_in_the_reference_order() {
        let invalid_plan = ResearchStop::InvalidPlan;
        let invalid_step = ResearchStop::InvalidStep;
        let mut removed = canonical();
        removed["steps"][1].as_object_mut().unwrap().remove("args");
        let table = [
            (json!({}), invalid_plan(PlanError::Steps)),
            (json!({"steps": []}), invalid_plan(PlanError::Steps)),
            (json!({"steps": "r1"}), invalid_plan(PlanError::Steps)),
            (json!([1]), invalid_plan(PlanError::Steps)),
            (
                json!({"steps": vec![json!(1); 9]}),
                invalid_plan(PlanError::TooManySteps),
            ),
            (
                json!({"steps": [1, {"id": ""}]}),
                invalid_step(StepError::NotObject),
            ),
            (with(0, "id", json!("  ")), invalid_step(StepError::Id)),
            (with(2, "id", json!(3)), invalid_step(StepError::Id)),
            (
                with(1, "action", json!(null)),
                invalid_step(StepError::Action),
            ),
            (with(3, "args", json!([])), invalid_step(StepError::Args)),
            (removed, invalid_step(StepError::Args)),
            (
                with(4, "action", json!("answer")),
                invalid_plan(PlanError::StepSequence),
            ),
        ];
        for (raw, want) in table {
            assert_eq!(validate_plan(&raw, 8).unwrap_err().reason, want, "{raw}");
        }
    }

    #[test]
    fn a_shuffled_plan_says_what_was_expected() {
        let mut plan = canonical();
        plan["steps"].as_array_mut().unwrap().swap(0, 1);
        let refusal = validate_plan(&plan, 8).unwrap_err();
        assert_eq!(
            refusal.details.unwrap()["received"],
            json!([
                "dedupe_urls",
                "search_sources",
                "read_extract_notes",
                "verify_notes",
                "synthesize_answer"
            ])
        );
    }

    #[test]
    fn ids_and_actions_are_stripped_and_duplicates_pass() {
        let mut plan = with(0, "action", json!(" search_sources\n"));
        plan["steps"][1]["id"] = json!(" r1 ");
        let steps = validate_plan(&plan, 5).unwrap();
        assert_eq!(steps[0].action, "search_sources");
        assert_eq!(steps[1].id, "r1");
        assert_eq!(
            validate_plan(&canonical(), 4).unwrap_err().reason,
            ResearchStop::InvalidPlan(PlanError::TooManySteps)
        );
    }

    #[test]
    fn model_text_is_read_as_a_plan() {
        assert_eq!(plan_json(ModelOutput::Text(String::new())), json!({}));
        assert_eq!(
            plan_json(ModelOutput::Text("plan!".into())),
            json!({"invalid": true, "raw": "plan!"})
        );
        assert_eq!(
            plan_json(ModelOutput::Text("[1]".into())),
            json!({"steps": [1]})
        );
        assert_eq!(plan_json(ModelOutput::Json(json!(5))), json!(5));
    }
}
