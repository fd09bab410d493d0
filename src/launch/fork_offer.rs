//! What a launched run's recording offers to fork, for the dashboard's
//! dialog: its model calls in a line each, and the program a fork starts
//! (command line and folder, secrets scrubbed); or why it cannot fork.

use super::fork::{Forkable, forkable, unset_withheld};
use crate::gateway::endpoint::EndpointCall;
use crate::sanitize::clean;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How many characters of a call's answer the offer keeps.
const ANSWER_CHARS: usize = 120;

/// A recording's forkable calls and the program a fork of it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ForkOffer {
    pub(crate) recording: PathBuf,
    pub(crate) calls: Vec<OfferedCall>,
    /// The program's command line, sanitised and its secrets scrubbed.
    pub(crate) command: String,
    /// The folder it runs in, sanitised.
    pub(crate) folder: String,
    /// Where the calls made live go, without a user or a password.
    pub(crate) upstream: String,
    /// The `env` variables kept by name only that are not set here: the
    /// program runs without them.
    pub(crate) unset_env: Vec<String>,
}

/// A model call of the recording, as the dialog lists it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OfferedCall {
    pub(crate) number: u64,
    /// When the call came, ms after the launch.
    pub(crate) at_ms: u64,
    pub(crate) api: String,
    pub(crate) model: String,
    /// The answer's first words (or the tools it called), sanitised.
    pub(crate) answer: String,
}

/// What the recording at `path` offers to fork, or why it offers nothing
/// (the refusals of `conclave fork`, in its words).
pub(crate) fn offer(path: &Path) -> Result<ForkOffer, String> {
    let file = path.display().to_string();
    let recording = crate::watch::record::read(path).map_err(|e| e.to_string())?;
    let Forkable {
        launched, program, ..
    } = forkable(&file, &recording, None)?;
    let calls = recording
        .model_calls
        .iter()
        .zip(1..)
        .map(|((at_ms, call), n)| offered(*at_ms, call, n))
        .collect();
    let s = &launched.scenario;
    let scrubbed = |text: &str| clean(&crate::secrets::scrub(text)).into_owned();
    Ok(ForkOffer {
        recording: path.to_path_buf(),
        calls,
        command: scrubbed(&s.command.join(" ")),
        folder: scrubbed(s.cwd.as_deref().unwrap_or(".")),
        upstream: scrubbed(
            &program
                .scenario
                .model
                .as_ref()
                .map_or(String::new(), |m| m.upstream.clone()),
        ),
        unset_env: unset_withheld(&launched)
            .iter()
            .map(|name| clean(name).into_owned())
            .collect(),
    })
}

/// `call`, the `n`th of the recording, as the dialog lists it.
fn offered(at_ms: u64, call: &EndpointCall, n: u64) -> OfferedCall {
    let answer = match crate::gateway::endpoint::whole_of(call) {
        Ok(whole) => words_of(&whole),
        Err(why) => format!("({why})"),
    };
    let answer: String = answer.split_whitespace().collect::<Vec<_>>().join(" ");
    OfferedCall {
        number: call.call.unwrap_or(n),
        at_ms,
        api: clean(&call.api).into_owned(),
        model: clean(call.model.as_deref().unwrap_or("?")).into_owned(),
        answer: clean(&crate::secrets::scrub(&answer))
            .chars()
            .take(ANSWER_CHARS)
            .collect(),
    }
}

/// The text a whole answer says (Chat Completions' first choice, or the
/// Responses API's output), else the tools it calls.
fn words_of(whole: &Value) -> String {
    let mut text = Vec::new();
    let mut tools = Vec::new();
    if let Some(message) = whole.pointer("/choices/0/message") {
        text.extend(message["content"].as_str());
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            tools.extend(call.pointer("/function/name").and_then(Value::as_str));
        }
    }
    for item in whole["output"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("function_call") => tools.extend(item["name"].as_str()),
            _ => {
                for part in item["content"].as_array().into_iter().flatten() {
                    text.extend(part["text"].as_str());
                }
            }
        }
    }
    let text = text.join(" ");
    match (text.trim().is_empty(), tools.is_empty()) {
        (false, _) => text,
        (true, false) => format!("calls {}", tools.join(", ")),
        (true, true) => "(no text)".to_string(),
    }
}

