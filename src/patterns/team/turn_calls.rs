//! A team agent's turn in `tool` mode, as the OpenAI Agents SDK and
//! AutoGen's Swarm offer it: `reply {text}`; a swarm's handoff as 002's
//! `transfer_to_agent {agent, message}`; a coordinator's members as 002's
//! AgentTool, one function per member named as the member, `{task}`; and
//! one function per tool, named as the tool, its arguments free-form.
//!
//! Several calls in one answer follow the pattern's rules. A swarm turn is
//! one action: the first `transfer_to_agent` wins when there is one (as the
//! Agents SDK does), else the first call, and the others are ignored. A
//! coordinator's member calls go together as one `call_members`, in the
//! order called; a tool call among other calls is the turn, the first one;
//! a `reply` together with member calls is an error. A call of a function
//! not offered, or arguments that are not a JSON object, is an error.
//!
//! A function that takes one text (`reply`, a member's `{task}`) is read
//! as leniently as a text answer is: its text under its own key, under any
//! one other key (small models write `reply {"reply": …}`), or given bare.
//!
//! `reply` and `transfer_to_agent` are always the turn's own. A member or
//! tool whose name is one of them, is already taken (members are named
//! before tools), is over 64 characters or is not a valid function name is
//! offered as `member_<name>` or `tool_<name>` instead (cut to 64
//! characters, then numbered `_2`, `_3`… until free): the run goes on, and
//! the description still names the member or tool as the scenario does.

use super::action::{ARGS, CALL, CALL_MEMBERS, MEMBER, MESSAGE, REPLY, TASK, TRANSFER_TO};
use super::turn_shape::TurnShape;
use crate::provider::contract::{AnswerOfCalls, Function, Functions, Offer, ToolCall, wire};
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

pub(crate) const REPLY_FUNCTION: &str = "reply";
pub(crate) const TRANSFER_FUNCTION: &str = "transfer_to_agent";
const AGENT: &str = "agent";
const TEXT: &str = "text";
/// The longest name a function may have.
const MAX_NAME: usize = 64;

/// What a function of a turn stands for.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Stands {
    Reply,
    Transfer,
    Member(String),
    Tool(String),
}

/// The functions a turn shaped `shape` offers, in order, with what each
/// stands for.
pub(super) fn offered(shape: &TurnShape) -> Vec<(String, Stands, Function)> {
    let mut taken: HashSet<String> = [REPLY_FUNCTION, TRANSFER_FUNCTION].map(String::from).into();
    let mut offered = vec![(
        REPLY_FUNCTION.to_string(),
        Stands::Reply,
        strict(
            REPLY_FUNCTION,
            "Answer whoever asked (the user, or the coordinator that called you); it ends your turns.",
            vec![(TEXT, wire::string("Your answer."))],
        ),
    )];
    if !shape.targets.is_empty() {
        let targets = shape.targets.iter().map(String::as_str);
        offered.push((
            TRANSFER_FUNCTION.to_string(),
            Stands::Transfer,
            strict(
                TRANSFER_FUNCTION,
                "Hand control of the conversation to another agent of your team.",
                vec![
                    (
                        AGENT,
                        wire::one_of(targets, "The agent you hand control to."),
                    ),
                    (
                        MESSAGE,
                        wire::nullable(wire::string("What you tell that agent.")),
                    ),
                ],
            ),
        ));
    }
    for (member, description) in &shape.members {
        let name = allot(&mut taken, member, "member");
        let about = about(&format!("Ask the member `{member}`"), description);
        let task = vec![(TASK, wire::string("What you ask the member to do."))];
        let function = strict(&name, &about, task);
        offered.push((name, Stands::Member(member.clone()), function));
    }
    for (tool, description) in &shape.tools {
        let name = allot(&mut taken, tool, "tool");
        let function = Function {
            name: name.clone(),
            description: about(&format!("Call the tool `{tool}`"), description),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": true}),
            strict: false,
        };
        offered.push((name, Stands::Tool(tool.clone()), function));
    }
    offered
}

