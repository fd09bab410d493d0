//! The scenario schema is published as draft 2020-12 and checked as draft 7
//! (`validator`): it must mean the same in both. Held two ways: the schema
//! uses only keywords whose meaning the two drafts share, and both drafts'
//! validators find the same errors, worded the same, in every shipped
//! scenario broken at every place.

use super::{as_draft_7, describe, json_schema, validator};
use jsonschema::Validator;
use serde_json::{Map, Value, json};

/// Keywords that mean the same in draft 7 and draft 2020-12, in the forms
/// the schema uses them (checked by `walk`).
const SHARED: &[&str] = &[
    "$ref",
    "additionalProperties",
    "anyOf",
    "const",
    "default",
    "description",
    "enum",
    "format",
    "items",
    "maxItems",
    "maximum",
    "minItems",
    "minimum",
    "oneOf",
    "pattern",
    "properties",
    "required",
    "title",
    "type",
];

/// Annotations: the only keywords beside `$ref`, which draft 7 reads alone.
const ANNOTATIONS: &[&str] = &["default", "description", "title"];

/// Every keyword of the schema at `at` (a JSON pointer), and of the schemas
/// inside it, is one of [`SHARED`] in a form both drafts read alike.
fn walk(schema: &Value, at: &str, problems: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        if !schema.is_boolean() {
            problems.push(format!("{at}: not a schema: {schema}"));
        }
        return;
    };
    for (keyword, value) in map {
        let here = format!("{at}/{keyword}");
        if !SHARED.contains(&keyword.as_str()) {
            problems.push(format!("{here}: a keyword not checked alike in draft 7"));
            continue;
        }
        match keyword.as_str() {
            "properties" => {
                for (name, inner) in value.as_object().into_iter().flatten() {
                    walk(inner, &format!("{here}/{name}"), problems);
                }
            }
            "anyOf" | "oneOf" => {
                for (i, inner) in value.as_array().into_iter().flatten().enumerate() {
                    walk(inner, &format!("{here}/{i}"), problems);
                }
            }
            // An array of `items` is a tuple in draft 7 and an error in
            // 2020-12: only a schema reads alike.
            "items" | "additionalProperties" => walk(value, &here, problems),
            "$ref" => {
                let target = value.as_str().unwrap_or_default();
                if !target.starts_with("#/$defs/") {
                    problems.push(format!("{here}: {value} is not a pointer into $defs"));
                }
                for sibling in map.keys().filter(|k| k.as_str() != "$ref") {
                    if !ANNOTATIONS.contains(&sibling.as_str()) {
                        problems.push(format!("{at}/{sibling}: beside $ref, draft 7 skips it"));
                    }
                }
            }
            _ => {}
        }
    }
}

