//! The checked document read into the scenario's types. The sim's scripts
//! (`provider.turns` and `provider.responses`, a value for every model
//! call and most of a long run's file) are moved into place, not read into
//! values a second time: any object is a script map, so no error changes.

use super::types::Scenario;
use indexmap::IndexMap;
use serde_json::Value;
use std::sync::Arc;

/// The members of `provider` that map names to scripted values.
const SCRIPTS: [&str; 2] = ["turns", "responses"];

/// `document` as a scenario, or where and why it does not deserialise.
pub(super) fn typed(
    mut document: Value,
) -> Result<Scenario, serde_path_to_error::Error<serde_json::Error>> {
    let scripts = take_scripts(&mut document);
    let mut scenario: Scenario = serde_path_to_error::deserialize(document)?;
    if scripts.iter().any(Option::is_some) {
        // Just deserialised: the provider is this scenario's alone.
        let provider = Arc::make_mut(&mut scenario.provider);
        let [turns, responses] = scripts;
        if turns.is_some() {
            provider.turns = turns;
        }
        if responses.is_some() {
            provider.responses = responses;
        }
    }
    Ok(scenario)
}

/// The script maps of `document`'s `provider` that are objects, taken out
/// of it; anything else is left for serde to read (and refuse).
fn take_scripts(document: &mut Value) -> [Option<IndexMap<String, Value>>; 2] {
    let Some(Value::Object(provider)) = document.get_mut("provider") else {
        return [None, None];
    };
    SCRIPTS.map(|key| {
        if !provider.get(key).is_some_and(Value::is_object) {
            return None;
        }
        match provider.shift_remove(key) {
            Some(Value::Object(map)) => Some(map.into_iter().collect()),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scripts_moved_in_are_what_serde_reads_and_other_values_are_left_to_it() {
        let document = json!({
            "name": "s", "pattern": "swarm", "goal": "g", "context": null, "entry": "a",
            "agents": {"a": {"description": "A"}, "b": {}},
            "provider": {"kind": "sim",
                "turns": {"b": [{"reply": "x", "latency_ms": 3}], "a": [{"transfer_to": "b"}, "t"]},
                "responses": {"r": {"z": [1, 2.5]}}}
        });
        let read: Scenario = serde_path_to_error::deserialize(document.clone()).unwrap();
        let moved = typed(document.clone()).unwrap();
        assert_eq!(moved.provider, read.provider);
        let keys = |s: &Scenario| -> Vec<String> {
            s.provider.turns.as_ref().unwrap().keys().cloned().collect()
        };
        assert_eq!(keys(&moved), ["b", "a"], "the file's order is kept");
        // A script map that is not an object is serde's to refuse, at its
        // place, as before.
        let mut bad = document;
        bad["provider"]["turns"] = json!([1]);
        let refused = typed(bad.clone()).err().unwrap();
        let before = serde_path_to_error::deserialize::<_, Scenario>(bad)
            .err()
            .unwrap();
        assert_eq!(refused.path().to_string(), "provider.turns");
        assert_eq!(refused.to_string(), before.to_string());
    }
}