/// What a function does, then what the scenario says of its member or
/// tool, when it says something.
fn about(does: &str, described: &str) -> String {
    match described.trim() {
        "" => format!("{does}."),
        described => format!("{does}: {described}"),
    }
}

fn strict(name: &str, description: &str, properties: Vec<(&str, Value)>) -> Function {
    Function {
        name: name.to_string(),
        description: description.to_string(),
        parameters: wire::object(description, properties),
        strict: true,
    }
}

/// A function name for `name`, not yet `taken`: the name itself when it
/// may be one, else `<kind>_<name>` cut to fit, then numbered.
fn allot(taken: &mut HashSet<String>, name: &str, kind: &str) -> String {
    let valid = |n: &str| {
        (1..=MAX_NAME).contains(&n.len())
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let stem = format!("{kind}_{cleaned}");
    let numbered = (1..).map(|n: usize| {
        let tail = if n == 1 {
            String::new()
        } else {
            format!("_{n}")
        };
        format!("{}{tail}", &stem[..stem.len().min(MAX_NAME - tail.len())])
    });
    let own = valid(name).then(|| name.to_string());
    let chosen = own
        .into_iter()
        .chain(numbered)
        .find(|candidate| !taken.contains(candidate))
        .expect("the numbered names never run out");
    taken.insert(chosen.clone());
    chosen
}

/// The functions a turn shaped `shape` offers, and how the calls of one
/// answer read back as its turn: the functions are made once for both (a
/// coordinator of 100,000 members offers as many), and only when first
/// read, which only a request in `tool` mode does.
pub(super) fn functions_and_reader(shape: &TurnShape) -> (Functions, AnswerOfCalls) {
    let offers = Arc::new(Offers {
        shape: shape.clone(),
        made: OnceLock::new(),
    });
    (Functions::offered_by(offers.clone()), reader(offers))
}

/// A turn's functions with what each stands for, made at their first read.
struct Offers {
    shape: TurnShape,
    made: OnceLock<Made>,
}

/// Each function's name with what it stands for, and the functions.
type Made = (Vec<(String, Stands)>, Vec<Function>);

impl Offers {
    fn made(&self) -> &Made {
        self.made.get_or_init(|| {
            offered(&self.shape)
                .into_iter()
                .map(|(name, stands, function)| ((name, stands), function))
                .unzip()
        })
    }
}

impl Offer for Offers {
    fn functions(&self) -> &[Function] {
        &self.made().1
    }
}

/// How the calls of one answer read back as a turn whose functions
/// `offers` makes, with what each stands for.
fn reader(offers: Arc<Offers>) -> AnswerOfCalls {
    Arc::new(move |calls: &[ToolCall]| {
        let offered = &offers.made().0;
        let names: Vec<&str> = offered.iter().map(|(n, _)| n.as_str()).collect();
        if calls.is_empty() {
            return Err(format!(
                "no function was called: call one of {}",
                wire::listed(&names)
            ));
        }
        let mut found = Vec::with_capacity(calls.len());
        for call in calls {
            let Some((_, stands)) = offered.iter().find(|(n, _)| *n == call.name) else {
                return Err(wire::not_offered(&call.name, &names));
            };
            found.push((stands, leniently(stands, call)));
        }
        let mut read = Vec::with_capacity(found.len());
        for (stands, call) in &found {
            read.push((*stands, &call.name, wire::arguments(call)?));
        }
        if offers.shape.coordinator {
            coordinator_turn(&read)
        } else {
            let first = read.iter().find(|(s, _, _)| **s == Stands::Transfer);
            let (stands, name, args) = first.unwrap_or(&read[0]);
            turn_of(stands, name, args)
        }
    })
}

type Read<'c> = (&'c Stands, &'c String, &'c Map<String, Value>);

