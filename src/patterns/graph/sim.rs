//! How the sim answers a graph's agent and map nodes: each node's outputs
//! scripted under its id in `provider.turns`, one per call in order (the
//! last repeats; an output's `latency_ms` is the call's latency, so a test
//! can make a map's items end out of order). A node with no script is
//! answered from its `output` fields: the first value a field may take,
//! `"<node>: <field>"` for text, `["<node> 1", "<node> 2"]` for a list, so
//! that a run on the sim is the same on every seed but for its latencies.

use crate::provider::sim::{Script, SimScript};
use crate::provider::{ModelOutput, ProviderError, Purpose};
use crate::scenario::ProviderSpec;
use serde_json::{Map, Value, json};

/// The key of a call's payload that holds the fields its answer must have,
/// as the node declares them.
pub(crate) const OUTPUT_KEY: &str = "output";
/// The key of a call's payload that names the node.
pub(crate) const NODE_KEY: &str = "node";

#[derive(Debug)]
pub(crate) struct GraphSim;

impl SimScript for GraphSim {
    fn script<'a>(&self, spec: &'a ProviderSpec, purpose: &Purpose) -> Script<'a> {
        spec.turns
            .as_ref()
            .and_then(|turns| turns.get(purpose.script_key()))
            .map_or(Script::None, Script::TimedOutputs)
    }

    fn unscripted(&self, _: &Purpose, payload: &Value) -> Result<ModelOutput, ProviderError> {
        let node = payload[NODE_KEY].as_str().unwrap_or("node");
        let mut answer = Map::new();
        if let Some(fields) = payload[OUTPUT_KEY].as_object() {
            for (name, kind) in fields {
                answer.insert(name.clone(), made_up(node, name, kind));
            }
        }
        Ok(ModelOutput::Json(Value::Object(answer)))
    }
}

/// A value of the field `name` of kind `kind` (a type's name or the list
/// of the values it may take).
fn made_up(node: &str, name: &str, kind: &Value) -> Value {
    match kind {
        Value::Array(values) => values.first().cloned().unwrap_or(Value::Null),
        Value::String(kind) => match kind.as_str() {
            "number" | "integer" => json!(1),
            "bool" => json!(true),
            "list" => json!([format!("{node} 1"), format!("{node} 2")]),
            "object" => json!({}),
            _ => json!(format!("{node}: {name}")),
        },
        _ => Value::Null,
    }
}
