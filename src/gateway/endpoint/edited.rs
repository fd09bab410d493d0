//! An edited answer a fork serves at its call: a file holding the whole
//! answer of the call's API, checked when read, served whole or as the
//! stream the call asks for.

use super::Api;
use super::report::RecordedAnswer;
use super::served::{PIECES_IN_FLIGHT, Served, ServedBody};
use crate::bus::TokenUsage;
use serde_json::Value;
use std::path::Path;
use tokio::sync::mpsc;

/// The largest answer file read: an answer is kept up to 8 MiB.
const MAX_FILE: u64 = 8 * 1024 * 1024;

/// A whole answer of one API, read from a file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EditedAnswer {
    pub(crate) api: Api,
    answer: Value,
    /// The file, as it was named.
    pub(crate) file: String,
}

impl EditedAnswer {
    /// The answer in `path` for model call `number`, of `api`
    /// (`chat.completions` or `responses`); an error naming the file, the
    /// place and what was expected.
    pub(crate) fn read(path: &Path, number: u64, api: &str) -> Result<EditedAnswer, String> {
        let file = path.display().to_string();
        let api = match api {
            "responses" => Api::Responses,
            "chat.completions" => Api::ChatCompletions,
            other => {
                return Err(format!(
                    "model call {number} is of the api {other:?}, which a fork does not answer"
                ));
            }
        };
        let size = std::fs::metadata(path).map_err(|e| format!("{file}: cannot read: {e}"))?;
        if size.len() > MAX_FILE {
            return Err(format!(
                "{file}: {} bytes: expected an answer of at most {MAX_FILE} bytes",
                size.len()
            ));
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{file}: cannot read: {e}"))?;
        let expected = format!(
            "the whole answer {} sends, as `conclave replay REC --answer {number}` prints it",
            api.name()
        );
        let answer: Value = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{file}:{}:{}: expected {expected}: {e}",
                e.line(),
                e.column()
            )
        })?;
        check(&answer, api).map_err(|why| format!("{file}: {why}; expected {expected}"))?;
        Ok(EditedAnswer { api, answer, file })
    }

    /// `answer`, of `api`, as if read from `edited.json`.
    #[cfg(test)]
    pub(crate) fn of(api: Api, answer: Value) -> EditedAnswer {
        EditedAnswer {
            api,
            answer,
            file: "edited.json".into(),
        }
    }

    /// The tokens the answer says it took.
    pub(crate) fn usage(&self) -> Option<TokenUsage> {
        super::prepare::usage_in(self.api, &self.answer)
    }

    /// The model the answer names.
    pub(crate) fn model(&self) -> Option<String> {
        super::prepare::model_in(&self.answer)
    }

    /// The answer served as the call asks (`stream`; `with_usage`: Chat
    /// Completions' usage chunk asked for), and as its recording keeps it.
    pub(crate) fn served(&self, stream: bool, with_usage: bool) -> (Served, RecordedAnswer) {
        if !stream {
            let body = self.answer.to_string();
            let kept = RecordedAnswer {
                content_type: "application/json".into(),
                body: Some(crate::secrets::scrub(&body).into_owned()),
                events: Vec::new(),
            };
            return (Served::json(200, body.into_bytes()), kept);
        }
        let events = super::restream::events_of(self.api, &self.answer, with_usage);
        let kept = RecordedAnswer {
            content_type: "text/event-stream".into(),
            body: None,
            events: events
                .iter()
                .map(|e| crate::secrets::scrub(e).into_owned())
                .collect(),
        };
        let (pieces, body) = mpsc::channel(PIECES_IN_FLIGHT);
        tokio::spawn(async move {
            for event in events {
                if pieces.send(Ok(event.into_bytes())).await.is_err() {
                    return;
                }
            }
        });
        let served = Served {
            status: 200,
            content_type: "text/event-stream".into(),
            final_refusal: false,
            body: ServedBody::Stream(body),
        };
        (served, kept)
    }
}

