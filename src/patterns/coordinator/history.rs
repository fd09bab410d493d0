//! The coordinator's history, typed (and the swarm's, which has no member
//! calls): a turn of 100,000 member calls leaves 100,000 entries, a chain
//! of 40,000 handoffs as many, each kept as small as it can be (the
//! agent's name shared, the model's output kept as the text it came as, a
//! member's answer its call's record shared with `member_calls`). An entry
//! is written into a prompt and the result document as the value would
//! have been, byte for byte.

use super::result::MemberRecord;
use crate::patterns::team::turn_payload::TurnContext;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One entry of the history the coordinator and its members see.
#[derive(Clone, Debug)]
pub(crate) enum Entry {
    /// An agent's turn: `{"turn", "agent", "output"}`.
    Turn {
        turn: u32,
        agent: Arc<str>,
        /// The output as the history records it, as compact JSON text.
        output: Box<RawValue>,
    },
    /// What a tool call gave back, as the team's tool use records it
    /// (boxed: the turns, many more, stay small).
    Tool(Box<Value>),
    /// The answers of turn `turn`'s members: `{"turn", "agent", "members":
    /// [{"member", "status", "reply", "error"}]}`.
    Members {
        turn: u32,
        agent: Arc<str>,
        answers: Vec<Arc<MemberRecord>>,
    },
}

impl Entry {
    /// The turn `turn` of `agent`, which answered `output`.
    pub(crate) fn turn(turn: u32, agent: Arc<str>, output: &Value) -> Self {
        // serde_json writes a value it holds; `null` stands in should it not.
        let output = serde_json::value::to_raw_value(output)
            .unwrap_or_else(|_| RawValue::from_string("null".into()).expect("null is JSON"));
        Entry::Turn {
            turn,
            agent,
            output,
        }
    }

    /// The entry as a JSON value, for a prompt: the value the history held
    /// before it was typed.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Entry::Tool(record) => Value::clone(record),
            Entry::Turn {
                turn,
                agent,
                output,
            } => {
                // Read back from text serde_json wrote: the same value.
                let output = serde_json::from_str(output.get()).unwrap_or(Value::Null);
                let mut entry = Map::new();
                entry.insert("turn".into(), (*turn).into());
                entry.insert("agent".into(), agent.as_ref().into());
                entry.insert("output".into(), output);
                Value::Object(entry)
            }
            Entry::Members { .. } => serde_json::to_value(self).unwrap_or(Value::Null),
        }
    }
}

/// `entries` as a JSON array, for a prompt.
pub(super) fn to_values(entries: &[Entry]) -> Value {
    Value::Array(entries.iter().map(Entry::to_value).collect())
}

/// What the coordinator is told besides the basics, in `json!`'s key
/// order: its members, then the recent history.
#[derive(Serialize)]
pub(super) struct Told<'h> {
    pub(super) members: Members<'h>,
    pub(super) recent: &'h [Entry],
}

/// The coordinator's members, each name with its description, written as
/// `{"name", "description"}` objects without a value built for each (a
/// coordinator of 100,000 members is told them at every turn).
pub(super) struct Members<'h>(pub(super) Vec<(&'h str, &'h str)>);

impl Serialize for Members<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.0
                .iter()
                .map(|&(name, description)| Member { name, description }),
        )
    }
}

/// One member as the coordinator is told it, in `json!`'s key order.
#[derive(Serialize)]
struct Member<'h> {
    name: &'h str,
    description: &'h str,
}

