//! An agent node's answer: the fields its `output` declares as the
//! contract an endpoint is asked to keep, and the check of an answer
//! against them. A node that declares none answers `{"text": ...}`.

use crate::patterns::graph::spec::{FieldKind, FieldType, NodeSpec};
use crate::provider::contract::{Contract, wire};
use indexmap::IndexMap;
use serde_json::{Value, json};
use std::sync::Arc;

/// The fields a node's answer must have: its `output`, or one `text`.
pub(crate) fn fields_of(spec: &NodeSpec) -> IndexMap<String, FieldType> {
    if spec.output.is_empty() {
        IndexMap::from([("text".to_string(), FieldType::Kind(FieldKind::String))])
    } else {
        spec.output.clone()
    }
}

/// What every call of one node shares, built once per run rather than per
/// call (a chain of 10,000 nodes, a map of 100,000 items): the fields its
/// answer must have, as its payload shows them, and the contract an
/// endpoint is asked to keep.
pub(crate) struct NodeCall {
    pub(crate) fields: IndexMap<String, FieldType>,
    pub(crate) shown: Value,
    pub(crate) contract: Arc<Contract>,
}

impl NodeCall {
    pub(crate) fn of(spec: &NodeSpec) -> Self {
        let fields = fields_of(spec);
        NodeCall {
            shown: fields_json(&fields),
            contract: Arc::new(contract(&fields)),
            fields,
        }
    }

    /// Each node's call, in node order: nodes that declare the same
    /// `output` share one (10,000 writers of a chain build one contract).
    pub(crate) fn per_node<'a>(specs: impl Iterator<Item = &'a NodeSpec>) -> Vec<Arc<NodeCall>> {
        let mut built: Vec<(&IndexMap<String, FieldType>, Arc<NodeCall>)> = Vec::new();
        specs
            .map(|spec| {
                // In the same order too: the payload shows the fields in it.
                let same = built
                    .iter()
                    .find(|(output, _)| output.iter().eq(spec.output.iter()));
                if let Some((_, call)) = same {
                    return Arc::clone(call);
                }
                let call = Arc::new(NodeCall::of(spec));
                // A graph of many different outputs would search a long
                // list for each node: only the first few are kept to share.
                if built.len() < SHARED_OUTPUTS {
                    built.push((&spec.output, Arc::clone(&call)));
                }
                call
            })
            .collect()
    }
}

/// How many distinct `output` declarations [`NodeCall::per_node`] keeps to
/// share.
const SHARED_OUTPUTS: usize = 16;

/// The fields as a call's payload shows them: `{"verdict": ["approve",
/// "revise"], "steps": "list"}`.
pub(crate) fn fields_json(fields: &IndexMap<String, FieldType>) -> Value {
    serde_json::to_value(fields).unwrap_or(Value::Null)
}

fn kind_word(kind: FieldKind) -> &'static str {
    match kind {
        FieldKind::String => "string",
        FieldKind::Number => "number",
        FieldKind::Integer => "integer",
        FieldKind::Bool => "bool",
        FieldKind::List => "list",
        FieldKind::Object => "object",
    }
}

/// The contract an endpoint is asked for: an object with each field.
pub(crate) fn contract(fields: &IndexMap<String, FieldType>) -> Contract {
    let properties: Vec<(&str, Value)> = fields
        .iter()
        .map(|(name, field)| {
            let schema = match field {
                FieldType::OneOf(values) => {
                    wire::one_of(values.iter().map(String::as_str), "One of these values.")
                }
                FieldType::Kind(FieldKind::String) => wire::string("Text."),
                FieldType::Kind(FieldKind::Number) => wire::number("A number."),
                FieldType::Kind(FieldKind::Integer) => {
                    json!({"type": "integer", "description": "A whole number."})
                }
                FieldType::Kind(FieldKind::Bool) => wire::boolean("true or false."),
                FieldType::Kind(FieldKind::List) => {
                    wire::array(wire::string("One item."), "A list of items.")
                }
                FieldType::Kind(FieldKind::Object) => wire::object_as_string("an object"),
            };
            (name.as_str(), schema)
        })
        .collect();
    let schema = wire::object("Your answer, with each field.", properties);
    wire::single("node_output", schema, |answer| answer)
}

