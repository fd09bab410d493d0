//! `--cassette REC` for a launched program: its recording's model calls,
//! read and checked (each numbered in order, with its request's hash and
//! an answer the API would send), for the run's endpoint to serve again.
//! A recording that cannot serve is refused before anything starts.

use crate::cassette::MissPolicy;
use crate::gateway::endpoint::{EndpointCall, EndpointCassette, ForkPoint, check_answer};
use std::path::Path;
use std::sync::Arc;

/// A launch's cassette: the recorded calls, and the file they came from.
#[derive(Clone, Debug)]
pub struct LaunchCassette {
    calls: Arc<EndpointCassette>,
    file: String,
}

impl LaunchCassette {
    /// The recording at `path` as a cassette served under `miss`; an error
    /// naming the file, the call and what was expected when it cannot be.
    pub fn load(path: &Path, miss: MissPolicy) -> Result<LaunchCassette, String> {
        let file = path.display().to_string();
        let recording = crate::watch::record::read(path).map_err(|e| e.to_string())?;
        let calls = checked(&file, recording.model_calls.into_iter().map(|(_, c)| c))?;
        Ok(LaunchCassette {
            calls: Arc::new(EndpointCassette::new(calls, miss)),
            file,
        })
    }

    /// A fork's cassette of `file`'s `calls`: those before `fork.at`
    /// served, `fork.at` answered as it says, the rest live; an error
    /// naming the file and the call when the recording cannot serve.
    pub(crate) fn forking(
        file: &str,
        calls: Vec<EndpointCall>,
        fork: ForkPoint,
    ) -> Result<LaunchCassette, String> {
        let calls = checked(file, calls.into_iter())?;
        Ok(LaunchCassette {
            calls: Arc::new(EndpointCassette::forking(calls, fork)),
            file: file.to_string(),
        })
    }

    pub(crate) fn endpoint(&self) -> Arc<EndpointCassette> {
        Arc::clone(&self.calls)
    }

    /// What a run served from it says at its end: `served N calls from
    /// REC, M live`.
    pub fn tally(&self) -> String {
        let (served, live) = self.calls.served_and_live();
        let edited = match self.calls.edited() {
            0 => String::new(),
            n => format!(", {} from the answer file", crate::words::plural(n, "call")),
        };
        format!(
            "served {} from {}{edited}, {live} live",
            crate::words::plural(served, "call"),
            crate::sanitize::clean(&self.file)
        )
    }
}

/// The recorded `calls` of `file`, in their order in the run, each one
/// checked.
fn checked(
    file: &str,
    calls: impl Iterator<Item = EndpointCall>,
) -> Result<Vec<EndpointCall>, String> {
    let mut calls: Vec<EndpointCall> = calls.collect();
    if calls.is_empty() {
        return Err(format!(
            "{file}: holds no model call: expected the recording of a launched program whose \
             model calls went through its run's endpoint (a scenario with a `model`)"
        ));
    }
    if let Some(at) = calls.iter().position(|c| c.prompt_sha256.is_none()) {
        return Err(format!(
            "{file}: model call {} has no prompt_sha256: the recording was made before \
             Conclave kept each call's request and answer; record the run again to serve it",
            at + 1
        ));
    }
    calls.sort_by_key(|c| c.call);
    for (at, call) in calls.iter().enumerate() {
        let number = at as u64 + 1;
        let place = format!("{file}: model call {number}");
        if call.call != Some(number) {
            return Err(format!(
                "{place}: expected calls numbered 1 to {} in the run, found {}",
                calls.len(),
                call.call.map_or("none".to_string(), |n| n.to_string())
            ));
        }
        check_call(call).map_err(|why| format!("{place}: {why}"))?;
    }
    Ok(calls)
}

/// Whether one recorded call can be served: its API, its hash, and an
/// answer the API would send with its status.
fn check_call(call: &EndpointCall) -> Result<(), String> {
    if !matches!(call.api.as_str(), "chat.completions" | "responses") {
        return Err(format!(
            "api {:?}: expected \"chat.completions\" or \"responses\"",
            crate::sanitize::clean(&call.api)
        ));
    }
    let hash = call.prompt_sha256.as_deref().unwrap_or_default();
    if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("prompt_sha256: expected 64 hex digits".into());
    }
    match (&call.answer, call.status) {
        (Some(answer), Some(status)) => check_answer(&call.api, status, call.stream, answer),
        (Some(_), None) => Err("an answer without its status".into()),
        // Not kept, or the upstream could not be reached: told at the
        // call, should the run get that far.
        (None, _) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gateway::endpoint::RecordedAnswer;

    fn call(n: u64, answer: RecordedAnswer, stream: bool) -> EndpointCall {
        EndpointCall {
            call: Some(n),
            api: "chat.completions".into(),
            status: Some(200),
            stream,
            prompt_sha256: Some("ab".repeat(32)),
            answer: Some(answer),
            ..EndpointCall::default()
        }
    }

    fn whole(body: &str) -> RecordedAnswer {
        RecordedAnswer {
            content_type: "application/json".into(),
            body: Some(body.into()),
            events: Vec::new(),
        }
    }

    fn events(events: &[&str]) -> RecordedAnswer {
        RecordedAnswer {
            content_type: "text/event-stream".into(),
            body: None,
            events: events.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn calls_are_served_in_their_order_and_each_must_be_an_answer_the_api_sends() {
        let good = whole(r#"{"choices": []}"#);
        let stream = events(&["data: {\"choices\":[]}\n\n", "data: [DONE]\n\n"]);
        let calls = checked(
            "r.jsonl",
            [call(2, stream.clone(), true), call(1, good.clone(), false)].into_iter(),
        )
        .unwrap();
        assert_eq!(calls[0].call, Some(1), "sorted by their number");
        let refused = |calls: Vec<EndpointCall>| checked("r.jsonl", calls.into_iter()).unwrap_err();
        assert!(
            refused(vec![call(1, whole("Hello, I am not JSON"), false)]).starts_with(
                "r.jsonl: model call 1: expected the JSON answer chat.completions sends"
            ),
        );
        assert!(refused(vec![call(1, whole(r#"{"id": 1}"#), false)]).contains("holding `choices`"));
        let bad_event = refused(vec![call(1, events(&["data: {\"a\":1}"]), true)]);
        assert!(bad_event.contains("event 1 of the stream"), "{bad_event}");
        assert!(refused(vec![call(2, good.clone(), false)]).contains("numbered 1 to 1"));
        let mut no_hash = call(1, good.clone(), false);
        no_hash.prompt_sha256 = None;
        assert!(refused(vec![no_hash]).contains("made before Conclave kept"));
        let mut odd_api = call(1, good, false);
        odd_api.api = "embeddings".into();
        assert!(refused(vec![odd_api]).contains("expected \"chat.completions\""));
        assert!(refused(Vec::new()).contains("holds no model call"));
    }
}
