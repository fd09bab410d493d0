//! The structural check: a scenario document against the JSON Schema derived
//! from the scenario types, reporting every mismatch (unknown fields, wrong
//! types, missing fields) in words a person can act on.

use super::error::Problem;
use super::path::{JsonPath, Segment};
use super::types::Scenario;
pub(crate) use super::value_words::describe_value;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError, Validator};
use serde_json::Value;
use std::sync::OnceLock;

/// The scenario format's JSON Schema, as `conclave schema` prints it.
pub fn json_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let mut schema = serde_json::to_value(schemars::schema_for!(Scenario))
            .expect("a derived schema serialises");
        if let Some(map) = schema.as_object_mut() {
            map.insert("title".into(), "Conclave scenario".into());
        }
        schema
    })
}

/// The validator of [`json_schema`], compiled once per process.
///
/// The schema is published as draft 2020-12, but checked here as draft 7:
/// it uses only keywords that mean the same in both (the test
/// `the_schema_means_the_same_in_draft_7` holds it to that), and the
/// draft 7 meta-schema the validator first checks the schema against (one
/// small schema, where 2020-12's is eight) costs less to compile. Every
/// command that loads a scenario pays that compile: a debug `conclave
/// validate` of a shipped scenario went from about 48 ms of CPU to 33.
/// Formats are annotations in 2020-12, so they stay unchecked here too.
fn validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft7)
            .should_validate_formats(false)
            .build(&as_draft_7(json_schema()))
            .expect("the derived schema is a valid schema")
    })
}

/// `schema` without its `$schema`, which would name draft 2020-12.
fn as_draft_7(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(map) = schema.as_object_mut() {
        map.remove("$schema");
    }
    schema
}

/// The structural problems of `document`, at most `limit` of them.
pub(crate) fn check(document: &Value, limit: usize) -> Vec<Problem> {
    validator()
        .iter_errors(document)
        .flat_map(|error| describe(document, &error))
        .take(limit)
        .collect()
}

/// `error` in words, at the place in `document` it is about: one problem
/// per thing to fix.
fn describe(document: &Value, error: &ValidationError<'_>) -> Vec<Problem> {
    let path = instance_path(document, error.instance_path().as_str());
    let expected = match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            return unknown_fields(&path, unexpected, error.schema_path().as_str());
        }
        ValidationErrorKind::Required { property } => {
            return vec![Problem::at(path, missing_field(property))];
        }
        ValidationErrorKind::Type { kind } => expected_types(kind),
        ValidationErrorKind::Enum { options } => format!("one of {}", listed_options(options)),
        ValidationErrorKind::Minimum { limit } => format!("a number ≥ {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("a number ≤ {limit}"),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            if let Some(errors) = telling_branch(error.instance_path().as_str(), context) {
                return errors.iter().flat_map(|e| describe(document, e)).collect();
            }
            wanted_shape(error.schema_path().as_str())
        }
        ValidationErrorKind::Pattern { pattern } => pattern_form(pattern).to_string(),
        ValidationErrorKind::MinItems { limit } => {
            format!("at least {}", crate::words::plural(*limit, "item"))
        }
        _ => return vec![Problem::at(path, error.to_string())],
    };
    let found = describe_value(error.instance());
    vec![Problem::at(
        path,
        format!("expected {expected}, found {found}"),
    )]
}

/// One problem per field in `unexpected`, naming the fields the object at
/// `path` may have (by the schema at `keyword_location`).
fn unknown_fields(path: &JsonPath, unexpected: &[String], keyword_location: &str) -> Vec<Problem> {
    let expected = allowed_properties(keyword_location);
    unexpected
        .iter()
        .map(|name| {
            let mut message = format!("unknown field {}", quoted(name));
            if !expected.is_empty() {
                message.push_str(&format!("; expected one of: {}", expected.join(", ")));
            }
            Problem::at_key(path.key(name), message)
        })
        .collect()
}

fn missing_field(property: &Value) -> String {
    let name = property
        .as_str()
        .map_or_else(|| property.to_string(), quoted);
    format!("missing field {name}")
}

/// The types a value may have, `null` (how an optional field is written)
/// left unsaid.
fn expected_types(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(t) => type_name(*t).to_string(),
        TypeKind::Multiple(set) => {
            let names: Vec<&str> = set
                .iter()
                .filter(|t| *t != JsonType::Null)
                .map(type_name)
                .collect();
            names.join(" or ")
        }
    }
}