#[cfg(test)]
impl ForkOffer {
    /// An offer of `calls` calls to `api` of `model` (tests of the dialog
    /// and the app): call N at N × `every_ms`, answered `answer N`, of
    /// `python3 app.py` in /home/ada/apps against a loopback upstream.
    pub(crate) fn sample(calls: u64, every_ms: u64, (api, model): (&str, &str)) -> ForkOffer {
        ForkOffer {
            recording: "/r/run.jsonl".into(),
            calls: (1..=calls)
                .map(|n| OfferedCall {
                    number: n,
                    at_ms: n * every_ms,
                    api: api.into(),
                    model: model.into(),
                    answer: format!("answer {n}"),
                })
                .collect(),
            command: "python3 app.py".into(),
            folder: "/home/ada/apps".into(),
            upstream: "http://127.0.0.1:9/v1".into(),
            unset_env: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A launched run's recording in `dir` with `launch` on its first
    /// line and `calls` Chat Completions calls, each answered `answer N`.
    pub(crate) fn recording(dir: &Path, launch: Option<Value>, calls: u64) -> PathBuf {
        let mut lines = vec![
            json!({"type": "watch_started", "trace_id": "4bf92f3577b34da6", "launch": launch}),
        ];
        for n in 1..=calls {
            let body = json!({"choices": [{"message": {"content": format!("answer {n}\nof\x1b[31m the run")}}]});
            lines.push(json!({"type": "model_call", "at_ms": n * 100, "call": n, "run": "r",
                "api": "chat.completions", "model": "test-model", "status": 200, "stream": false, "ms": 3,
                "answer": {"content_type": "application/json", "body": body.to_string()}}));
        }
        let path = dir.join("run.jsonl");
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(&path, text.join("\n") + "\n").unwrap();
        path
    }

    pub(crate) fn launch(model: Value) -> Value {
        json!({"file": "app.json", "scenario": {"name": "app", "pattern": "program",
            "command": ["python3", "app.py", "--key=sk-offer-Hq2Zr8Lm4Tw"], "cwd": "/home/ada/apps",
            "model": model}})
    }

    #[test]
    fn a_launched_runs_calls_are_offered_with_the_program_it_would_run() {
        crate::secrets::register("sk-offer-Hq2Zr8Lm4Tw");
        let dir = tempfile::tempdir().unwrap();
        let upstream = json!({"upstream": "http://127.0.0.1:9/v1"});
        let path = recording(dir.path(), Some(launch(upstream)), 3);
        let offer = offer(&path).unwrap();
        assert_eq!(offer.calls.len(), 3);
        let second = &offer.calls[1];
        assert_eq!(
            (
                second.number,
                second.at_ms,
                second.api.as_str(),
                second.model.as_str()
            ),
            (2, 200, "chat.completions", "test-model")
        );
        assert_eq!(second.answer, "answer 2 of the run", "one line, sanitised");
        assert_eq!(offer.command, "python3 app.py --key=[redacted]");
        assert_eq!(offer.folder, "/home/ada/apps");
        assert_eq!(offer.upstream, "http://127.0.0.1:9/v1");
    }

    #[test]
    fn a_recording_that_cannot_fork_says_why_as_the_headless_fork_does() {
        let dir = tempfile::tempdir().unwrap();
        let upstream = json!({"upstream": "http://127.0.0.1:9/v1"});
        for (launch, calls, why) in [
            (None, 2, "holds no program to start again"),
            (Some(launch(Value::Null)), 2, "names no `model`"),
            (Some(launch(json!({"upstream": ""}))), 2, "had no upstream"),
            (
                Some(launch(upstream.clone())),
                0,
                "holds no model call to fork at",
            ),
        ] {
            let path = recording(dir.path(), launch, calls);
            let refused = offer(&path).unwrap_err();
            assert!(
                refused.contains(why) && refused.contains("run.jsonl"),
                "{refused}"
            );
            std::fs::remove_file(path).unwrap();
        }
    }

    #[test]
    fn an_answer_is_told_by_its_text_else_by_the_tools_it_calls() {
        let chat =
            json!({"choices": [{"message": {"content": "Refund approved.", "tool_calls": []}}]});
        assert_eq!(words_of(&chat), "Refund approved.");
        let tools = json!({"choices": [{"message": {"content": null,
            "tool_calls": [{"function": {"name": "lookup", "arguments": "{}"}}]}}]});
        assert_eq!(words_of(&tools), "calls lookup");
        let responses = json!({"output": [
            {"type": "function_call", "name": "transfer"},
            {"type": "message", "content": [{"type": "output_text", "text": "Sent."}]}]});
        assert_eq!(words_of(&responses), "Sent.");
        assert_eq!(words_of(&json!({"output": []})), "(no text)");
    }
}
