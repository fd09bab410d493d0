//! A run's endpoint served from a recording: call N of the run is answered
//! with call N of the recording when it asks the same (API, model, whether
//! it streams, and its request's hash), nothing sent upstream; a call that
//! asks otherwise is a miss named as the engine's cassettes name theirs,
//! answered with an error the client raises at once, or sent upstream
//! under `--cassette-miss live`.

use super::edited::EditedAnswer;
use super::report::{EndpointCall, RecordedAnswer};
use super::served::{PIECES_IN_FLIGHT, Served, ServedBody};
use super::{Api, Refused};
use crate::cassette::MissPolicy;
use std::sync::{Mutex, PoisonError};
use tokio::sync::mpsc;

/// The calls of one recorded run, served again in order.
#[derive(Debug)]
pub(crate) struct EndpointCassette {
    /// Numbered 1, 2, … in order (the loader checks it).
    calls: Vec<EndpointCall>,
    miss: MissPolicy,
    /// A fork's call: the calls before it served, it answered from a
    /// file (or live), every later one live.
    fork: Option<ForkPoint>,
    tally: Mutex<Tally>,
}

/// Where a fork of a launched run leaves its recording.
#[derive(Clone, Debug)]
pub(crate) struct ForkPoint {
    /// The call's number in the run.
    pub(crate) at: u64,
    /// Its answer; `None` sends it upstream.
    pub(crate) edited: Option<EditedAnswer>,
}

#[derive(Debug, Default)]
struct Tally {
    served: u64,
    live: u64,
    edited: u64,
    /// The first miss, in words; every later call misses too.
    missed: Option<String>,
}

/// How the cassette answers one call.
#[derive(Debug)]
pub(crate) enum Serve<'a> {
    Served(&'a EndpointCall),
    /// A fork's call, answered from its file.
    Edited(&'a EditedAnswer),
    /// Sent upstream (a miss under `--cassette-miss live`).
    Live,
    /// The first difference, in words; `first` for the run's first miss.
    Miss {
        words: String,
        first: bool,
    },
}

/// What a call asks, as the cassette compares it.
pub(crate) struct Asked<'a> {
    pub(crate) number: u64,
    pub(crate) api: Api,
    pub(crate) model: Option<&'a str>,
    pub(crate) stream: bool,
    pub(crate) prompt_sha256: &'a str,
}

impl EndpointCassette {
    /// `calls`, numbered 1 to N in order, served under `miss`.
    pub(crate) fn new(calls: Vec<EndpointCall>, miss: MissPolicy) -> Self {
        EndpointCassette {
            calls,
            miss,
            fork: None,
            tally: Mutex::default(),
        }
    }

    /// A fork's cassette: `calls` before `fork.at` served (a call that
    /// asks otherwise misses), `fork.at` answered as it says, the rest
    /// sent upstream.
    pub(crate) fn forking(mut calls: Vec<EndpointCall>, fork: ForkPoint) -> Self {
        calls.truncate(usize::try_from(fork.at.saturating_sub(1)).unwrap_or(usize::MAX));
        EndpointCassette {
            fork: Some(fork),
            ..EndpointCassette::new(calls, MissPolicy::Stop)
        }
    }

    /// Calls answered from a fork's file so far.
    pub(crate) fn edited(&self) -> u64 {
        self.lock().edited
    }

    /// The recorded calls, in order.
    pub(crate) fn calls(&self) -> &[EndpointCall] {
        &self.calls
    }

