//! Evaluating an edge's condition against what the run knows when its
//! source node ends: the source's validated output, the shared state, each
//! node's visits, the source's status and a person's answer. Each test
//! says what it compared with the real values, as the graph pane shows it
//! (`verdict=="revise" ✓  visits(draft)=2<3 ✓`).

use super::spec::{Condition, NodeStatus, Test};
use serde_json::Value;

/// What a condition is evaluated against.
pub(crate) struct Facts<'a> {
    /// The source node's validated output (`null` when it failed).
    pub(crate) output: &'a Value,
    /// The shared state, one key a state key.
    pub(crate) state: &'a Value,
    /// How many times the node named so has run.
    pub(crate) visits: &'a dyn Fn(&str) -> u32,
    pub(crate) status: NodeStatus,
    /// The option a person chose, when the source asked one.
    pub(crate) answer: Option<&'a str>,
}

/// One test as evaluated: its words with the value found, and whether it
/// held.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Checked {
    pub(crate) said: String,
    pub(crate) held: bool,
}

/// Whether `condition` holds on `facts`, with every test it evaluated in
/// order (`all` and `any` stop at the first test that decides them).
pub(crate) fn evaluate(condition: &Condition, facts: &Facts<'_>, said: &mut Vec<Checked>) -> bool {
    match condition {
        Condition::All { all } => all.iter().all(|c| evaluate(c, facts, said)),
        Condition::Any { any } => any.iter().any(|c| evaluate(c, facts, said)),
        Condition::Not { not } => !evaluate(not, facts, said),
        Condition::Field { field, test } => {
            let found = facts.output.pointer(field).unwrap_or(&Value::Null);
            record(said, name_of(field), found, test)
        }
        Condition::State { state, test } => {
            let found = facts.state.pointer(state).unwrap_or(&Value::Null);
            record(said, format!("state{}", dotted(state)), found, test)
        }
        Condition::Visits { visits, test } => {
            let found = Value::from((facts.visits)(visits));
            record(said, format!("visits({visits})"), &found, test)
        }
        Condition::Status { status } => {
            let held = facts.status == *status;
            said.push(Checked {
                said: format!("status=={} ({})", word(*status), word(facts.status)),
                held,
            });
            held
        }
        Condition::Answer { answer } => {
            let found = facts.answer.unwrap_or("");
            let held = found == answer;
            said.push(Checked {
                said: format!("answer=={answer:?} ({found:?})"),
                held,
            });
            held
        }
    }
}

fn word(status: NodeStatus) -> &'static str {
    match status {
        NodeStatus::Ok => "ok",
        NodeStatus::Failed => "failed",
    }
}

/// `/verdict` reads `verdict`; `/a/b` reads `a.b`.
fn name_of(pointer: &str) -> String {
    pointer.trim_start_matches('/').replace('/', ".")
}

fn dotted(pointer: &str) -> String {
    pointer.replace('/', ".")
}

fn record(said: &mut Vec<Checked>, name: String, found: &Value, test: &Test) -> bool {
    let (held, words) = apply(test, found);
    said.push(Checked {
        said: format!("{name}={} {words}", short(found)),
        held,
    });
    held
}

/// A value as a test line shows it, cut at 40 characters.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The test's one operator applied to `found`, with its words (`<3`).
pub(crate) fn apply(test: &Test, found: &Value) -> (bool, String) {
    let number = found.as_f64();
    let compare = |op: &str, limit: f64, holds: fn(f64, f64) -> bool| {
        (
            number.is_some_and(|n| holds(n, limit)),
            format!("{op}{limit}"),
        )
    };
    if let Some(want) = &test.eq {
        return (equal(found, want), format!("=={want}"));
    }
    if let Some(want) = &test.ne {
        return (!equal(found, want), format!("!={want}"));
    }
    if let Some(limit) = test.lt {
        return compare("<", limit, |n, l| n < l);
    }
    if let Some(limit) = test.le {
        return compare("<=", limit, |n, l| n <= l);
    }
    if let Some(limit) = test.gt {
        return compare(">", limit, |n, l| n > l);
    }
    if let Some(limit) = test.ge {
        return compare(">=", limit, |n, l| n >= l);
    }
    if let Some(values) = &test.one_of {
        let list: Vec<String> = values.iter().map(Value::to_string).collect();
        return (
            values.iter().any(|v| equal(found, v)),
            format!("in [{}]", list.join(", ")),
        );
    }
    (false, "(no test)".into())
}

