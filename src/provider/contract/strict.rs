//! Tests only: a contract's schema checked against OpenAI's documented
//! strict subset, its function names against the API's rule, and an answer
//! in the contract's own JSON written in wire form and read back.

use super::Contract;
use super::wire::OBJECT_AS_STRING;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The keywords the strict subset supports, whatever the type.
const KEYWORDS: [&str; 11] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "$defs",
    "$ref",
];
/// The keywords it supports for one type only.
const TYPED_KEYWORDS: [(&str, &str); 9] = [
    ("pattern", "string"),
    ("format", "string"),
    ("minimum", "number"),
    ("maximum", "number"),
    ("exclusiveMinimum", "number"),
    ("exclusiveMaximum", "number"),
    ("multipleOf", "number"),
    ("minItems", "array"),
    ("maxItems", "array"),
];
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];
/// OpenAI's limits: levels of nesting, properties and enum values in all.
const MAX_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5_000;
const MAX_ENUM_VALUES: usize = 1_000;

/// Whether `schema` fits the strict subset; what breaks it, where, if not.
pub(crate) fn check(schema: &Value) -> Result<(), String> {
    if schema.get("type") != Some(&Value::from("object")) {
        return Err("the root must be an object (not anyOf, not a list of types)".into());
    }
    let mut totals = Totals::default();
    node(schema, "#", 1, &mut totals)?;
    if totals.properties > MAX_PROPERTIES {
        return Err(format!("{} properties in all", totals.properties));
    }
    if totals.enum_values > MAX_ENUM_VALUES {
        return Err(format!("{} enum values in all", totals.enum_values));
    }
    Ok(())
}

#[derive(Default)]
struct Totals {
    properties: usize,
    enum_values: usize,
}

fn node(schema: &Value, at: &str, depth: usize, totals: &mut Totals) -> Result<(), String> {
    let fail = |what: String| Err(format!("{at}: {what}"));
    let Value::Object(schema) = schema else {
        return fail("a schema must be an object".into());
    };
    if depth > MAX_DEPTH {
        return fail(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    let types = types_of(schema).map_err(|e| format!("{at}: {e}"))?;
    for key in schema.keys() {
        let typed = TYPED_KEYWORDS.iter().find(|(k, _)| k == key);
        match typed {
            Some((_, "number")) if types.contains("number") || types.contains("integer") => {}
            Some((_, ty)) if types.contains(*ty) => {}
            Some((_, ty)) => return fail(format!("`{key}` on a schema that is not a {ty}")),
            None if KEYWORDS.contains(&key.as_str()) => {}
            None => return fail(format!("`{key}` is not in the strict subset")),
        }
    }
    if let Some(format) = schema.get("format")
        && !format.as_str().is_some_and(|f| FORMATS.contains(&f))
    {
        return fail(format!("format {format} is not supported"));
    }
    if let Some(values) = schema.get("enum") {
        let Value::Array(values) = values else {
            return fail("`enum` must be a list".into());
        };
        if values.is_empty() || values.iter().any(|v| v.is_array() || v.is_object()) {
            return fail("`enum` must list one or more plain values".into());
        }
        totals.enum_values += values.len();
    }
    if types.contains("object") || schema.contains_key("properties") {
        closed_object(schema, at, depth, totals)?;
    }
    if let Some(items) = schema.get("items") {
        node(items, &format!("{at}/items"), depth + 1, totals)?;
    } else if types.contains("array") {
        return fail("an array must say its `items`".into());
    }
    for (key, branches) in [
        ("anyOf", schema.get("anyOf")),
        ("$defs", schema.get("$defs")),
    ] {
        match branches {
            None => {}
            Some(Value::Array(list)) if key == "anyOf" && !list.is_empty() => {
                for (i, branch) in list.iter().enumerate() {
                    node(branch, &format!("{at}/anyOf/{i}"), depth, totals)?;
                }
            }
            Some(Value::Object(defs)) if key == "$defs" => {
                for (name, def) in defs {
                    node(def, &format!("#/$defs/{name}"), 1, totals)?;
                }
            }
            Some(_) => return fail(format!("`{key}` is malformed")),
        }
    }
    if let Some(reference) = schema.get("$ref")
        && !reference.as_str().is_some_and(|r| r.starts_with('#'))
    {
        return fail("`$ref` must point inside the schema".into());
    }
    Ok(())
}

/// The types a schema names (none for an `anyOf` or a `$ref`).
fn types_of(schema: &Map<String, Value>) -> Result<BTreeSet<&str>, String> {
    let named: Vec<&Value> = match schema.get("type") {
        None => Vec::new(),
        Some(Value::Array(list)) => list.iter().collect(),
        Some(one) => vec![one],
    };
    named
        .into_iter()
        .map(|t| match t.as_str() {
            Some(t) if TYPES.contains(&t) => Ok(t),
            _ => Err(format!("unknown type {t}")),
        })
        .collect()
}

fn closed_object(
    schema: &Map<String, Value>,
    at: &str,
    depth: usize,
    totals: &mut Totals,
) -> Result<(), String> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Err(format!("{at}: an object must list its `properties`"));
    };
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        return Err(format!(
            "{at}: an object must say `additionalProperties: false`"
        ));
    }
    let required: BTreeSet<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let listed: BTreeSet<&str> = properties.keys().map(String::as_str).collect();
    if required != listed {
        return Err(format!(
            "{at}: `required` must list every property: {listed:?}, found {required:?}"
        ));
    }
    totals.properties += properties.len();
    for (key, property) in properties {
        node(property, &format!("{at}/{key}"), depth + 1, totals)?;
    }
    Ok(())
}

