//! The hostile scenario corpus: malformed files of every class a user or an
//! attacker can hand `conclave`, made from the shipped scenarios so that
//! each file is wrong in one way and right in every other.

use serde_json::{Map, Value, json};

/// One malformed file: its name, its bytes, and the environment it runs in.
pub struct Case {
    pub class: &'static str,
    pub name: String,
    pub bytes: Vec<u8>,
    pub env: Vec<(&'static str, String)>,
    /// Text the error must contain, when the class has a documented message.
    pub says: Option<&'static str>,
    /// Whether the error has a line and column: all but a bad setting of
    /// the size cap, which is about no place in the file.
    pub placed: bool,
}

/// The shipped scenarios by file stem (`checkout_v2_launch`).
pub fn shipped() -> Vec<(String, Value)> {
    crate::common::files::shipped_documents()
        .into_iter()
        .map(|(name, document)| (name.trim_end_matches(".json").to_string(), document))
        .collect()
}

/// A step of a path: a key or an index.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// Parts of a scenario that hold any JSON (the shared facts, scripted model
/// output, worker data, a health rule's operand): no type is wrong there.
fn free_form(path: &[Step]) -> bool {
    let keys: Vec<&str> = path
        .iter()
        .map(|s| match s {
            Step::Key(k) => k.as_str(),
            Step::Index(_) => "[]",
        })
        .collect();
    matches!(
        keys[..],
        ["context", ..]
            | [
                "provider",
                "responses" | "turns" | "plan" | "synthesis" | "final_answer",
                ..
            ]
            | ["workers" | "tools", _, "data", _, ..]
            | ["health_rules", "[]", "value", ..]
    )
}

/// Every place of `document` outside the free-form parts, the first item
/// of each list standing for the rest.
fn places(document: &Value) -> Vec<Vec<Step>> {
    fn walk(value: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        if free_form(path) {
            return;
        }
        if !path.is_empty() {
            out.push(path.clone());
        }
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    path.push(Step::Key(key.clone()));
                    walk(child, path, out);
                    path.pop();
                }
            }
            Value::Array(items) => {
                if let Some(first) = items.first() {
                    path.push(Step::Index(0));
                    walk(first, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(document, &mut Vec::new(), &mut out);
    out
}

fn at_mut<'v>(document: &'v mut Value, path: &[Step]) -> &'v mut Value {
    path.iter().fold(document, |node, step| match step {
        Step::Key(k) => &mut node[k.as_str()],
        Step::Index(i) => &mut node[*i],
    })
}

fn label(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => k.replace(['/', '.', ':'], "_"),
            Step::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// A value of another JSON type than `value`: a string where anything
/// else stood, a number where a string did.
fn wrong_type(value: &Value) -> Value {
    match value {
        Value::String(_) => json!(7),
        _ => json!("wrong type"),
    }
}

pub fn pretty(document: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(document).unwrap()
}

pub fn case(class: &'static str, name: String, bytes: Vec<u8>) -> Case {
    Case {
        class,
        name,
        bytes,
        env: Vec::new(),
        says: None,
        placed: true,
    }
}

pub fn saying(mut case: Case, says: &'static str) -> Case {
    case.says = Some(says);
    case
}

/// The same document with `edit` applied, when the place exists.
fn edited(document: &Value, edit: impl FnOnce(&mut Map<String, Value>)) -> Vec<u8> {
    let mut document = document.clone();
    edit(document.as_object_mut().unwrap());
    pretty(&document)
}

/// The corpus; `every_depth` changes the type of every field, else only of
/// the sections and the fields just inside them.
pub fn corpus(every_depth: bool) -> Vec<Case> {
    let mut cases = Vec::new();
    for (stem, document) in shipped() {
        let text = pretty(&document);
        for (i, cut) in [1, 7, 40, 73, 99].iter().enumerate() {
            let mut bytes = text.clone();
            bytes.truncate(text.len() * cut / 100);
            cases.push(case("truncated", format!("{stem}.cut{i}"), bytes));
        }
        for path in places(&document) {
            if !every_depth && path.len() > 2 {
                continue;
            }
            let mut wrong = document.clone();
            let node = at_mut(&mut wrong, &path);
            *node = wrong_type(node);
            cases.push(case(
                "wrong type",
                format!("{stem}.type.{}", label(&path)),
                pretty(&wrong),
            ));
            // Unknown fields in the sections and the objects just inside them.
            if path.len() <= 2 && at_mut(&mut document.clone(), &path).is_object() {
                let mut unknown = document.clone();
                at_mut(&mut unknown, &path)["zz_unknown_field"] = json!(1);
                // In a map of names (roles, flags, pages) the key is a new
                // name with a value of the wrong shape, so no one message.
                cases.push(case(
                    "unknown field",
                    format!("{stem}.unknown.{}", label(&path)),
                    pretty(&unknown),
                ));
            }
        }
        cases.push(saying(
            case(
                "unknown field",
                format!("{stem}.unknown.top"),
                edited(&document, |d| {
                    d.insert("zz_unknown_field".into(), json!(true));
                }),
            ),
            "unknown field \"zz_unknown_field\"",
        ));
        cases.extend(durations(&stem, &document));
        cases.extend(references(&stem, &document));
        cases.extend(super::bytes::encodings(&stem, &text));
    }
    cases.extend(super::bytes::shapes());
    cases
}

/// Durations out of range wherever the scenario has one.
fn durations(stem: &str, document: &Value) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut put = |what: &str, edit: &dyn Fn(&mut Map<String, Value>), says: &'static str| {
        cases.push(saying(
            case(
                "duration",
                format!("{stem}.duration.{what}"),
                edited(document, edit),
            ),
            says,
        ));
    };
    put(
        "timeout_1e308",
        &|d| d["provider"]["timeout_seconds"] = json!(1e308),
        "provider.timeout_seconds: expected at most 604800 seconds",
    );
    put(
        "timeout_negative",
        &|d| d["provider"]["timeout_seconds"] = json!(-5),
        "provider.timeout_seconds",
    );
    put(
        "latency_u64_max",
        &|d| d["provider"]["latency_ms"] = json!(u64::MAX),
        "provider.latency_ms: expected at most 604800000 milliseconds",
    );
    let budget = |d: &mut Map<String, Value>| {
        if !d.contains_key("budget") {
            d.insert("budget".into(), json!({}));
        }
    };
    put(
        "max_seconds_1e308",
        &|d| {
            budget(d);
            d["budget"]["max_seconds"] = json!(1e308);
        },
        "budget.max_seconds: expected at most 604800 seconds",
    );
    put(
        "max_seconds_negative",
        &|d| {
            budget(d);
            d["budget"]["max_seconds"] = json!(-0.5);
        },
        "budget.max_seconds",
    );
    put(
        "resilience_timeout_u64_max",
        &|d| {
            d.insert(
                "resilience".into(),
                json!({"timeouts_ms": {"default": u64::MAX}}),
            );
        },
        "resilience.timeouts_ms.default: expected at most 604800000 milliseconds",
    );
    put(
        "backoff_week_and_a_ms",
        &|d| {
            d.insert(
                "resilience".into(),
                json!({"retries": {"backoff_ms": [100, 604_800_001]}}),
            );
        },
        "resilience.retries.backoff_ms[1]: expected at most 604800000 milliseconds",
    );
    put(
        "number_out_of_range",
        &|d| d["provider"]["timeout_seconds"] = json!("@1e999@"),
        "not valid JSON: number out of range",
    );
    // The placeholder above stands for a literal JSON cannot hold as a value.
    if let Some(last) = cases.last_mut() {
        let text = String::from_utf8(std::mem::take(&mut last.bytes)).unwrap();
        last.bytes = text.replace("\"@1e999@\"", "1e999").into_bytes();
    }
    cases
}