/// Numbers compare as numbers (`3` equals `3.0`); the rest as JSON.
fn equal(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The number of operators a test has: one is right.
pub(crate) fn operators(test: &Test) -> usize {
    [
        test.eq.is_some(),
        test.ne.is_some(),
        test.lt.is_some(),
        test.le.is_some(),
        test.gt.is_some(),
        test.ge.is_some(),
        test.one_of.is_some(),
    ]
    .into_iter()
    .filter(|on| *on)
    .count()
}

/// Whether `condition` can hold when the output field at `pointer` is
/// `value`, the rest unknown: `Some(false)` when it cannot, `Some(true)`
/// when it must, `None` when the rest decides.
pub(crate) fn could_hold(condition: &Condition, pointer: &str, value: &Value) -> Option<bool> {
    match condition {
        Condition::All { all } => {
            let mut unknown = false;
            for c in all {
                match could_hold(c, pointer, value) {
                    Some(false) => return Some(false),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
            if unknown { None } else { Some(true) }
        }
        Condition::Any { any } => {
            let mut unknown = false;
            for c in any {
                match could_hold(c, pointer, value) {
                    Some(true) => return Some(true),
                    None => unknown = true,
                    Some(false) => {}
                }
            }
            if unknown { None } else { Some(false) }
        }
        Condition::Not { not } => could_hold(not, pointer, value).map(|held| !held),
        Condition::Field { field, test } if field == pointer => Some(apply(test, value).0),
        _ => None,
    }
}

/// Every output field a condition reads, as JSON Pointers.
pub(crate) fn fields(condition: &Condition, into: &mut Vec<String>) {
    match condition {
        Condition::All { all: list } | Condition::Any { any: list } => {
            list.iter().for_each(|c| fields(c, into))
        }
        Condition::Not { not } => fields(not, into),
        Condition::Field { field, .. } if !into.contains(field) => into.push(field.clone()),
        _ => {}
    }
}

/// Every test of a condition, for the lint.
pub(crate) fn tests(condition: &Condition, into: &mut Vec<Test>) {
    match condition {
        Condition::All { all: list } | Condition::Any { any: list } => {
            list.iter().for_each(|c| tests(c, into))
        }
        Condition::Not { not } => tests(not, into),
        Condition::Field { test, .. }
        | Condition::State { test, .. }
        | Condition::Visits { test, .. } => into.push(test.clone()),
        Condition::Status { .. } | Condition::Answer { .. } => {}
    }
}

/// A condition in words, as the graph pane labels its edge:
/// `verdict=="revise" and visits(draft)<3`.
pub(crate) fn words(condition: &Condition) -> String {
    let joined = |list: &[Condition], with: &str| {
        let parts: Vec<String> = list
            .iter()
            .map(|c| match c {
                Condition::All { .. } | Condition::Any { .. } => format!("({})", words(c)),
                _ => words(c),
            })
            .collect();
        parts.join(with)
    };
    match condition {
        Condition::All { all } => joined(all, " and "),
        Condition::Any { any } => joined(any, " or "),
        Condition::Not { not } => format!("not ({})", words(not)),
        Condition::Field { field, test } => {
            format!("{}{}", name_of(field), apply(test, &Value::Null).1)
        }
        Condition::State { state, test } => {
            format!("state{}{}", dotted(state), apply(test, &Value::Null).1)
        }
        Condition::Visits { visits, test } => {
            format!("visits({visits}){}", apply(test, &Value::Null).1)
        }
        Condition::Status { status } => format!("status=={}", word(*status)),
        Condition::Answer { answer } => format!("answer=={answer:?}"),
    }
}
