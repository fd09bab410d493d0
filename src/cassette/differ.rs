//! The words of a miss: which call the recording does not hold, and the
//! first field where it differs from the call the recording has next of
//! its kind, recorded against now.

use super::{Asked, Recorded};
use serde_json::Value;

/// Longest value quoted in a miss's words.
const QUOTED: usize = 80;

/// Why `asked` missed: the first difference from `next`, the recording's
/// next unserved call of the same kind, after `served` of that kind.
pub(super) fn first_difference(
    asked: &Asked<'_>,
    next: Option<&Recorded>,
    served: usize,
) -> String {
    let which = match asked {
        Asked::Model { purpose, .. } => format!("model call {} for {purpose}", served + 1),
        Asked::Tool { tool, .. } => format!("call {} of tool {tool}", served + 1),
    };
    let Some(next) = next else {
        return format!(
            "the recording holds no {which}: it made {}",
            crate::words::plural(served as u64, "such call")
        );
    };
    let difference = match asked {
        Asked::Model { prompt_sha256, .. } => format!(
            "prompt_sha256: recorded {}, now {}",
            short_hash(next.record.prompt_sha256.as_deref().unwrap_or("none")),
            short_hash(prompt_sha256)
        ),
        Asked::Tool { args, .. } => match &next.record.args {
            Some(recorded) => value_difference("args", recorded, args),
            None => "args: recorded none".to_string(),
        },
    };
    format!("the recording does not hold {which}: {difference}")
}

/// The first 12 characters of a hash, which tell two apart.
fn short_hash(hash: &str) -> String {
    hash.chars().take(12).collect()
}

/// The first place where `now` differs from `recorded`, as `path: recorded
/// X, now Y`.
fn value_difference(path: &str, recorded: &Value, now: &Value) -> String {
    match (recorded, now) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let inner = format!("{path}.{key}");
                match b.get(key) {
                    Some(other) if other == value => {}
                    Some(other) => return value_difference(&inner, value, other),
                    None => return format!("{inner}: recorded {}, now absent", quoted(value)),
                }
            }
            if let Some((key, value)) = b.iter().find(|(key, _)| !a.contains_key(*key)) {
                return format!("{path}.{key}: recorded absent, now {}", quoted(value));
            }
            format!("{path}: the same fields in another order")
        }
        (Value::Array(a), Value::Array(b)) => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                if x != y {
                    return value_difference(&format!("{path}[{index}]"), x, y);
                }
            }
            format!("{path}: recorded {} items, now {}", a.len(), b.len())
        }
        _ => format!("{path}: recorded {}, now {}", quoted(recorded), quoted(now)),
    }
}

/// A value as JSON, cut to [`QUOTED`] characters and cleaned for the
/// terminal.
fn quoted(value: &Value) -> String {
    let text = value.to_string();
    let cut: String = text.chars().take(QUOTED).collect();
    let cut = if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    };
    crate::sanitize::clean(&cut).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_first_field_that_differs() {
        assert_eq!(
            value_difference(
                "args",
                &json!({"order": "A-1042", "n": [1, 2]}),
                &json!({"order": "A-1043", "n": [1, 3]})
            ),
            r#"args.order: recorded "A-1042", now "A-1043""#
        );
        assert_eq!(
            value_difference("args", &json!({"n": [1, 2]}), &json!({"n": [1, 3]})),
            "args.n[1]: recorded 2, now 3"
        );
        assert_eq!(
            value_difference("args", &json!({"a": 1}), &json!({"a": 1, "b": 2})),
            "args.b: recorded absent, now 2"
        );
        assert_eq!(
            value_difference("args", &json!({"a": 1}), &json!({})),
            "args.a: recorded 1, now absent"
        );
    }

    #[test]
    fn long_and_hostile_values_are_cut_and_cleaned() {
        let long = "x".repeat(500);
        let words = value_difference("args", &json!(long), &json!("\u{1b}[2Jy"));
        assert!(words.len() < 200, "{words}");
        assert!(!words.contains('\u{1b}'), "{words}");
    }
}