/// Whether `name` may name a function: `^[a-zA-Z0-9_-]{1,64}$`.
pub(crate) fn valid_function_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Check `contract`: its schema and its strict functions' parameters in
/// the strict subset, its functions named as the API allows, each once.
pub(crate) fn check_contract(contract: &Contract) {
    let name = contract.name;
    assert!(valid_function_name(name), "{name}: the schema's name");
    if let Err(error) = check(&contract.schema) {
        panic!("{name}: {error}\n{:#}", contract.schema);
    }
    let mut seen = BTreeSet::new();
    for function in contract.functions.iter() {
        let f = &function.name;
        assert!(valid_function_name(f), "{name}: function {f:?}");
        assert!(seen.insert(f.clone()), "{name}: function {f:?} twice");
        if function.strict
            && let Err(error) = check(&function.parameters)
        {
            panic!("{name}: function {f}: {error}");
        }
        assert_eq!(function.parameters["type"], "object", "{name}: {f}");
    }
}

/// `answer`, in the contract's own JSON, as a strict answer writes it:
/// every nullable property present (null when the answer leaves it out),
/// and each free-form object as a string holding it.
pub(crate) fn to_wire(schema: &Value, answer: &Value) -> Value {
    if let Some(key) = wrapper(schema, answer) {
        let inner = to_wire(&schema["properties"][key], answer);
        return Value::Object(Map::from_iter([(key.to_string(), inner)]));
    }
    let as_string = branch_with(schema, "description")
        .and_then(Value::as_str)
        .is_some_and(|d| d.starts_with(OBJECT_AS_STRING));
    match answer {
        Value::Object(_) if as_string => Value::String(answer.to_string()),
        Value::Object(fields) => {
            let Some(properties) = branch_for(schema, fields) else {
                return answer.clone();
            };
            let mut wire = fields.clone();
            for (key, property) in properties {
                match fields.get(key) {
                    Some(value) => {
                        wire.insert(key.clone(), to_wire(property, value));
                    }
                    None if admits_null(property) => {
                        wire.insert(key.clone(), Value::Null);
                    }
                    None => {}
                }
            }
            Value::Object(wire)
        }
        Value::Array(items) => match branch_with(schema, "items") {
            Some(item) => Value::Array(items.iter().map(|i| to_wire(item, i)).collect()),
            None => answer.clone(),
        },
        _ => answer.clone(),
    }
}

/// The one key of a root that wraps the answer's forms (a turn's
/// `{"turn": {...}}`: the strict root cannot be an `anyOf`), when
/// `answer`, in the contract's own form, is not wrapped.
fn wrapper<'s>(schema: &'s Value, answer: &Value) -> Option<&'s str> {
    let properties = schema.get("properties")?.as_object()?;
    let [(key, inner)] = properties.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let forms = inner.get("anyOf").is_some() || inner.get("type") == Some(&"object".into());
    let Value::Object(fields) = answer else {
        return None;
    };
    (forms && !fields.contains_key(key)).then_some(key.as_str())
}

/// The properties of the object `schema` is, or of the first `anyOf`
/// branch whose properties hold every key `fields` sets (the form the
/// answer takes), else of its first branch that has properties.
fn branch_for<'s>(
    schema: &'s Value,
    fields: &Map<String, Value>,
) -> Option<&'s Map<String, Value>> {
    if let Some(properties) = schema.get("properties") {
        return properties.as_object();
    }
    let branches: Vec<&Map<String, Value>> = schema
        .get("anyOf")?
        .as_array()?
        .iter()
        .filter_map(|b| b.get("properties")?.as_object())
        .collect();
    let holds = |p: &&Map<String, Value>| fields.keys().all(|k| p.contains_key(k));
    branches
        .iter()
        .copied()
        .find(holds)
        .or(branches.first().copied())
}