/// Names used and never declared, where the scenario's pattern has them.
fn references(stem: &str, document: &Value) -> Vec<Case> {
    let mut cases = Vec::new();
    let undeclared = json!("nobody_declared");
    for (what, pointer) in [
        ("sequence", "/team/sequence/0"),
        ("entry", "/entry"),
        ("health_rule", "/health_rules/0/worker"),
    ] {
        if document.pointer(pointer).is_some() {
            let mut wrong = document.clone();
            *wrong.pointer_mut(pointer).unwrap() = undeclared.clone();
            cases.push(saying(
                case(
                    "undeclared",
                    format!("{stem}.undeclared.{what}"),
                    pretty(&wrong),
                ),
                "nobody_declared",
            ));
        }
    }
    if let Some(flags) = document["flags"].as_object()
        && let Some((name, flag)) = flags.iter().next()
    {
        for list in ["roles", "workers", "agents", "domains"] {
            if flag[list].is_array() {
                let mut wrong = document.clone();
                wrong["flags"][name.as_str()][list] = json!(["nobody_declared"]);
                cases.push(saying(
                    case(
                        "undeclared",
                        format!("{stem}.undeclared.flag_{list}"),
                        pretty(&wrong),
                    ),
                    "nobody_declared",
                ));
            }
        }
    }
    cases
}