fn listed_options(options: &Value) -> String {
    options
        .as_array()
        .map(|o| {
            o.iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// What the alternatives at `keyword_location` want, when no one of them
/// tells more: their constants, else the schema's description.
fn wanted_shape(keyword_location: &str) -> String {
    constants_at(keyword_location)
        .or_else(|| description_at(keyword_location))
        .unwrap_or_else(|| "a value of another shape".to_string())
}

/// The form a string matching `pattern` has, in words.
fn pattern_form(pattern: &str) -> &'static str {
    match pattern {
        super::real::URL_PATTERN => "an http:// or https:// URL",
        super::real::ENV_REF_PATTERN => {
            "\"env:NAME\", the environment variable that holds the value (a secret is never written in a scenario)"
        }
        _ => "a string of another form",
    }
}

/// Of the alternatives a value failed, the one whose errors say the most:
/// the only one left once `null` (how an optional field is written) is set
/// aside, or the only one whose errors lie inside the value, meaning its
/// shape was right and a part of it is wrong.
fn telling_branch<'e>(
    at: &str,
    branches: &'e [Vec<ValidationError<'static>>],
) -> Option<&'e [ValidationError<'static>]> {
    let null_only = |errors: &Vec<ValidationError<'static>>| {
        errors.len() == 1
            && matches!(
                errors[0].kind(),
                ValidationErrorKind::Type {
                    kind: TypeKind::Single(JsonType::Null)
                }
            )
    };
    let candidates: Vec<&Vec<ValidationError<'static>>> = branches
        .iter()
        .filter(|errors| !null_only(errors))
        .collect();
    if let [only] = candidates[..] {
        return Some(only);
    }
    let inside: Vec<&Vec<ValidationError<'static>>> = candidates
        .into_iter()
        .filter(|errors| {
            !errors.is_empty()
                && errors
                    .iter()
                    .all(|e| e.instance_path().as_str().len() > at.len())
        })
        .collect();
    match inside[..] {
        [only] => Some(only),
        _ => None,
    }
}

/// Turn a JSON pointer into a path, telling array indexes from keys that
/// look like numbers by the document itself.
fn instance_path(document: &Value, pointer: &str) -> JsonPath {
    let mut path = JsonPath::root();
    let mut node = Some(document);
    for raw in pointer.split('/').skip(1) {
        let token = raw.replace("~1", "/").replace("~0", "~");
        match node {
            Some(Value::Array(items)) => {
                let index = token.parse::<usize>().unwrap_or(usize::MAX);
                node = items.get(index);
                path.push(Segment::Index(index));
            }
            Some(Value::Object(map)) => {
                node = map.get(&token);
                path.push(Segment::Key(token));
            }
            _ => {
                node = None;
                path.push(Segment::Key(token));
            }
        }
    }
    path
}

/// The schema object that holds the keyword at `keyword_location`.
fn schema_node(keyword_location: &str) -> Option<&'static Value> {
    let parent = keyword_location.rsplit_once('/').map(|(p, _)| p)?;
    json_schema().pointer(parent)
}

fn allowed_properties(keyword_location: &str) -> Vec<String> {
    schema_node(keyword_location)
        .and_then(|node| node.get("properties"))
        .and_then(Value::as_object)
        .map(|props| props.keys().cloned().collect())
        .unwrap_or_default()
}

/// "one of "a", "b"" when every alternative at `keyword_location` is a
/// constant (an enum whose variants carry their own descriptions).
fn constants_at(keyword_location: &str) -> Option<String> {
    let branches = json_schema().pointer(keyword_location)?.as_array()?;
    let constants: Option<Vec<String>> = branches
        .iter()
        .map(|b| b.get("const").map(Value::to_string))
        .collect();
    Some(format!("one of {}", constants?.join(", ")))
}

fn description_at(keyword_location: &str) -> Option<String> {
    let node = schema_node(keyword_location)?;
    let text = node.get("description")?.as_str()?;
    // The first sentence says what the value is; lower-case it to read on.
    let first = text
        .split(". ")
        .next()
        .unwrap_or(text)
        .trim_end_matches('.');
    let mut chars = first.chars();
    let head = chars.next()?;
    Some(
        head.to_lowercase()
            .chain(chars)
            .collect::<String>()
            .replace('\n', " "),
    )
}

fn type_name(t: JsonType) -> &'static str {
    match t {
        JsonType::Array => "a list",
        JsonType::Boolean => "true or false",
        JsonType::Integer => "a whole number",
        JsonType::Null => "null",
        JsonType::Number => "a number",
        JsonType::Object => "an object",
        JsonType::String => "a string",
    }
}

fn quoted(s: &str) -> String {
    Value::from(s).to_string()
}

/// The first byte of a JSON object's text.
const OBJECT_START: u8 = b'{';

/// The kind of the JSON value whose text starts with `first`.
pub(crate) fn describe_kind(first: u8) -> &'static str {
    match first {
        OBJECT_START => "an object",
        b'[' => "a list",
        b'"' => "a string",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "a number",
    }
}

#[cfg(test)]
#[path = "shape_dialect_tests.rs"]
mod dialect_tests;
