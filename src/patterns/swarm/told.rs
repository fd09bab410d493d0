//! What the agent holding control is told besides the basics (whom it may
//! hand control to, the chain's tail and the recent history), written as
//! the JSON text of the value it stood for, byte for byte, by hand: at
//! every turn, no tree is built and serde writes no name of the chain.

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
        let mut text = String::with_capacity(self.size_hint());
        let written = self
            .write(&mut text)
            .and_then(|()| RawValue::from_string(text));
        match written {
            Ok(text) => TurnContext::Written(Arc::from(text)),
            Err(_) => TurnContext::Built(serde_json::to_value(self).unwrap_or(Value::Null)),
        }
    }

    /// Bytes enough for the text, mostly: the peers, each name and entry
    /// at a guess.
    fn size_hint(&self) -> usize {
        let recent = self.recent.iter().map(|entry| match entry {
            Entry::Turn { output, agent, .. } => output.get().len() + agent.len() + 40,
            _ => 256,
        });
        let recent = recent.sum::<usize>();
        let chain: usize = self.chain.iter().map(|name| name.len() + 3).sum();
        self.can_transfer_to.get().len() + chain + recent + 96
    }

    /// What serde_json writes of the context ([`Serialize`] above), written
    /// part by part: the peers and the outputs are JSON text already.
    fn write(&self, out: &mut String) -> serde_json::Result<()> {
        out.push_str("{\"can_transfer_to\":");
        out.push_str(self.can_transfer_to.get());
        out.push_str(",\"chain\":[");
        for (n, name) in self.chain.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            push_json_str(out, name)?;
        }
        out.push_str("],\"recent\":[");
        for (n, entry) in self.recent.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            match entry {
                Entry::Turn {
                    turn,
                    agent,
                    output,
                } => {
                    out.push_str("{\"turn\":");
                    out.push_str(itoa::Buffer::new().format(*turn));
                    out.push_str(",\"agent\":");
                    push_json_str(out, agent)?;
                    out.push_str(",\"output\":");
                    out.push_str(output.get());
                    out.push('}');
                }
                other => out.push_str(&serde_json::to_string(other)?),
            }
        }
        out.push(']');
        if let Some(earlier) = self.chain_earlier {
            out.push_str(",\"chain_earlier\":");
            out.push_str(itoa::Buffer::new().format(earlier));
        }
        out.push('}');
        Ok(())
    }
}

/// `text` as a JSON string, as serde_json writes it: only a control
/// character, a quote or a backslash is escaped, so a name without them
/// is written as it is.
fn push_json_str(out: &mut String, text: &str) -> serde_json::Result<()> {
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        out.push_str(&serde_json::to_string(text)?);
    }
    Ok(())
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
        let odd = "q\"é\n\u{1}\\";
        let names = Names::of(&["a".to_string(), "b".to_string(), odd.to_string()]);
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
            Entry::turn(4_000_000, names.get(odd), &json!("text \u{7f} ü")),
        ];
        let chain: Vec<Arc<str>> = vec![names.get("a"), names.get(odd), names.get("b")];
        for earlier in [None, Some(3), Some(usize::MAX)] {
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
            assert_eq!(written.get(), serde_json::to_string(&told).unwrap());
        }
    }
}
