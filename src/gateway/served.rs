//! The gateway's side of cassettes: what each call's `call_finished`
//! records of its request and answer, and a recorded answer played back
//! as the call had it: its text as it streamed and its latency on the run
//! clock, or no answer at all until the call's timeout.

use crate::bus::cassette::{Answer, CallRecord, ModelFailure, RawJson, ToolFailure};
use crate::cassette::Recorded;
use crate::clock::RunClock;
use crate::provider::contract::Finish;
use crate::provider::{
    Completion, ModelOutput, ProviderError, Spent, TextPiece, TextSink, WorkerError,
};
use crate::scenario::JsonText;
use serde_json::Value;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// What a recorded call that never answered waits past its latency
/// before it fails as timed out: the call's own timeout, which cut it at
/// that latency, comes first.
const PAST_THE_TIMEOUT: Duration = Duration::from_millis(1);

/// What one attempt answered, whether it was served, and (a model call)
/// its span from the call's start, noted by the call for its
/// `call_finished` and for the caller.
#[derive(Debug, Default)]
pub(super) struct Noted(Mutex<Note>);

#[derive(Debug, Default)]
struct Note {
    answer: Option<Answer>,
    served: bool,
    span: Option<Duration>,
    /// Run time at which the attempt ended.
    ended_at: Option<Duration>,
    /// A served attempt's latency as the recording measured it: what its
    /// `call_finished` says, whatever the clock did while it was served.
    recorded_latency: Option<Duration>,
}

impl Noted {
    fn note_mut(&self) -> std::sync::MutexGuard<'_, Note> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn note(&self, answer: Option<Answer>, served: bool) {
        let mut note = self.note_mut();
        note.answer = answer;
        note.served = served;
    }

    /// A served attempt took `latency` when it was recorded.
    pub(super) fn served_latency(&self, latency: Duration) {
        self.note_mut().recorded_latency = Some(latency);
    }

    /// The latency a served attempt's `call_finished` gives: the
    /// recorded one (`None` for a live attempt, which is measured).
    pub(super) fn recorded_latency(&self) -> Option<Duration> {
        self.note_mut().recorded_latency
    }

    /// A served call's span, as the recording has it.
    pub(super) fn served_span(&self, span_ms: Option<u64>) {
        self.note_mut().span = span_ms.map(Duration::from_millis);
    }

    /// The attempt ended at run time `at`, `at - entry` after its call
    /// started (a span the recording gave is kept).
    pub(super) fn ended(&self, at: Duration, entry: Option<Duration>) {
        let mut note = self.note_mut();
        note.ended_at = Some(at);
        if let Some(entry) = entry {
            note.span.get_or_insert(at.saturating_sub(entry));
        }
    }

    pub(super) fn span(&self) -> Option<Duration> {
        self.note_mut().span
    }

    /// The record of the attempt's request `asked` and its answer, and
    /// whether it was served. An attempt that never reached its answer
    /// (timed out, cancelled) records none.
    pub(super) fn take(&self, asked: CallRecord) -> (Option<Box<CallRecord>>, bool) {
        let mut note = self.note_mut();
        let record = CallRecord {
            answer: note.answer.take(),
            span_ms: note.span.map(super::millis),
            ended_us: note
                .ended_at
                .map(|at| u64::try_from(at.as_micros()).unwrap_or(u64::MAX)),
            ..asked
        };
        (Some(Box::new(record)), note.served)
    }
}