/// Whether `answer` has the shape `api`'s clients read: Chat Completions'
/// object with `choices`, each with a `message` object whose `content` is
/// text or null and whose `tool_calls` name a function; the Responses
/// API's object with `output`, each item an object with a `type`.
fn check(answer: &Value, api: Api) -> Result<(), String> {
    let Some(answer) = answer.as_object() else {
        return Err("the JSON is not an object".into());
    };
    if api == Api::Responses {
        let Some(items) = answer.get("output").and_then(Value::as_array) else {
            return Err("no `output` list: a Chat Completions answer, or not an answer, where the call asks the Responses API".into());
        };
        for (at, item) in items.iter().enumerate() {
            if !item.get("type").is_some_and(Value::is_string) {
                return Err(format!("output[{at}]: no `type`"));
            }
        }
        return Ok(());
    }
    let Some(choices) = answer.get("choices").and_then(Value::as_array) else {
        return Err("no `choices` list: a Responses API answer, or not an answer, where the call asks Chat Completions".into());
    };
    if choices.is_empty() {
        return Err("`choices` is empty".into());
    }
    for (at, choice) in choices.iter().enumerate() {
        let Some(message) = choice.get("message").and_then(Value::as_object) else {
            return Err(format!(
                "choices[{at}]: no `message` object (a stream's chunk has `delta`)"
            ));
        };
        if !message
            .get("content")
            .is_none_or(|c| c.is_string() || c.is_null())
        {
            return Err(format!(
                "choices[{at}].message.content: expected text or null"
            ));
        }
        let calls = message.get("tool_calls").and_then(Value::as_array);
        for (n, call) in calls.into_iter().flatten().enumerate() {
            if !call.pointer("/function/name").is_some_and(Value::is_string) {
                return Err(format!(
                    "choices[{at}].message.tool_calls[{n}]: no function.name"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, api: &str) -> Result<EditedAnswer, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, text).unwrap();
        EditedAnswer::read(&path, 2, api)
            .map_err(|e| e.replace(&path.display().to_string(), "a.json"))
    }

    #[tokio::test]
    async fn an_answer_is_served_whole_or_as_the_stream_asked_for_and_kept_as_served() {
        let answer = serde_json::json!({"id": "c", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Rain."},
                "finish_reason": "stop"}]});
        let edited = EditedAnswer::of(Api::ChatCompletions, answer.clone());
        let (served, kept) = edited.served(false, false);
        let ServedBody::Whole(body) = served.body else {
            panic!("a whole answer for a call that does not stream");
        };
        assert_eq!(serde_json::from_slice::<Value>(&body).unwrap(), answer);
        assert_eq!(kept.body.as_deref(), std::str::from_utf8(&body).ok());
        let (served, kept) = edited.served(true, false);
        let ServedBody::Stream(mut pieces) = served.body else {
            panic!("a stream for a call that streams");
        };
        let mut events = Vec::new();
        while let Some(Ok(piece)) = pieces.recv().await {
            events.push(String::from_utf8(piece).unwrap());
        }
        assert_eq!(
            (served.content_type.as_str(), &events),
            ("text/event-stream", &kept.events)
        );
        assert!(events[0].contains("\"content\":\"Rain.\""), "{events:?}");
    }

    #[test]
    fn a_bad_answer_file_is_named_with_its_place_and_what_was_expected() {
        let not_json = read("{\"choices\": [\n oops", "chat.completions").unwrap_err();
        assert!(not_json.starts_with("a.json:2:2: expected the whole answer chat.completions sends, as `conclave replay REC --answer 2` prints it"), "{not_json}");
        let other_api = read(r#"{"output": []}"#, "chat.completions").unwrap_err();
        assert!(
            other_api.starts_with("a.json: no `choices` list: a Responses API answer"),
            "{other_api}"
        );
        let chunk = read(r#"{"choices": [{"delta": {}}]}"#, "chat.completions").unwrap_err();
        assert!(chunk.contains("choices[0]: no `message` object"), "{chunk}");
        let item = read(r#"{"output": [{"text": "x"}]}"#, "responses").unwrap_err();
        assert!(item.contains("output[0]: no `type`"), "{item}");
        let missing = EditedAnswer::read(Path::new("/nowhere/a.json"), 1, "responses").unwrap_err();
        assert!(
            missing.starts_with("/nowhere/a.json: cannot read:"),
            "{missing}"
        );
        let ok = read(
            r#"{"model": "m", "output": [], "usage": {"input_tokens": 2, "output_tokens": 1}}"#,
            "responses",
        )
        .unwrap();
        assert_eq!(ok.usage().map(|u| (u.input, u.output)), Some((2, 1)));
        assert_eq!(ok.model().as_deref(), Some("m"));
    }
}
