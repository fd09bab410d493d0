//! Values as error messages name them: their kind and, when short, the
//! value itself.

use serde_json::Value;

/// A short description of a value for messages: its kind and, when short,
/// the value itself.
pub(crate) fn describe_value(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "whole number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    };
    let text = value.to_string();
    if text.chars().count() <= 40 {
        format!("{kind} {text}")
    } else {
        let short: String = text.chars().take(37).collect();
        format!("{kind} {short}...")
    }
}