/// `schema`'s `key`, or that of its first `anyOf` branch that has one.
fn branch_with<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    schema.get(key).or_else(|| {
        schema
            .get("anyOf")?
            .as_array()?
            .iter()
            .find_map(|b| b.get(key))
    })
}

fn admits_null(schema: &Value) -> bool {
    let names_null = |s: &Value| match s.get("type") {
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        Some(t) => t == "null",
        None => false,
    };
    names_null(schema)
        || schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|b| b.iter().any(names_null))
}

/// Check a valid `answer` against `contract`: written in wire form it
/// keeps the schema, and `normalise` reads it back as it was; the answer
/// itself, and the answer read back, `normalise` leaves as they are.
pub(crate) fn check_answer(contract: &Contract, answer: &Value) {
    let name = contract.name;
    let wire = to_wire(&contract.schema, answer);
    let validator = jsonschema::validator_for(&contract.schema).expect("a valid JSON Schema");
    let errors: Vec<String> = validator
        .iter_errors(&wire)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{name}: {wire} breaks the schema: {errors:?}"
    );
    let normalise = contract.normalise;
    assert_eq!(
        &normalise(wire.clone()),
        answer,
        "{name}: read back from {wire}"
    );
    assert_eq!(
        &normalise(answer.clone()),
        answer,
        "{name}: already in its own form"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::contract::wire::{nullable, object, object_as_string, one_of, string};
    use serde_json::json;

    #[test]
    fn the_checker_refuses_what_openai_documents_as_unsupported() {
        let ok = object("A turn.", vec![("reply", nullable(string("Text.")))]);
        assert_eq!(check(&ok), Ok(()));
        let mut open = ok.clone();
        open["additionalProperties"] = json!(true);
        let mut optional = ok.clone();
        optional["required"] = json!([]);
        let mut defaulted = ok.clone();
        defaulted["properties"]["reply"]["default"] = json!("x");
        let mut one_of_keyword = ok.clone();
        one_of_keyword["properties"]["reply"] = json!({"oneOf": [{"type": "string"}]});
        let mut bad_format = ok.clone();
        bad_format["properties"]["reply"]["format"] = json!("uri");
        let mut free = ok.clone();
        free["properties"]["reply"] = json!({"type": "object"});
        let table = [
            (json!({"anyOf": [ok.clone()]}), "#: the root"),
            (open, "additionalProperties"),
            (optional, "`required` must list every property"),
            (defaulted, "`default` is not in the strict subset"),
            (one_of_keyword, "`oneOf` is not in the strict subset"),
            (bad_format, "not supported"),
            (free, "must list its `properties`"),
            (
                object("x", vec![("n", json!({"type": "string", "minimum": 1}))]),
                "`minimum` on a schema that is not a number",
            ),
            (
                object("x", vec![("l", json!({"type": "array"}))]),
                "must say its `items`",
            ),
        ];
        for (schema, words) in table {
            let error = check(&schema).expect_err(&schema.to_string());
            assert!(
                error.contains(words) || words == "#: the root" && error.contains("root"),
                "{error}"
            );
        }
        let deep = (0..MAX_DEPTH).fold(string("leaf"), |inner, _| object("x", vec![("x", inner)]));
        assert!(check(&deep).unwrap_err().contains("deeper"));
    }

    #[test]
    fn wire_form_fills_nulls_and_writes_free_form_objects_as_strings() {
        let schema = object(
            "x",
            vec![
                ("call", nullable(one_of(["t"], "Tool."))),
                ("args", nullable(object_as_string("its args"))),
                (
                    "list",
                    json!({"type": "array", "items": object("i", vec![("args", object_as_string("a"))])}),
                ),
            ],
        );
        assert_eq!(
            to_wire(
                &schema,
                &json!({"call": "t", "args": {"a": 1}, "list": [{"args": {}}]})
            ),
            json!({"call": "t", "args": "{\"a\":1}", "list": [{"args": "{}"}]})
        );
        assert_eq!(
            to_wire(&schema, &json!({"list": []})),
            json!({"call": null, "args": null, "list": []})
        );
        assert!(valid_function_name("transfer_to_agent"));
        assert!(!valid_function_name(&"a".repeat(65)));
        assert!(!valid_function_name("billing.v2"));
    }
}
