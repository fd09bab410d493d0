//! What a `tools/call` answer means for Conclave: `structuredContent` that
//! is an object, or else a text content that is a JSON object, is the
//! result; `isError` is the tool's failure with its words; anything else
//! (plain text, an image, nothing) is a bad result. Pure functions.

use super::error::quote;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// Why an answer is not a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NotAResult {
    /// `isError`, with the tool's words.
    ToolError(String),
    /// What came instead of a JSON object.
    Bad(String),
}

pub(crate) fn read(result: CallToolResult) -> Result<Value, NotAResult> {
    if result.is_error == Some(true) {
        return Err(NotAResult::ToolError(error_text(&result)));
    }
    if let Some(Value::Object(object)) = result.structured_content {
        return Ok(Value::Object(object));
    }
    let mut first_text = None;
    for block in &result.content {
        if let ContentBlock::Text(text) = block {
            match serde_json::from_str::<Value>(text.text.trim()) {
                Ok(Value::Object(object)) => return Ok(Value::Object(object)),
                _ => {
                    first_text.get_or_insert(text.text.as_str());
                }
            }
        }
    }
    Err(NotAResult::Bad(
        match (&result.structured_content, first_text) {
            (Some(other), _) => format!("structured content that is {}", kind(other)),
            (None, Some(text)) => match serde_json::from_str::<Value>(text.trim()) {
                Ok(value) => format!("text that is JSON but {}", kind(&value)),
                Err(_) if text.trim().is_empty() => "empty text".to_string(),
                Err(_) => format!("text that is not JSON: \"{}\"", quote(text)),
            },
            (None, None) => match result.content.first() {
                None => "no content".to_string(),
                Some(block) => format!("{} content", block_kind(block)),
            },
        },
    ))
}

/// The words of a failed call: its texts, else its structured content,
/// else a note that it gave none.
fn error_text(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|b| b.as_text().map(|t| t.text.as_str()))
        .filter(|t| !t.trim().is_empty())
        .collect();
    if !texts.is_empty() {
        return quote(&texts.join(" "));
    }
    match &result.structured_content {
        Some(value) => quote(&value.to_string()),
        None => "(the tool gave no message)".to_string(),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn block_kind(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Text(_) => "text",
        ContentBlock::Image(_) => "image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::Resource(_) => "embedded resource",
        ContentBlock::ResourceLink(_) => "resource link",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(value: Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    fn text(t: &str) -> Value {
        json!({"type": "text", "text": t})
    }

    #[test]
    fn structured_content_then_a_json_object_text_is_the_result() {
        let both = answer(json!({"content": [text("{\"a\": 2}")], "structuredContent": {"a": 1}}));
        assert_eq!(read(both), Ok(json!({"a": 1})));
        let text_only = answer(json!({"content": [text("not this"), text(" {\"b\": [1]}\n")]}));
        assert_eq!(read(text_only), Ok(json!({"b": [1]})));
        let structured_array =
            answer(json!({"content": [text("{\"c\": 1}")], "structuredContent": [1]}));
        assert_eq!(read(structured_array), Ok(json!({"c": 1})));
    }

    #[test]
    fn is_error_carries_the_tools_words() {
        let failed = answer(
            json!({"content": [text("db\x1b[2J down"), text("retry later")],
                                   "isError": true, "structuredContent": {"a": 1}}),
        );
        assert_eq!(
            read(failed),
            Err(NotAResult::ToolError("db down retry later".into()))
        );
        let silent = answer(json!({"content": [], "isError": true}));
        assert_eq!(
            read(silent),
            Err(NotAResult::ToolError("(the tool gave no message)".into()))
        );
    }

    #[test]
    fn anything_else_is_a_bad_result_that_says_what_came() {
        let bad = |v: Value| match read(answer(v)) {
            Err(NotAResult::Bad(what)) => what,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            bad(json!({"content": [text("hello there")]})),
            "text that is not JSON: \"hello there\""
        );
        assert_eq!(
            bad(json!({"content": [text("[1, 2]")]})),
            "text that is JSON but an array"
        );
        assert_eq!(bad(json!({"content": [text("  ")]})), "empty text");
        assert_eq!(bad(json!({"content": []})), "no content");
        assert_eq!(
            bad(json!({"content": [], "structuredContent": "x"})),
            "structured content that is a string"
        );
        assert_eq!(
            bad(json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]})),
            "image content"
        );
    }
}