#[test]
fn the_schema_means_the_same_in_draft_7() {
    let schema = json_schema();
    let mut problems = Vec::new();
    let root = schema.as_object().expect("an object");
    assert_eq!(
        root["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "the published dialect"
    );
    for (name, def) in root["$defs"].as_object().expect("$defs") {
        walk(def, &format!("/$defs/{name}"), &mut problems);
    }
    let mut body = root.clone();
    body.remove("$schema");
    body.remove("$defs");
    walk(&Value::Object(body), "", &mut problems);
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(as_draft_7(schema).get("$schema").is_none());
}

#[test]
fn the_walk_finds_what_draft_7_reads_otherwise() {
    for (schema, found) in [
        (json!({"prefixItems": [{"type": "string"}]}), "/prefixItems"),
        (json!({"items": [{"type": "string"}]}), "/items"),
        (
            json!({"$ref": "#/$defs/A", "maxLength": 3}),
            "/maxLength: beside $ref",
        ),
        (json!({"$ref": "other.json"}), "not a pointer into $defs"),
        (
            json!({"properties": {"a": {"unevaluatedProperties": false}}}),
            "/properties/a/unevaluatedProperties",
        ),
        (json!({"anyOf": [{"dependentRequired": {}}]}), "/anyOf/0/"),
    ] {
        let mut problems = Vec::new();
        walk(&schema, "", &mut problems);
        assert!(
            problems.iter().any(|p| p.contains(found)),
            "{schema}: {problems:?}"
        );
    }
    let mut problems = Vec::new();
    walk(
        &json!({"$ref": "#/$defs/A", "description": "d", "default": 1}),
        "",
        &mut problems,
    );
    assert!(problems.is_empty(), "{problems:?}");
}

/// What a validator finds in `document`: each error's kind, places and
/// words, as `check` would report them.
fn findings(validator: &Validator, document: &Value) -> Vec<String> {
    validator
        .iter_errors(document)
        .map(|error| {
            format!(
                "{:?} at {} by {}: {:?}",
                error.kind(),
                error.instance_path().as_str(),
                error.schema_path().as_str(),
                describe(document, &error)
                    .iter()
                    .map(|p| format!("{} {} {}", p.path, p.at_key, p.message))
                    .collect::<Vec<_>>()
            )
        })
        .collect()
}

/// Each shipped scenario, then broken once at every place in it: the
/// value replaced by one of another shape (in turn), a member taken away,
/// an unknown member added.
fn broken_scenarios() -> Vec<Value> {
    let others = [
        json!(null),
        json!(true),
        json!(-1),
        json!(2.5),
        json!("x"),
        json!([]),
        json!({}),
        json!(4_294_967_296_u64),
    ];
    let mut documents = Vec::new();
    let mut turn = 0;
    for file in crate::patterns::contract_checks::shipped_files() {
        let text = std::fs::read_to_string(&file).expect("a shipped scenario");
        let document: Value = serde_json::from_str(&text).expect("JSON");
        let mut places = Vec::new();
        pointers(&document, String::new(), &mut places);
        for place in &places {
            let mut replaced = document.clone();
            *replaced.pointer_mut(place).unwrap() = others[turn % others.len()].clone();
            turn += 1;
            documents.push(replaced);
            if let Some((parent, key)) = place.rsplit_once('/') {
                let mut taken = document.clone();
                if let Some(map) = taken.pointer_mut(parent).and_then(Value::as_object_mut) {
                    map.remove(key);
                    documents.push(taken);
                }
            }
            if document.pointer(place).is_some_and(Value::is_object) {
                let mut added = document.clone();
                let map: &mut Map<String, Value> =
                    added.pointer_mut(place).unwrap().as_object_mut().unwrap();
                map.insert("unheard_of".into(), json!(1));
                documents.push(added);
            }
        }
        documents.push(document);
    }
    documents
}

/// The pointer of every value inside `value` (not `value` itself).
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                out.push(here.clone());
                pointers(inner, here, out);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                let here = format!("{at}/{i}");
                out.push(here.clone());
                pointers(inner, here, out);
            }
        }
        _ => {}
    }
}

#[test]
fn draft_7_finds_what_draft_2020_12_finds_in_every_broken_scenario() {
    let as_published = jsonschema::validator_for(json_schema()).expect("a valid schema");
    let documents = broken_scenarios();
    assert!(documents.len() > 3_000, "{} documents", documents.len());
    let mut differences = Vec::new();
    let mut with_errors = 0;
    for document in &documents {
        let published = findings(&as_published, document);
        let checked = findings(validator(), document);
        with_errors += usize::from(!published.is_empty());
        if published != checked {
            differences.push(format!(
                "{document}\n  2020-12: {published:?}\n  7: {checked:?}"
            ));
        }
    }
    // Most places are inside free-form values (a context, a sim's
    // answers), which take any shape.
    assert!(
        with_errors > 1_500,
        "{with_errors} of {} broken",
        documents.len()
    );
    assert!(
        differences.is_empty(),
        "{} differ, the first:\n{}",
        differences.len(),
        differences[0]
    );
}
