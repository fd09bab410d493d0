//! Schemas in OpenAI's strict subset, built the same way for every
//! contract: closed objects whose every property is required, optional ones
//! nullable, and a free-form object asked for as a string holding it (the
//! subset has no open objects). Also the one forced function of a contract
//! with a single answer, `submit_<name>`, and how its call reads back.

use super::{Contract, Function, ToolCall};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// How the description of a free-form object asked for as a string starts:
/// what `normalise` parses back, and what tests write an object as.
pub(crate) const OBJECT_AS_STRING: &str = "A JSON object written as a string";

/// How much of a model's arguments an error quotes.
const QUOTED_CHARS: usize = 200;

/// A closed object: every property required, no other key allowed.
pub(crate) fn object(description: &str, properties: Vec<(&str, Value)>) -> Value {
    let required: Vec<&str> = properties.iter().map(|(key, _)| *key).collect();
    let properties: Map<String, Value> = properties
        .into_iter()
        .map(|(key, schema)| (key.to_string(), schema))
        .collect();
    json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

pub(crate) fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

pub(crate) fn number(description: &str) -> Value {
    json!({"type": "number", "description": description})
}

/// A number from `minimum` to `maximum`, both included.
pub(crate) fn number_in(description: &str, minimum: f64, maximum: f64) -> Value {
    json!({"type": "number", "description": description, "minimum": minimum, "maximum": maximum})
}

pub(crate) fn boolean(description: &str) -> Value {
    json!({"type": "boolean", "description": description})
}

pub(crate) fn array(items: Value, description: &str) -> Value {
    json!({"type": "array", "description": description, "items": items})
}

/// `array` holding at least `min` items and at most `max`, when it says.
pub(crate) fn bounded(mut array: Value, min: usize, max: Option<usize>) -> Value {
    array["minItems"] = json!(min);
    if let Some(max) = max {
        array["maxItems"] = json!(max);
    }
    array
}

/// A string that is one of `names`.
pub(crate) fn one_of<S: Into<String>>(
    names: impl IntoIterator<Item = S>,
    description: &str,
) -> Value {
    let names: Vec<Value> = names.into_iter().map(|n| Value::String(n.into())).collect();
    json!({"type": "string", "description": description, "enum": names})
}

/// A free-form object, asked for as a string that holds it; `what` says
/// what the object is. No `pattern` holds the string to a brace at each
/// end: llama.cpp's grammar (llama-server, llama-cpp-python) applies a
/// pattern to the string's raw text, where its `.` admits a bare `"`, so
/// a model there left the string and wrote on until its limit, and the
/// answer was no JSON at all (`llm_bad_response`, unrepaired) where a
/// plain string keeps it JSON and a prose `args` is repaired in words
/// that say what it must be.
pub(crate) fn object_as_string(what: &str) -> Value {
    string(&format!("{OBJECT_AS_STRING}: {what}"))
}

/// `schema`, or null: how the strict subset writes an optional key. A
/// plain string takes `"type": ["string", "null"]`; anything else (an enum
/// among them, whose list would need a null too) an `anyOf`.
pub(crate) fn nullable(mut schema: Value) -> Value {
    let plain_string = schema["type"] == "string" && schema.get("enum").is_none();
    if plain_string {
        schema["type"] = json!(["string", "null"]);
        return schema;
    }
    let description = schema
        .as_object_mut()
        .and_then(|s| s.remove("description"))
        .unwrap_or_else(|| "".into());
    json!({"description": description, "anyOf": [schema, {"type": "null"}]})
}

/// The object a string holds, when `value` is a string holding a JSON
/// object; anything else is left as it is, for the contract's check to
/// judge.
pub(crate) fn object_of_string(value: &mut Value) {
    if let Value::String(text) = value
        && let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(text)
    {
        *value = object;
    }
}

/// Drop the `keys` of `map` that are null: optional keys a strict answer
/// writes as null and the contract's own JSON leaves out.
pub(crate) fn drop_nulls(map: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if map.get(*key).is_some_and(Value::is_null) {
            map.shift_remove(*key);
        }
    }
}

