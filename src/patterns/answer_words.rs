//! What was wrong with a model's answer, in words the model can act on
//! when it is asked again (`missing key "stance"`), from the stop reason
//! its pattern's contract gave it. Shared by every pattern's repair check.

use crate::pycompat::py_strip;
use crate::stop::{PatternReason, StopFacts};
use serde_json::Value;

/// The problem of `raw`, an answer read as JSON, that its contract
/// refused with `reason`; `required` are the contract's keys.
pub(crate) fn problem(reason: &impl PatternReason, raw: &Value, required: &[&str]) -> String {
    match raw {
        // How 000 and 001 read text that is not JSON.
        Value::Object(fields)
            if fields.contains_key("raw")
                && (fields.get("invalid") == Some(&Value::Bool(true))
                    || fields.get("kind") == Some(&Value::from("invalid"))) =>
        {
            "the answer is not JSON: answer with one JSON object".to_string()
        }
        Value::Object(fields) => {
            let missing: Vec<String> = required
                .iter()
                .filter(|key| !fields.contains_key(**key))
                .map(|key| format!("\"{key}\""))
                .collect();
            match missing.len() {
                0 => in_words(reason),
                1 => format!("missing key {}", missing[0]),
                _ => format!("missing keys {}", missing.join(", ")),
            }
        }
        _ => "the answer is not one JSON object".to_string(),
    }
}

/// How much of a wrong value a repair quotes.
const FOUND_CHARS: usize = 80;

/// The rule an `args` breaks, `whose` naming it: a JSON object, which the
/// schema asks for as a string that holds it (the strict subset has no
/// free-form object), shown with `example`, its arguments as an object.
pub(crate) fn args_rule(whose: &str, example: &str) -> String {
    format!(
        "{whose} must be a JSON object, written as a string that holds it, such as {} (\"{{}}\" when there are none)",
        Value::from(example)
    )
}

/// A value an answer gave, as a repair quotes it: text as text, the rest
/// as JSON, cut where a word ends.
pub(crate) fn found(value: &Value) -> String {
    match value {
        Value::String(text) => format!(
            "the text {}",
            crate::words::excerpt(&Value::from(text.as_str()).to_string(), FOUND_CHARS)
        ),
        other => crate::words::excerpt(&other.to_string(), FOUND_CHARS),
    }
}

/// The words of a plan refused for the `args` of one of its `list`
/// (`tasks`, `steps`), each a `noun`: the first whose args are not an
/// object, by its id, what they must be and what the answer gave. Where
/// no item has such args (the plan as read differs), the reason's words.
pub(crate) fn args_problem(
    reason: &impl PatternReason,
    raw: &Value,
    (list, noun): (&str, &str),
    example: &str,
) -> String {
    let Some((at, item)) = first_wrong(raw, list, |args| args.is_object(), "args") else {
        return in_words(reason);
    };
    let name = match item.get("id").and_then(Value::as_str) {
        Some(id) => format!("{noun} {}", Value::from(id)),
        None => format!("{noun} {}", at + 1),
    };
    format!(
        "{reason}: {}; {name} {}",
        args_rule(&format!("the \"args\" of each {noun}"), example),
        gave(item, "args", "leaves them out")
    )
}

/// The words of a plan refused for the `id` of one of its `list` items,
/// each a `noun`: the first whose id is not text with something in it, by
/// its place, what the id must be (`example`) and what the answer gave.
/// Where no item has such an id, the reason's words.
pub(crate) fn id_problem(
    reason: &impl PatternReason,
    raw: &Value,
    (list, noun): (&str, &str),
    example: &str,
) -> String {
    let names = |id: &Value| id.as_str().is_some_and(|id| !py_strip(id).is_empty());
    let Some((at, item)) = first_wrong(raw, list, names, "id") else {
        return in_words(reason);
    };
    format!(
        "{reason}: the \"id\" of each {noun} must be a text that names it, such as {}; {noun} {} {}",
        Value::from(example),
        at + 1,
        gave(item, "id", "leaves it out")
    )
}

/// The first item of `raw`'s `list` whose `key` is missing or not `right`,
/// with its place.
fn first_wrong<'a>(
    raw: &'a Value,
    list: &str,
    right: impl Fn(&Value) -> bool,
    key: &str,
) -> Option<(usize, &'a Value)> {
    let items = raw.get(list).and_then(Value::as_array)?;
    items
        .iter()
        .enumerate()
        .find(|(_, item)| !item.get(key).is_some_and(&right))
}