    /// Calls served and calls sent upstream so far.
    pub(crate) fn served_and_live(&self) -> (u64, u64) {
        let tally = self.lock();
        (tally.served, tally.live)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tally> {
        self.tally.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How to answer `asked`.
    pub(crate) fn serve(&self, asked: &Asked<'_>) -> Serve<'_> {
        let mut tally = self.lock();
        if let Some(words) = &tally.missed {
            return Serve::Miss {
                words: words.clone(),
                first: false,
            };
        }
        if let Some(fork) = self.fork.as_ref().filter(|f| asked.number >= f.at) {
            match fork.edited.as_ref().filter(|_| asked.number == fork.at) {
                Some(edited) if edited.api != asked.api => {
                    let words = format!(
                        "model call {} asks {}, and {} holds an answer of {}",
                        asked.number,
                        asked.api.name(),
                        edited.file,
                        edited.api.name()
                    );
                    let words = crate::sanitize::clean(&words).into_owned();
                    tally.missed = Some(words.clone());
                    return Serve::Miss { words, first: true };
                }
                Some(edited) => {
                    tally.edited += 1;
                    return Serve::Edited(edited);
                }
                None => {
                    tally.live += 1;
                    return Serve::Live;
                }
            }
        }
        let recorded = usize::try_from(asked.number)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|at| self.calls.get(at));
        let difference = match recorded {
            Some(call) => match difference(call, asked) {
                None => {
                    tally.served += 1;
                    return Serve::Served(call);
                }
                Some(difference) => difference,
            },
            None => format!(
                "the recording holds no model call {} ({}): it made {}",
                asked.number,
                described(asked.api.name(), asked.model),
                crate::words::plural(self.calls.len() as u64, "call")
            ),
        };
        if self.miss == MissPolicy::Live {
            tally.live += 1;
            return Serve::Live;
        }
        let words = match recorded {
            Some(_) if !difference.starts_with("the recording") => format!(
                "the recording does not hold model call {} ({}): {difference}",
                asked.number,
                described(asked.api.name(), asked.model)
            ),
            _ => difference,
        };
        let words = crate::sanitize::clean(&words).into_owned();
        tally.missed = Some(words.clone());
        Serve::Miss { words, first: true }
    }
}

/// `api` and `model` as a miss names the call.
fn described(api: &str, model: Option<&str>) -> String {
    match model {
        Some(model) => format!("{api} {model}"),
        None => api.to_string(),
    }
}

/// The first way `asked` differs from the recorded `call`, or why the
/// recording cannot serve it.
fn difference(call: &EndpointCall, asked: &Asked<'_>) -> Option<String> {
    let short = |hash: &str| hash.chars().take(12).collect::<String>();
    if call.api != asked.api.name() {
        return Some(format!(
            "api: recorded {}, now {}",
            call.api,
            asked.api.name()
        ));
    }
    if call.model.as_deref() != asked.model {
        return Some(format!(
            "model: recorded {}, now {}",
            call.model.as_deref().unwrap_or("none"),
            asked.model.unwrap_or("none")
        ));
    }
    if call.stream != asked.stream {
        return Some(format!(
            "stream: recorded {}, now {}",
            call.stream, asked.stream
        ));
    }
    let recorded = call.prompt_sha256.as_deref().unwrap_or("none");
    if recorded != asked.prompt_sha256 {
        return Some(format!(
            "prompt_sha256: recorded {}, now {}",
            short(recorded),
            short(asked.prompt_sha256)
        ));
    }
    if call.answer.is_none() && call.error.is_none() {
        let why = call.answer_not_kept.as_deref().unwrap_or("not kept");
        return Some(format!(
            "the recording does not hold model call {}'s answer ({why})",
            asked.number
        ));
    }
    None
}

/// The error a missed call is answered with, in OpenAI's shape, which its
/// client raises at once (`x-should-retry: false`).
pub(crate) fn miss_answer(words: &str) -> Served {
    let message = format!("Conclave's cassette does not hold this call: {words}");
    Served {
        status: 400,
        content_type: "application/json".to_string(),
        final_refusal: true,
        body: ServedBody::Whole(super::error_body(
            &message,
            "invalid_request_error",
            Some("cassette_miss"),
        )),
    }
}

/// The recorded answer of `call`, as the client got it: a whole body, a
/// stream's events one piece each (broken at the end when the recorded
/// stream was cut), or the 502 of an upstream that could not be reached.
pub(crate) fn answer_of(call: &EndpointCall) -> Served {
    let Some(answer) = &call.answer else {
        let why = call
            .error
            .as_deref()
            .unwrap_or("the upstream gave no answer");
        return Served::refusal(&Refused::new(502, why));
    };
    let status = call.status.unwrap_or(502);
    if answer.events.is_empty() || answer.body.is_some() {
        return Served {
            status,
            content_type: answer.content_type.clone(),
            final_refusal: false,
            body: ServedBody::Whole(answer.body.clone().unwrap_or_default().into_bytes()),
        };
    }
    let (pieces, body) = mpsc::channel(PIECES_IN_FLIGHT);
    let events = answer.events.clone();
    let cut = call.error.clone();
    tokio::spawn(async move {
        for event in events {
            if pieces.send(Ok(event.into_bytes())).await.is_err() {
                return;
            }
        }
        if let Some(cut) = cut {
            let _ = pieces.send(Err(cut)).await;
        }
    });
    Served {
        status,
        content_type: answer.content_type.clone(),
        final_refusal: false,
        body: ServedBody::Stream(body),
    }
}

/// Whether `answer` is something `api` sends with `status`: an error's
/// body, a whole answer's JSON object with `choices` (Chat Completions)
/// or `output` (Responses), or a stream's server-sent events, each with
/// its data and blank line. `Err` says what was expected.
pub(crate) fn check_answer(
    api: &str,
    status: u16,
    stream: bool,
    answer: &RecordedAnswer,
) -> Result<(), String> {
    if !(100..=599).contains(&status) {
        return Err(format!("status {status} is no HTTP status"));
    }
    let ok = (200..300).contains(&status);
    if !ok || !stream {
        let Some(body) = &answer.body else {
            return Err("expected the answer's body".into());
        };
        if !ok {
            return Ok(());
        }
        let parsed: serde_json::Value = serde_json::from_str(body).map_err(|e| {
            format!("expected the JSON answer {api} sends, got text that is not JSON ({e})")
        })?;
        let field = if api == "responses" {
            "output"
        } else {
            "choices"
        };
        if !parsed.get(field).is_some_and(serde_json::Value::is_array) {
            return Err(format!(
                "expected the JSON object {api} answers with, holding `{field}`"
            ));
        }
        return Ok(());
    }
    if answer.events.is_empty() {
        return Err("expected a stream's events, got none".into());
    }
    for (at, event) in answer.events.iter().enumerate() {
        let whole = event.ends_with("\n\n") || event.ends_with("\r\n\r\n");
        let data: Vec<&str> = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .collect();
        let readable = data.iter().all(|d| {
            *d == "[DONE]"
                || serde_json::from_str::<serde_json::Value>(d).is_ok_and(|v| v.is_object())
        });
        if !whole || data.is_empty() || !readable {
            return Err(format!(
                "event {} of the stream is not a server-sent event of {api} (expected `data: {{…}}` or `data: [DONE]` and a blank line)",
                at + 1
            ));
        }
    }
    Ok(())
}

/// `/v1/models` under a cassette: the models its calls asked for and were
/// answered by, asking nothing of the upstream.
pub(crate) fn models_of(cassette: &EndpointCassette) -> Served {
    let mut ids: Vec<&str> = Vec::new();
    for call in cassette.calls() {
        for id in [call.model.as_deref(), call.answered_by.as_deref()]
            .into_iter()
            .flatten()
        {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    let data: Vec<serde_json::Value> = ids
        .into_iter()
        .map(|id| serde_json::json!({"id": id, "object": "model", "created": 0, "owned_by": "conclave-cassette"}))
        .collect();
    let body = serde_json::json!({"object": "list", "data": data});
    Served::json(200, body.to_string().into_bytes())
}

#[cfg(test)]
mod tests;