/// `told` as the text a prompt is given: what serde_json writes of the
/// value [`to_values`] would build, byte for byte (each entry's
/// serialization is that value's), so a served call's prompt hash holds.
pub(super) fn written(told: &Told<'_>) -> TurnContext {
    match serde_json::value::to_raw_value(told) {
        Ok(text) => TurnContext::Written(Arc::from(text)),
        // Entries are written from values serde_json holds; should one
        // not write, the value is built as it was.
        Err(_) => TurnContext::Built(serde_json::json!({
            "members": told.members,
            "recent": to_values(told.recent),
        })),
    }
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Entry::Tool(record) => record.serialize(serializer),
            Entry::Turn {
                turn,
                agent,
                output,
            } => {
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("turn", turn)?;
                map.serialize_entry("agent", agent.as_ref())?;
                map.serialize_entry("output", output)?;
                map.end()
            }
            Entry::Members {
                turn,
                agent,
                answers,
            } => {
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("turn", turn)?;
                map.serialize_entry("agent", agent.as_ref())?;
                map.serialize_entry("members", &Answers(answers))?;
                map.end()
            }
        }
    }
}

/// A turn's member calls as the coordinator is told their answers.
struct Answers<'a>(&'a [Arc<MemberRecord>]);

impl Serialize for Answers<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|record| Answer(record)))
    }
}

/// One member call's answer: who, how it ended, the reply or the error
/// (`null` when there is none).
struct Answer<'a>(&'a MemberRecord);

impl Serialize for Answer<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let record = self.0;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("member", &record.member)?;
        map.serialize_entry("status", &record.status)?;
        map.serialize_entry("reply", &record.reply)?;
        map.serialize_entry("error", &record.stop_reason)?;
        map.end()
    }
}

/// The names of a team's agents, each held once: every entry of an agent
/// shares it.
#[derive(Default)]
pub(crate) struct Names(BTreeMap<String, Arc<str>>);

impl Names {
    pub(crate) fn of<'n>(names: impl IntoIterator<Item = &'n String>) -> Self {
        Names(
            names
                .into_iter()
                .map(|name| (name.clone(), Arc::from(name.as_str())))
                .collect(),
        )
    }

    /// `name`, shared when it is one of the team's agents.
    pub(crate) fn get(&self, name: &str) -> Arc<str> {
        self.0.get(name).cloned().unwrap_or_else(|| Arc::from(name))
    }
}

impl From<Entry> for Value {
    fn from(entry: Entry) -> Value {
        match entry {
            Entry::Tool(record) => *record,
            entry => entry.to_value(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::orchestrator::events::TaskStatus;
    use crate::stop::StopReason;
    use serde_json::json;

    fn answer(member: &str, reply: Option<&str>, error: Option<StopReason>) -> Arc<MemberRecord> {
        Arc::new(MemberRecord {
            turn: 1,
            member: member.into(),
            task: "part \"0\"".into(),
            status: if reply.is_some() {
                TaskStatus::Done
            } else {
                TaskStatus::Failed
            },
            latency_ms: 7,
            reply: reply.map(str::to_string),
            stop_reason: error,
            team: None,
        })
    }

    #[test]
    fn the_coordinators_context_is_written_as_the_value_it_stood_for_byte_for_byte() {
        let names = Names::of(&["lead".to_string(), "a0".to_string()]);
        let recent = vec![
            Entry::turn(
                1,
                names.get("lead"),
                &json!({"call_members": [{"member": "a0", "task": "é\n\t\u{1}"}], "x": 2.5e-7, "n": -3, "big": 18446744073709551615u64}),
            ),
            Entry::Members {
                turn: 1,
                agent: names.get("lead"),
                answers: vec![
                    answer("a0", Some("a0 is \"done\"."), None),
                    answer("a1", None, Some(StopReason::LlmTimeout)),
                ],
            },
            Entry::Tool(Box::new(
                json!({"turn": 2, "tool": "t", "result": {"z": 1, "a": [null, true]}}),
            )),
            Entry::turn(3, names.get("lead"), &json!({"reply": "Done."})),
        ];
        let members = vec![json!({"name": "a0", "description": "Reports one part"})];
        let built = json!({"members": members, "recent": to_values(&recent)});
        let TurnContext::Written(text) = written(&Told {
            members: Members(vec![("a0", "Reports one part")]),
            recent: &recent,
        }) else {
            panic!("the context is written as text");
        };
        assert_eq!(text.get(), serde_json::to_string(&built).unwrap());
    }
}