/// What `item` gave for `key`: its value quoted, or `absent`.
fn gave(item: &Value, key: &str, absent: &str) -> String {
    match item.get(key) {
        None => absent.to_string(),
        Some(value) => format!("has {}", found(value)),
    }
}

/// A refusal as its reason says it: `invalid_contribution:stance` and
/// what that means.
pub(crate) fn in_words(reason: &impl PatternReason) -> String {
    format!("{reason}: {}", reason.explain(&StopFacts::default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::collaboration::stops::{ContributionError, RoundStop};
    use serde_json::json;

    #[test]
    fn args_that_are_no_object_are_told_what_they_must_be() {
        use crate::patterns::orchestrator::stops::{PlanError, TaskStop};
        let reason = TaskStop::InvalidPlan(PlanError::Args);
        let plan = json!({"kind": "plan", "tasks": [
            {"id": "t1", "worker": "w", "args": {"region": "US"}, "critical": true},
            {"id": "t2", "worker": "w", "args": "Sales KPIs for a date and region, by each store", "critical": true}
        ]});
        let words = args_problem(&reason, &plan, ("tasks", "task"), "{\"region\": \"US\"}");
        assert_eq!(
            words,
            r#"invalid_plan:args: the "args" of each task must be a JSON object, written as a string that holds it, such as "{\"region\": \"US\"}" ("{}" when there are none); task "t2" has the text "Sales KPIs for a date and region, by each store""#
        );
        let long = "word ".repeat(40);
        let cut = found(&json!(long));
        assert!(cut.ends_with("word… (202 characters in all)"), "{cut}");
        let none = json!({"kind": "plan", "tasks": [{"id": "t1"}]});
        assert!(
            args_problem(&reason, &none, ("tasks", "task"), "{}")
                .ends_with("task \"t1\" leaves them out")
        );
        assert_eq!(
            args_problem(&reason, &json!({"tasks": []}), ("tasks", "task"), "{}"),
            in_words(&reason)
        );
    }

    #[test]
    fn an_id_that_names_nothing_is_told_what_it_must_be() {
        use crate::patterns::orchestrator::stops::{PlanError, TaskStop};
        use crate::patterns::research::stops::{ResearchStop, StepError};
        let reason = ResearchStop::InvalidStep(StepError::Id);
        let plan = json!({"steps": [
            {"id": "r1", "action": "search_sources", "args": {}},
            {"id": "  ", "action": "dedupe_urls", "args": {}},
        ]});
        assert_eq!(
            id_problem(&reason, &plan, ("steps", "step"), "r1"),
            r#"invalid_step:id: the "id" of each step must be a text that names it, such as "r1"; step 2 has the text "  ""#
        );
        let none = json!({"steps": [{"action": "search_sources", "args": {}}]});
        assert!(
            id_problem(&reason, &none, ("steps", "step"), "r1").ends_with("step 1 leaves it out")
        );
        let reason = TaskStop::InvalidPlan(PlanError::TaskId);
        let plan = json!({"kind": "plan", "tasks": [{"id": 3, "worker": "w", "args": {}, "critical": true}]});
        assert_eq!(
            id_problem(&reason, &plan, ("tasks", "task"), "t1"),
            r#"invalid_plan:task_id: the "id" of each task must be a text that names it, such as "t1"; task 1 has 3"#
        );
        // A plan as read where every id names something: the reason's words.
        assert_eq!(
            id_problem(
                &reason,
                &json!({"tasks": [{"id": "t1"}]}),
                ("tasks", "task"),
                "t1"
            ),
            in_words(&reason)
        );
    }

    #[test]
    fn the_words_name_the_missing_keys_or_the_rule() {
        let reason = RoundStop::InvalidContribution(ContributionError::MissingKeys);
        let keys = ["agent", "stance", "summary"];
        assert_eq!(
            problem(&reason, &json!({"agent": "a", "summary": "s"}), &keys),
            "missing key \"stance\""
        );
        assert_eq!(
            problem(&reason, &json!({"agent": "a"}), &keys),
            "missing keys \"stance\", \"summary\""
        );
        assert_eq!(
            problem(&reason, &json!({"invalid": true, "raw": "hm"}), &keys),
            "the answer is not JSON: answer with one JSON object"
        );
        let stance = RoundStop::InvalidContribution(ContributionError::Stance);
        assert_eq!(
            problem(
                &stance,
                &json!({"agent": "a", "stance": "x", "summary": "s"}),
                &keys
            ),
            "invalid_contribution:stance: a contribution broke the contribution contract (stance)"
        );
        assert_eq!(
            problem(&stance, &json!([1]), &keys),
            "the answer is not one JSON object"
        );
    }
}
