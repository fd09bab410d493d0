//! One scripted turn of the sim, checked: its kind one that who takes it
//! may take (a swarm agent replies, transfers or calls a tool; the
//! coordinator calls its members; a member replies or calls a tool), its
//! latency and fault well formed, and no field its kind does not read.

use crate::scenario::error::Problem;
use crate::scenario::path::JsonPath;
use crate::scenario::script::{FAULT_KEY, ScriptedOutput};
use crate::scenario::value_words::describe_value;
use serde_json::{Map, Value};
/// The key of a scripted turn's own latency, which a turn of any kind may
/// carry.
const LATENCY: &str = "latency_ms";

/// Who takes a turn, which says what kinds of turn it may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Speaker {
    SwarmAgent,
    Coordinator,
    Member,
}

impl Speaker {
    fn kinds(self) -> &'static [&'static str] {
        match self {
            Speaker::SwarmAgent => &["reply", "transfer_to", "call"],
            Speaker::Coordinator => &["reply", "call", "call_members"],
            Speaker::Member => &["reply", "call"],
        }
    }
}
/// Where a turn stands, written when a problem is found there.
pub(super) type Place<'p> = &'p dyn Fn() -> JsonPath;

pub(super) fn check_turn(
    entry: &Value,
    speaker: Speaker,
    at: Place<'_>,
    problems: &mut Vec<Problem>,
) {
    let kinds = speaker.kinds();
    let expected = || {
        format!(
            "expected a turn: text, a {FAULT_KEY}, or an object with one of {}",
            kinds
                .iter()
                .map(|k| format!("\"{k}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let Value::Object(map) = entry else {
        if !entry.is_string() {
            problems.push(Problem::at(
                at(),
                format!("{}, found {}", expected(), describe_value(entry)),
            ));
        }
        return;
    };
    if let Some(latency) = map.get(LATENCY)
        && latency.as_u64().is_none()
    {
        problems.push(Problem::at(
            at().key(LATENCY),
            format!(
                "expected a whole number of milliseconds, found {}",
                describe_value(latency)
            ),
        ));
    }
    if map.contains_key(FAULT_KEY) {
        let mut fault = map.clone();
        fault.remove(LATENCY);
        if let Err(message) = ScriptedOutput::parse(&Value::Object(fault)) {
            problems.push(Problem::at(at().key(FAULT_KEY), message));
        }
        return;
    }
    let named: Vec<&str> = ["reply", "transfer_to", "call", "call_members"]
        .into_iter()
        .filter(|k| map.contains_key(*k))
        .collect();
    let kind = match named[..] {
        [kind] => kind,
        [] => {
            problems.push(Problem::at(at(), expected()));
            return;
        }
        _ => {
            problems.push(Problem::at(
                at(),
                format!(
                    "a turn is one kind; found {}",
                    named
                        .iter()
                        .map(|k| format!("\"{k}\""))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            ));
            return;
        }
    };
    if !kinds.contains(&kind) {
        let who = match speaker {
            Speaker::SwarmAgent => "a swarm agent",
            Speaker::Coordinator => "the coordinator",
            Speaker::Member => "a member",
        };
        problems.push(Problem::at_key(
            at().key(kind),
            format!("{who} cannot take a \"{kind}\" turn; {}", expected()),
        ));
        return;
    }
    check_turn_fields(map, kind, at, problems);
}

fn check_turn_fields(
    map: &Map<String, Value>,
    kind: &str,
    at: Place<'_>,
    problems: &mut Vec<Problem>,
) {
    let allowed: &[&str] = match kind {
        "reply" => &["reply", LATENCY],
        "transfer_to" => &["transfer_to", "message", LATENCY],
        "call" => &["call", "args", LATENCY],
        _ => &["call_members", LATENCY],
    };
    for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
        problems.push(Problem::at_key(
            at().key(key),
            format!(
                "unknown field {} in a \"{kind}\" turn; expected one of: {}",
                Value::from(key.as_str()),
                allowed.join(", ")
            ),
        ));
    }
    let text = |key: &str, problems: &mut Vec<Problem>| {
        if let Some(value) = map.get(key)
            && !value.is_string()
        {
            problems.push(Problem::at(
                at().key(key),
                format!("expected a string, found {}", describe_value(value)),
            ));
        }
    };
    match kind {
        "reply" | "transfer_to" => {
            text(kind, problems);
            text("message", problems);
        }
        "call" => {
            text("call", problems);
            if let Some(args) = map.get("args")
                && !args.is_object()
            {
                problems.push(Problem::at(
                    at().key("args"),
                    format!("expected an object, found {}", describe_value(args)),
                ));
            }
        }
        _ => match &map["call_members"] {
            Value::Array(calls) if !calls.is_empty() => {
                for (i, call) in calls.iter().enumerate() {
                    let fits = call.as_object().is_some_and(|c| {
                        c.get("member").is_some_and(Value::is_string)
                            && c.get("task").is_none_or(Value::is_string)
                            && c.keys().all(|k| k == "member" || k == "task")
                    });
                    if !fits {
                        problems.push(Problem::at(
                            at().key("call_members").index(i),
                            format!(
                                "expected {{\"member\": name, \"task\": text}}, found {}",
                                describe_value(call)
                            ),
                        ));
                    }
                }
            }
            other => problems.push(Problem::at(
                at().key("call_members"),
                format!(
                    "expected a list of at least one member call, found {}",
                    describe_value(other)
                ),
            )),
        },
    }
}
