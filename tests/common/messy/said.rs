//! How the messy model says a scripted answer to a request: as text, or as
//! the tool calls standing for it among the functions offered, in a strict
//! schema's wire form where the request asks for one.

use serde_json::{Map, Value, json};

/// The content of an answer: the scripted text, or its JSON (in the wire
/// form of the strict schema the request asks for, unless it is broken on
/// purpose: no strict server would write that).
pub(super) fn text_of(body: &Value, entry: &Value, broken: bool) -> String {
    let format = &body["response_format"];
    let strict = format["type"] == "json_schema" && format["json_schema"]["strict"] == true;
    match entry {
        Value::String(text) => text.clone(),
        _ if strict && !broken => {
            let schema = &format["json_schema"]["schema"];
            wire(entry, schema, schema).to_string()
        }
        _ => entry.to_string(),
    }
}

/// The tool calls standing for `entry` among the functions the request
/// offers: a transfer as `transfer_to_agent`, a reply as `reply`, a tool
/// call as the tool's function, member calls as one call per member, and
/// anything else as the function the request forces, with `entry` as its
/// arguments.
pub(super) fn calls_of(body: &Value, entry: &Value, broken: bool) -> Vec<(String, String)> {
    let functions: Vec<&Value> = body["tools"]
        .as_array()
        .map(|tools| tools.iter().map(|t| &t["function"]).collect())
        .unwrap_or_default();
    let offered = |name: &str| functions.iter().copied().find(|f| f["name"] == name);
    let call = |name: &str, arguments: Value| {
        let function = offered(name).unwrap_or(&Value::Null);
        let arguments = if function["strict"] == true && !broken {
            wire(&arguments, &function["parameters"], &function["parameters"])
        } else {
            arguments
        };
        (name.to_string(), arguments.to_string())
    };
    // A scripted text that is a JSON object is the model's JSON, as the sim
    // reads it (a plan scripted as the model's raw text): written as the
    // function's arguments, not as a string in them.
    let parsed = match entry {
        Value::String(text) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_object),
        _ => None,
    };
    let entry = parsed.as_ref().unwrap_or(entry);
    let text = |key: &str| entry.get(key).cloned().unwrap_or(Value::Null);
    match entry {
        Value::String(reply) if offered("reply").is_some() => {
            return vec![call("reply", json!({"text": reply}))];
        }
        Value::Object(map)
            if map.contains_key("transfer_to") && offered("transfer_to_agent").is_some() =>
        {
            let mut arguments = json!({"agent": text("transfer_to")});
            if map.contains_key("message") {
                arguments["message"] = text("message");
            }
            return vec![call("transfer_to_agent", arguments)];
        }
        Value::Object(map) if map.contains_key("reply") && offered("reply").is_some() => {
            return vec![call("reply", json!({"text": text("reply")}))];
        }
        Value::Object(map) => {
            if let Some(tool) = map
                .get("call")
                .and_then(Value::as_str)
                .filter(|t| offered(t).is_some())
            {
                return vec![call(tool, map.get("args").cloned().unwrap_or(json!({})))];
            }
            if let Some(members) = map.get("call_members").and_then(Value::as_array) {
                let calls: Vec<_> = members
                    .iter()
                    .filter_map(|m| {
                        let member = m["member"]
                            .as_str()
                            .filter(|name| offered(name).is_some())?;
                        Some(call(member, json!({"task": m["task"]})))
                    })
                    .collect();
                if calls.len() == members.len() {
                    return calls;
                }
            }
        }
        _ => {}
    }
    // A broken turn goes to a function it cannot satisfy, never to `reply`
    // (whose one key it may still hold).
    let forced = body["tool_choice"]["function"]["name"]
        .as_str()
        .or_else(|| {
            let names = functions.iter().filter_map(|f| f["name"].as_str());
            names
                .clone()
                .find(|name| *name != "reply")
                .or(names.clone().next())
        })
        .unwrap_or("submit");
    vec![call(forced, entry.clone())]
}

/// `value` as a strict server writes an answer to `schema`: every property
/// the schema names present (null where the script leaves it out), nothing
/// it does not name, and an object or list it asks for as a string written
/// as JSON text in that string.
fn wire(value: &Value, schema: &Value, root: &Value) -> Value {
    let schema = resolve(schema, root);
    if let Some((key, inner)) = wrapper(schema, value, root).filter(|_| std::ptr::eq(schema, root))
    {
        return json!({ key: wire(value, inner, root) });
    }
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        let branches: Vec<&Value> = branches.iter().map(|b| resolve(b, root)).collect();
        let branch = branches
            .iter()
            .find(|b| allows(b, kind(value)) && holds(b, value))
            .or_else(|| branches.iter().find(|b| allows(b, kind(value))))
            .or_else(|| branches.iter().find(|b| allows(b, "string")));
        return branch.map_or_else(|| value.clone(), |b| wire(value, b, root));
    }
    match value {
        Value::Object(map) if allows(schema, "object") => {
            match schema.get("properties").and_then(Value::as_object) {
                Some(properties) => Value::Object(
                    properties
                        .iter()
                        .map(|(key, inner)| {
                            let value = map.get(key).map_or(Value::Null, |v| wire(v, inner, root));
                            (key.clone(), value)
                        })
                        .collect::<Map<String, Value>>(),
                ),
                None => value.clone(),
            }
        }
        Value::Array(items) if allows(schema, "array") => {
            let inner = schema.get("items").unwrap_or(&Value::Null);
            Value::Array(items.iter().map(|item| wire(item, inner, root)).collect())
        }
        Value::Object(_) | Value::Array(_) if allows(schema, "string") => {
            Value::String(value.to_string())
        }
        _ => value.clone(),
    }
}

/// The one key of an object schema whose one property is an object or a
/// choice of them (a turn's `{"turn": {...}}`: a strict root cannot be an
/// `anyOf`), with that property's schema, when `value` is an object that
/// does not name it: the script writes the turn unwrapped.
fn wrapper<'a>(schema: &'a Value, value: &Value, root: &'a Value) -> Option<(&'a str, &'a Value)> {
    let properties = schema.get("properties")?.as_object()?;
    let [(key, inner)] = properties.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let inner = resolve(inner, root);
    let forms = inner.get("anyOf").is_some() || inner.get("type") == Some(&json!("object"));
    let unwrapped = value.as_object().is_some_and(|map| !map.contains_key(key));
    (forms && unwrapped).then_some((key.as_str(), inner))
}

/// Whether the object schema `branch` names every key `value` sets (a
/// choice of closed objects is told apart by its keys).
fn holds(branch: &Value, value: &Value) -> bool {
    let (Some(properties), Value::Object(map)) =
        (branch.get("properties").and_then(Value::as_object), value)
    else {
        return true;
    };
    map.iter()
        .filter(|(_, v)| !v.is_null())
        .all(|(key, _)| properties.contains_key(key))
}

/// The schema a `$ref` into the root's definitions points at.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .unwrap_or(schema),
        None => schema,
    }
}

/// Whether `schema`'s `type` takes a value of this kind (a schema with no
/// `type` takes any).
fn allows(schema: &Value, kind: &str) -> bool {
    let takes = |t: &str| t == kind || (t == "number" && kind == "integer");
    match schema.get("type") {
        Some(Value::String(t)) => takes(t),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).any(takes),
        _ => schema.get("anyOf").is_none(),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
