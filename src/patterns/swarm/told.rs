//! What the agent holding control is told besides the basics (whom it may
//! hand control to, the chain's tail and the recent history), written as
//! the JSON text of the value it stood for, byte for byte: no tree of the
//! recent history is copied, hashed, counted and dropped at every turn.

use crate::patterns::coordinator::history::Entry;
use crate::patterns::team::turn_context::TurnContext;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::Arc;

/// The context, in the order its value's keys were inserted.
#[derive(Serialize)]
pub(super) struct Told<'h> {
    /// `[{"name", "description"}]` of the other agents, written once.
    pub(super) can_transfer_to: &'h RawValue,
    pub(super) chain: &'h [Arc<str>],
    pub(super) recent: &'h [Entry],
    /// How many agents of the chain came before its tail, when some did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) chain_earlier: Option<usize>,
}

impl Told<'_> {
    /// The context as the text a prompt is given. Every part is written
    /// from values serde_json holds; should one not write, the value is
    /// built and given as it is.
    pub(super) fn written(&self) -> TurnContext {
        match serde_json::value::to_raw_value(self) {
            Ok(text) => TurnContext::Written(Arc::from(text)),
            Err(_) => TurnContext::Built(serde_json::to_value(self).unwrap_or(Value::Null)),
        }
    }
}

/// `peers` (`{"name", "description"}` values) as the text they are told
/// as; `[]` should they not write.
pub(super) fn peers_text(peers: &[Value]) -> Box<RawValue> {
    serde_json::value::to_raw_value(peers)
        .unwrap_or_else(|_| RawValue::from_string("[]".into()).expect("[] is JSON"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::coordinator::history::Names;
    use serde_json::json;

    #[test]
    fn the_holders_context_is_written_as_the_value_it_stood_for_byte_for_byte() {
        let names = Names::of(&["a".to_string(), "b".to_string()]);
        let peers = vec![json!({"name": "b", "description": "é\n\"x\""})];
        let recent = vec![
            Entry::turn(
                1,
                names.get("a"),
                &json!({"transfer_to": "b", "message": 2.5e-7}),
            ),
            Entry::Tool(Box::new(
                json!({"turn": 2, "tool": "t", "result": {"z": 1}}),
            )),
        ];
        let chain: Vec<Arc<str>> = vec![names.get("a"), names.get("b")];
        for earlier in [None, Some(3)] {
            let mut built = serde_json::Map::new();
            built.insert("can_transfer_to".into(), Value::Array(peers.clone()));
            built.insert(
                "chain".into(),
                chain.iter().map(|a| Value::from(a.as_ref())).collect(),
            );
            built.insert(
                "recent".into(),
                Value::Array(recent.iter().map(Entry::to_value).collect()),
            );
            if let Some(n) = earlier {
                built.insert("chain_earlier".into(), n.into());
            }
            let text = peers_text(&peers);
            let told = Told {
                can_transfer_to: &text,
                chain: &chain,
                recent: &recent,
                chain_earlier: earlier,
            };
            let TurnContext::Written(written) = told.written() else {
                panic!("the context is written as text");
            };
            assert_eq!(
                written.get(),
                serde_json::to_string(&Value::Object(built)).unwrap()
            );
        }
    }
}