/// A contract whose answer is one object: `native` asks for `schema`,
/// `tool` for the one function `submit_<name>` taking it. The first call
/// of that function is the answer (a repeated call adds nothing); a call
/// of any other function, or no call, is an error.
pub(crate) fn single(name: &'static str, schema: Value, normalise: fn(Value) -> Value) -> Contract {
    let function = format!("submit_{name}");
    let offered = function.clone();
    Contract {
        name,
        functions: vec![Function {
            name: function,
            description: format!("Submit your {name}: call it once, with the whole answer."),
            parameters: schema.clone(),
            strict: true,
        }]
        .into(),
        schema,
        answer_of_calls: Arc::new(move |calls: &[ToolCall]| {
            if let Some(other) = calls.iter().find(|c| c.name != offered) {
                return Err(not_offered(&other.name, &[offered.as_str()]));
            }
            let first = calls.first().ok_or_else(|| {
                format!("no function was called: call `{offered}` with the answer")
            })?;
            Ok(normalise(Value::Object(arguments(first)?.clone())))
        }),
        normalise,
    }
}

/// The arguments of `call`, which must be a JSON object.
pub(crate) fn arguments(call: &ToolCall) -> Result<&Map<String, Value>, String> {
    match &call.arguments {
        Value::Object(object) => Ok(object),
        other => Err(format!(
            "the arguments of `{}` are not a JSON object: {}",
            call.name,
            quoted(other)
        )),
    }
}

/// The error of a call of `name`, which is none of `offered`.
pub(crate) fn not_offered(name: &str, offered: &[&str]) -> String {
    format!(
        "`{name}` is not a function you were given; call one of {}",
        listed(offered)
    )
}

/// Function names as an error lists them: `a`, `b`.
pub(crate) fn listed(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    names.join(", ")
}

/// `value` as compact JSON (a string as its text), cut to a short excerpt
/// where a word ends.
pub(crate) fn quoted(value: &Value) -> String {
    match value {
        Value::String(text) => crate::words::excerpt(text, QUOTED_CHARS),
        other => crate::words::excerpt(&other.to_string(), QUOTED_CHARS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            name: name.into(),
            arguments,
        }
    }

    fn parse_args(mut value: Value) -> Value {
        if let Some(args) = value.get_mut("args") {
            object_of_string(args);
        }
        value
    }

    #[test]
    fn a_single_answer_is_the_first_call_of_its_one_function() {
        let contract = single("plan", object("A plan.", vec![]), parse_args);
        assert_eq!(contract.functions[0].name, "submit_plan");
        assert_eq!(contract.functions[0].parameters, contract.schema);
        let read = |calls: &[ToolCall]| (contract.answer_of_calls)(calls);
        assert_eq!(
            read(&[
                call("submit_plan", json!({"args": "{\"a\": 1}"})),
                call("submit_plan", json!({"args": "{}"})),
            ]),
            Ok(json!({"args": {"a": 1}})),
            "normalised, and the first call is the answer"
        );
        assert_eq!(
            read(&[]),
            Err("no function was called: call `submit_plan` with the answer".into())
        );
        assert_eq!(
            read(&[call("submit_plan", json!({})), call("lookup", json!({}))]),
            Err("`lookup` is not a function you were given; call one of `submit_plan`".into())
        );
        assert_eq!(
            read(&[call("submit_plan", json!("{\"kind\": \"pl"))]),
            Err("the arguments of `submit_plan` are not a JSON object: {\"kind\": \"pl".into())
        );
    }

    #[test]
    fn optional_keys_are_nullable_and_free_form_objects_are_strings() {
        assert_eq!(
            nullable(string("Why.")),
            json!({"type": ["string", "null"], "description": "Why."})
        );
        assert_eq!(
            nullable(one_of(["a"], "Who.")),
            json!({"description": "Who.", "anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]})
        );
        for (mut given, want) in [
            (json!("{\"k\": [1]}"), json!({"k": [1]})),
            (json!({"k": 1}), json!({"k": 1})),
            (json!("[1]"), json!("[1]")),
            (json!("{\"k\": "), json!("{\"k\": ")),
        ] {
            object_of_string(&mut given);
            assert_eq!(given, want);
        }
        let long = "é".repeat(300);
        assert_eq!(
            quoted(&json!(long)),
            format!("{}… (300 characters in all)", "é".repeat(QUOTED_CHARS))
        );
        let words = "a plan, with each field ".repeat(20);
        let cut = quoted(&json!(words));
        assert!(cut.ends_with("plan,… (480 characters in all)"), "{cut}");
    }
}