/// Whether `answer` has each field of the kind declared, or what is
/// wrong, in words a repair can quote. An object field written as a
/// string holding the object is read as the object.
pub(crate) fn check(
    fields: &IndexMap<String, FieldType>,
    answer: &mut Value,
) -> Result<(), String> {
    #[cfg(test)]
    crate::patterns::parses::note("node output");
    let Some(object) = answer.as_object_mut() else {
        return Err(format!("expected a JSON object, found {}", short(answer)));
    };
    for (name, field) in fields {
        let Some(value) = object.get_mut(name) else {
            return Err(format!("missing key {name:?}"));
        };
        let fits = match field {
            FieldType::OneOf(values) => value
                .as_str()
                .is_some_and(|v| values.iter().any(|w| w == v)),
            FieldType::Kind(kind) => fits_kind(*kind, value),
        };
        if !fits {
            let wanted = match field {
                FieldType::OneOf(values) => format!("one of {}", values.join(", ")),
                FieldType::Kind(kind) => kind_word(*kind).to_string(),
            };
            return Err(format!(
                "{name:?}: expected {wanted}, found {}",
                short(value)
            ));
        }
    }
    Ok(())
}

fn fits_kind(kind: FieldKind, value: &mut Value) -> bool {
    match kind {
        FieldKind::String => value.is_string(),
        FieldKind::Number => value.is_number(),
        FieldKind::Integer => value.is_i64() || value.is_u64(),
        FieldKind::Bool => value.is_boolean(),
        FieldKind::List => value.is_array(),
        FieldKind::Object => {
            wire::object_of_string(value);
            value.is_object()
        }
    }
}

/// `value` as JSON, cut where a word ends: the model is asked again
/// with it, and copies what it is shown.
fn short(value: &Value) -> String {
    crate::words::excerpt(&value.to_string(), 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::graph::spec::NodeSpec;

    fn review() -> IndexMap<String, FieldType> {
        let spec: NodeSpec = serde_json::from_value(json!({
            "id": "review", "agent": "critic",
            "output": {"verdict": ["approve", "revise"], "score": "integer", "meta": "object"}
        }))
        .unwrap();
        fields_of(&spec)
    }

    #[test]
    fn an_answer_keeps_its_fields_or_is_named_wrong() {
        let fields = review();
        let mut good = json!({"verdict": "revise", "score": 3, "meta": "{\"a\": 1}"});
        assert_eq!(check(&fields, &mut good), Ok(()));
        assert_eq!(
            good["meta"],
            json!({"a": 1}),
            "an object written as text is read"
        );
        let mut outside = json!({"verdict": "maybe", "score": 3, "meta": {}});
        assert_eq!(
            check(&fields, &mut outside),
            Err("\"verdict\": expected one of approve, revise, found \"maybe\"".into())
        );
        let mut missing = json!({"verdict": "approve"});
        assert_eq!(
            check(&fields, &mut missing),
            Err("missing key \"score\"".into())
        );
        let mut half = json!({"verdict": "approve", "score": 2.5, "meta": {}});
        assert!(check(&fields, &mut half).is_err(), "2.5 is no integer");
        assert!(check(&fields, &mut json!("text")).is_err());
    }

    #[test]
    fn a_node_without_output_answers_text() {
        let spec: NodeSpec = serde_json::from_value(json!({"id": "a", "agent": "x"})).unwrap();
        let fields = fields_of(&spec);
        assert_eq!(fields_json(&fields), json!({"text": "string"}));
        assert_eq!(check(&fields, &mut json!({"text": "hi"})), Ok(()));
    }
}