/// `call` with its text where a function of one text wants it, when the
/// model wrote it as one lone string under another key or bare; any other
/// call as it came.
fn leniently(stands: &Stands, call: &ToolCall) -> ToolCall {
    let key = match stands {
        Stands::Reply => TEXT,
        Stands::Member(_) => TASK,
        Stands::Transfer | Stands::Tool(_) => return call.clone(),
    };
    let lone = match &call.arguments {
        Value::String(text) => Some(text.as_str()),
        Value::Object(map) if map.len() == 1 && !map.contains_key(key) => {
            map.values().next().and_then(Value::as_str)
        }
        _ => None,
    };
    match lone {
        Some(text) => ToolCall {
            name: call.name.clone(),
            arguments: json!({ key: text }),
        },
        None => call.clone(),
    }
}

/// A coordinator's calls as one turn: the first tool call; else its member
/// calls together; else its first reply.
fn coordinator_turn(read: &[Read<'_>]) -> Result<Value, String> {
    if let Some((stands, name, args)) = read.iter().find(|(s, _, _)| matches!(s, Stands::Tool(_))) {
        return turn_of(stands, name, args);
    }
    let members: Vec<&Read<'_>> = read
        .iter()
        .filter(|(s, _, _)| matches!(s, Stands::Member(_)))
        .collect();
    if members.is_empty() {
        let (stands, name, args) = &read[0];
        return turn_of(stands, name, args);
    }
    if members.len() < read.len() {
        return Err(format!(
            "`{REPLY_FUNCTION}` cannot come with member calls: call the members, then reply once their answers are back"
        ));
    }
    let mut calls = Vec::with_capacity(members.len());
    for (stands, name, args) in members {
        let Stands::Member(member) = stands else {
            continue;
        };
        let task = text(name, args, TASK)?;
        calls.push(json!({MEMBER: member, TASK: task}));
    }
    Ok(json!({CALL_MEMBERS: calls}))
}

/// One call as a turn in the contract's own JSON.
fn turn_of(stands: &Stands, name: &str, args: &Map<String, Value>) -> Result<Value, String> {
    Ok(match stands {
        Stands::Reply => json!({REPLY: text(name, args, TEXT)?}),
        Stands::Transfer => {
            let mut turn = json!({TRANSFER_TO: text(name, args, AGENT)?});
            if let Some(message) = args.get(MESSAGE).filter(|m| !m.is_null()) {
                turn[MESSAGE] = message.clone();
            }
            turn
        }
        Stands::Tool(tool) => json!({CALL: tool, ARGS: args}),
        Stands::Member(member) => {
            json!({CALL_MEMBERS: [{MEMBER: member, TASK: text(name, args, TASK)?}]})
        }
    })
}

/// The string argument `key` of a call of `function`.
fn text<'a>(function: &str, args: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    args.get(key).and_then(Value::as_str).ok_or_else(|| {
        format!(
            "`{function}` takes `{key}`, a string; its arguments were {}",
            wire::quoted(&Value::Object(args.clone()))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turns_functions_are_made_at_their_first_read_once_for_its_reader_too() {
        let shape = TurnShape {
            coordinator: true,
            members: vec![("m0".into(), "Reports one part".into())],
            ..TurnShape::default()
        };
        let offers = Arc::new(Offers {
            shape,
            made: OnceLock::new(),
        });
        let functions = Functions::offered_by(offers.clone());
        let read = reader(Arc::clone(&offers));
        assert!(
            offers.made.get().is_none(),
            "nothing made with the contract"
        );
        let call = ToolCall {
            name: "m0".into(),
            arguments: json!({"task": "t"}),
        };
        assert_eq!(
            read(&[call]).unwrap(),
            json!({"call_members": [{"member": "m0", "task": "t"}]})
        );
        let made = offers.made.get().expect("made for the reader");
        assert_eq!(functions.as_ptr(), made.1.as_ptr(), "made once, shared");
        let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["reply", "m0"]);
    }
}