/// A model's answer as the recording keeps it.
pub(super) fn model_answer(result: &Result<Completion, ProviderError>) -> Option<Answer> {
    let (error, message, retry_after) = match result {
        Ok(completion) => {
            return Some(match (&completion.output, &completion.finish) {
                (output, Finish::Length) => Answer::Cut(output.clone().into_text()),
                (output, Finish::Refused(refusal)) => Answer::Refused {
                    refusal: refusal.clone(),
                    text: output.clone().into_text(),
                },
                (ModelOutput::Text(text), Finish::Stop) => Answer::Text(text.clone()),
                (ModelOutput::Json(value), Finish::Stop) => Answer::Json(RawJson::of(value)),
                (ModelOutput::JsonText(text), Finish::Stop) => {
                    Answer::Json(RawJson::from_text(text.text()))
                }
            });
        }
        // A call whose timeout ran out answered nothing, whatever text had
        // come: a cassette serves it as a call that never answers, with
        // the tokens its recording counted.
        Err(ProviderError::Timeout | ProviderError::TimedOutWriting { .. }) => return None,
        Err(ProviderError::Unavailable {
            message,
            retry_after,
        }) => (ModelFailure::Unavailable, message, *retry_after),
        Err(ProviderError::Auth(m)) => (ModelFailure::Auth, m, None),
        Err(ProviderError::BadResponse(m)) => (ModelFailure::BadResponse, m, None),
        Err(ProviderError::BadRequest(m)) => (ModelFailure::BadRequest, m, None),
        Err(ProviderError::UnexpectedStatus(m)) => (ModelFailure::UnexpectedStatus, m, None),
        Err(ProviderError::Failed(m)) => (ModelFailure::Failed, m, None),
        Err(ProviderError::Unsupported { feature, said, .. }) => {
            (ModelFailure::Unsupported(*feature), said, None)
        }
    };
    Some(Answer::ModelError {
        error,
        message: message.clone(),
        retry_after_ms: retry_after.map(super::millis),
    })
}

/// A worker's or tool's answer as the recording keeps it.
pub(super) fn tool_answer(result: &Result<Value, WorkerError>) -> Answer {
    match result {
        Ok(observation) => Answer::Observation(observation.clone()),
        Err(error) => {
            let (error, detail, http_status) = match error {
                WorkerError::Missing => (ToolFailure::Missing, None, None),
                WorkerError::BadArgs => (ToolFailure::BadArgs, None, None),
                WorkerError::Failed {
                    detail,
                    http_status,
                } => (ToolFailure::Failed, detail.clone(), *http_status),
                WorkerError::BadResult { detail } => {
                    (ToolFailure::BadResult, Some(detail.clone()), None)
                }
            };
            Answer::ToolError {
                error,
                detail,
                http_status,
            }
        }
    }
}

/// When a played-back call's pieces come: at their recorded run times
/// on the virtual clock, where waiting costs nothing (an attempt ends at
/// the run time it ended at, so that calls in parallel end in their
/// recorded order); at once on the real clock (a fork going live against
/// a real model), where waiting would cost the user.
#[derive(Clone, Debug)]
pub(super) struct Playback {
    clock: RunClock,
    started: Duration,
    timed: bool,
}

impl Playback {
    pub(super) fn new(clock: RunClock) -> Self {
        Playback {
            started: clock.elapsed(),
            // On the real clock only while a fork's served part
            // fast-forwards: a call that ends in the live part ends as it
            // comes, not at the time its parent's did.
            timed: clock.is_virtual() || clock.forwards(),
            clock,
        }
    }

    async fn until(&self, at: Duration) {
        if self.timed {
            self.clock.sleep_until(at).await;
        }
    }

    /// The run time `recorded` ended at, and the one it started at.
    fn span_of(&self, recorded: &Recorded) -> (Duration, Duration) {
        let end = recorded
            .ended
            .unwrap_or(self.started.saturating_add(recorded.latency));
        (end.saturating_sub(recorded.latency), end)
    }
}

