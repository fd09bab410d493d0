//! The final answer of a watched run, where its trace carries it: the
//! text of the last model call that answered in text, read from the
//! attributes of [`ANSWERS`]. Pure: spans in, text out.

use super::read::Readings;
use super::vocab::Kind;
use crate::span::Span;
use serde_json::Value as Json;

/// Where a model span carries its answer, in the order they are tried:
/// the convention and the attribute. A JSON value is searched for the
/// last text it holds (GenAI's message parts, an OpenAI response's
/// `output_text`, a LangChain result's generations).
pub(crate) const ANSWERS: &[(&str, &str)] = &[
    ("OpenInference", "llm.output_messages.0.message.content"),
    (
        "OpenTelemetry GenAI semantic conventions",
        "gen_ai.output.messages",
    ),
    ("Vercel AI SDK", "ai.response.text"),
    ("OpenInference", "output.value"),
];

/// The run's final answer: the text of the model call that ended last
/// among those that answered in text (`readings` holds each span's).
pub(crate) fn final_answer(spans: &[&Span], readings: &Readings) -> Option<String> {
    let mut calls: Vec<&Span> = spans
        .iter()
        .copied()
        .filter(|s| {
            readings
                .get(&s.span_id)
                .is_some_and(|r| r.kind() == Kind::Model)
        })
        .collect();
    calls.sort_by_key(|s| std::cmp::Reverse(s.end_ns));
    calls.into_iter().find_map(answer_of)
}

/// The text model span `span` answered with, if it carries one (a call
/// that only called tools answered no text).
pub(crate) fn answer_of(span: &Span) -> Option<String> {
    let text = ANSWERS.iter().find_map(|(_, key)| {
        let text = span.attr(key)?.text();
        match serde_json::from_str::<Json>(&text) {
            Ok(json @ (Json::Array(_) | Json::Object(_))) => text_in(&json),
            _ => Some(text).filter(|t| !t.trim().is_empty()),
        }
    })?;
    // A ReAct agent's last call (CrewAI's) answers `Thought: … Final
    // Answer: …`: the answer is what follows.
    const REACT: &str = "Final Answer:";
    match text.rfind(REACT) {
        Some(at) => Some(text[at + REACT.len()..].trim().to_string()).filter(|t| !t.is_empty()),
        None => Some(text),
    }
}

/// The last text `json` holds, by the shapes answers come in.
fn text_in(json: &Json) -> Option<String> {
    match json {
        Json::String(text) => Some(text.clone()).filter(|t| !t.trim().is_empty()),
        Json::Array(items) => items.iter().rev().find_map(text_in),
        Json::Object(map) => {
            // A message's parts or content: its text parts, joined.
            for key in ["parts", "content"] {
                if let Some(Json::Array(parts)) = map.get(key) {
                    let texts: Vec<String> = parts.iter().filter_map(part_text).collect();
                    if !texts.is_empty() {
                        return Some(texts.join("\n"));
                    }
                }
            }
            [
                "content",
                "text",
                "output",
                "generations",
                "messages",
                "kwargs",
                "message",
            ]
            .iter()
            .filter_map(|key| map.get(*key))
            .find_map(text_in)
        }
        _ => None,
    }
}

/// The text of one part of a message (`{"type": "text", "content": …}`,
/// `{"type": "output_text", "text": …}`), none for a tool call.
fn part_text(part: &Json) -> Option<String> {
    let kind = part.get("type").and_then(Json::as_str);
    if !matches!(kind, Some("text" | "output_text") | None) {
        return None;
    }
    match part {
        Json::String(text) => Some(text.clone()),
        _ => ["content", "text"]
            .iter()
            .find_map(|key| part.get(*key)?.as_str().map(str::to_string)),
    }
    .filter(|t| !t.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::answer_of;
    use crate::span::{Span, Value};

    fn span_with(key: &str, value: &str) -> Span {
        Span {
            trace_id: 1,
            span_id: 1,
            parent: None,
            name: "chat".into(),
            start_ns: 0,
            end_ns: 1,
            error: None,
            attrs: vec![(key.to_string(), Value::Str(value.to_string()))],
            events: Vec::new(),
            service: None,
            scope: String::new(),
            language: None,
            remote_parent: None,
        }
    }

    #[test]
    fn an_answer_is_the_text_of_the_last_message_never_a_tool_call() {
        let genai = r#"[{"role":"assistant","parts":[{"type":"tool_call","name":"x"}]},
            {"role":"assistant","parts":[{"type":"text","content":"Refunded."}]}]"#;
        assert_eq!(
            answer_of(&span_with("gen_ai.output.messages", genai)).as_deref(),
            Some("Refunded.")
        );
        let calls = r#"[{"role":"assistant","parts":[{"type":"tool_call","name":"x"}]}]"#;
        assert_eq!(answer_of(&span_with("gen_ai.output.messages", calls)), None);
        assert_eq!(answer_of(&span_with("ai.response.text", "")), None);
        assert_eq!(
            answer_of(&span_with("ai.response.text", "Done.")).as_deref(),
            Some("Done.")
        );
    }

    #[test]
    fn an_openai_response_and_a_langchain_result_give_their_text() {
        let response = r#"{"id":"r","output":[{"type":"message","content":[{"type":"output_text","text":"Sunny."}]}],"usage":{"input_tokens":3}}"#;
        assert_eq!(
            answer_of(&span_with("output.value", response)).as_deref(),
            Some("Sunny.")
        );
        let result = r#"{"generations":[[{"text":"Paris.","type":"ChatGeneration"}]]}"#;
        assert_eq!(
            answer_of(&span_with("output.value", result)).as_deref(),
            Some("Paris.")
        );
        assert_eq!(
            answer_of(&span_with("output.value", "plain words")).as_deref(),
            Some("plain words")
        );
        let react = "Thought: I know it.\nFinal Answer: Lyon.";
        assert_eq!(
            answer_of(&span_with("output.value", react)).as_deref(),
            Some("Lyon.")
        );
    }
}