/// A recorded model call played back: its text handed to `text` at the
/// run times it arrived, and its answer (or failure) at its latency.
pub(super) async fn completion(
    recorded: Recorded,
    text: TextSink,
    playback: Playback,
) -> Result<Completion, ProviderError> {
    let (start, end) = playback.span_of(&recorded);
    for delta in recorded.deltas {
        playback.until(start.saturating_add(delta.at)).await;
        let _ = text.send(TextPiece {
            text: delta.text,
            new: true,
            reasoning: delta.reasoning,
            arguments: delta.arguments,
        });
    }
    // What the recording counted of an answer that came back and was not
    // used (text cut by the timeout, tools ignored) is counted again.
    let spent = recorded.usage.map(|usage| Spent {
        usage,
        served: true,
    });
    let Some(answer) = recorded.record.answer else {
        playback.until(end.saturating_add(PAST_THE_TIMEOUT)).await;
        return Err(match spent {
            Some(spent) => ProviderError::TimedOutWriting {
                words: "the model was still writing when the call's timeout ran out, as recorded"
                    .to_string(),
                spent,
            },
            None => ProviderError::Timeout,
        });
    };
    playback.until(end).await;
    let mut finish = Finish::Stop;
    let output = match answer {
        Answer::Text(text) => ModelOutput::Text(text),
        Answer::Cut(text) => {
            finish = Finish::Length;
            ModelOutput::Text(text)
        }
        Answer::Refused { refusal, text } => {
            finish = Finish::Refused(refusal);
            ModelOutput::Text(text)
        }
        Answer::Json(json) => {
            let text = Box::<str>::from(json.0).into_string();
            let span = 0..text.len();
            ModelOutput::JsonText(JsonText::in_text(std::sync::Arc::new(text), span))
        }
        Answer::Observation(value) => ModelOutput::Json(value),
        Answer::ModelError {
            error,
            message,
            retry_after_ms,
        } => {
            return Err(match model_failure(error, message, retry_after_ms) {
                ProviderError::Unsupported { feature, said, .. } => ProviderError::Unsupported {
                    feature,
                    said,
                    spent,
                },
                other => other,
            });
        }
        Answer::ToolError { .. } => {
            return Err(ProviderError::Failed(
                "the recording answered this model call as a tool".to_string(),
            ));
        }
        // The cassette gives the plan's text when it reads the recording;
        // a recording whose run has none lies about it.
        Answer::ScriptedPlan => {
            return Err(ProviderError::Failed(
                "the recording names a scripted plan its run does not hold".to_string(),
            ));
        }
    };
    Ok(Completion {
        output,
        usage: recorded.usage,
        served: true,
        reasoning: recorded.reasoning,
        finish,
        calls: 0,
        cut_after: None,
    })
}

fn model_failure(
    error: ModelFailure,
    message: String,
    retry_after_ms: Option<u64>,
) -> ProviderError {
    match error {
        ModelFailure::Unavailable => ProviderError::Unavailable {
            message,
            retry_after: retry_after_ms.map(Duration::from_millis),
        },
        ModelFailure::Auth => ProviderError::Auth(message),
        ModelFailure::BadResponse => ProviderError::BadResponse(message),
        ModelFailure::BadRequest => ProviderError::BadRequest(message),
        ModelFailure::UnexpectedStatus => ProviderError::UnexpectedStatus(message),
        ModelFailure::Failed => ProviderError::Failed(message),
        ModelFailure::Unsupported(feature) => ProviderError::Unsupported {
            feature,
            said: message,
            spent: None,
        },
    }
}

/// A recorded worker or tool call played back at its latency: its
/// observation or its failure, or `None` for a call that never answered,
/// after its latency and a hair (its own timeout cuts it first).
pub(super) async fn observation(
    recorded: Recorded,
    playback: Playback,
) -> Option<Result<Value, WorkerError>> {
    let (_, end) = playback.span_of(&recorded);
    let Some(answer) = recorded.record.answer else {
        playback.until(end.saturating_add(PAST_THE_TIMEOUT)).await;
        return None;
    };
    playback.until(end).await;
    Some(match answer {
        Answer::Observation(value) => Ok(value),
        Answer::Json(json) => Ok(serde_json::from_str(json.text()).unwrap_or(Value::Null)),
        Answer::ToolError {
            error,
            detail,
            http_status,
        } => Err(match error {
            ToolFailure::Missing => WorkerError::Missing,
            ToolFailure::BadArgs => WorkerError::BadArgs,
            ToolFailure::Failed => WorkerError::Failed {
                detail,
                http_status,
            },
            ToolFailure::BadResult => WorkerError::BadResult {
                detail: detail.unwrap_or_default(),
            },
        }),
        Answer::Text(text) | Answer::Cut(text) | Answer::Refused { text, .. } => {
            Ok(Value::String(text))
        }
        Answer::ModelError { message, .. } => Err(WorkerError::failed(message)),
        Answer::ScriptedPlan => Err(WorkerError::failed(
            "the recording answered this call with a model's plan",
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::CallOutcome;
    use crate::provider::output::Feature;
    use serde_json::json;

    /// `answer` written into a recording and read back out of it.
    fn through_a_recording(answer: Answer) -> Answer {
        serde_json::from_str(&serde_json::to_string(&answer).unwrap()).unwrap()
    }

    /// `result` recorded, then served by a cassette.
    async fn served(
        result: Result<Completion, ProviderError>,
    ) -> Result<Completion, ProviderError> {
        let record = CallRecord {
            purpose: Some("plan".into()),
            prompt_sha256: None,
            span_ms: None,
            ended_us: None,
            args: None,
            answer: model_answer(&result).map(through_a_recording),
        };
        let recorded = Recorded {
            call: 1,
            seq: 1,
            record,
            outcome: CallOutcome::Ok,
            latency: Duration::from_millis(5),
            ended: None,
            usage: None,
            reasoning: None,
            deltas: Vec::new(),
        };
        let (sink, _pieces) = tokio::sync::mpsc::unbounded_channel();
        completion(recorded, sink, Playback::new(RunClock::start())).await
    }

    #[tokio::test(start_paused = true)]
    async fn a_refused_feature_is_served_back_as_the_same_refusal() {
        let features = [
            Feature::ResponseFormat,
            Feature::JsonSchema,
            Feature::Tools,
            Feature::Temperature,
            Feature::MaxCompletionTokens,
        ];
        for feature in features {
            let refused = ProviderError::Unsupported {
                feature,
                said: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.".into(),
                spent: None,
            };
            assert_eq!(served(Err(refused.clone())).await, Err(refused));
        }
        let answer = model_answer(&Err(ProviderError::Unsupported {
            feature: Feature::JsonSchema,
            said: "no".into(),
            spent: None,
        }));
        assert_eq!(
            serde_json::to_value(answer).unwrap(),
            json!({"model_error": {"error": {"unsupported": "json_schema"}, "message": "no"}})
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_cut_or_refused_answer_is_served_back_as_such() {
        let answers = [
            (
                ModelOutput::Text("{\"verdict\": \"go\", \"summ".into()),
                Finish::Length,
            ),
            (
                ModelOutput::Text(String::new()),
                Finish::Refused("I can't help with that.".into()),
            ),
            (
                ModelOutput::Text("{\"verdict\": \"go\"}".into()),
                Finish::Stop,
            ),
        ];
        for (output, finish) in answers {
            let live = Completion {
                finish: finish.clone(),
                ..Completion::from(output.clone())
            };
            let again = served(Ok(live)).await.unwrap();
            assert_eq!((again.output, again.finish), (output, finish));
        }
        // A whole answer is recorded as it always was.
        let whole = model_answer(&Ok(Completion::from(ModelOutput::Text("hi".into()))));
        assert_eq!(serde_json::to_value(whole).unwrap(), json!({"text": "hi"}));
        let cut = Completion {
            finish: Finish::Length,
            ..Completion::from(ModelOutput::Text("{\"a\": ".into()))
        };
        assert_eq!(
            serde_json::to_value(model_answer(&Ok(cut))).unwrap(),
            json!({"cut": "{\"a\": "})
        );
    }
}
