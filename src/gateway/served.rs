//! The gateway's side of cassettes: what each call's `call_finished`
//! records of its request and answer, and a recorded answer played back
//! as the call had it: its text as it streamed and its latency on the run
//! clock, or no answer at all until the call's timeout.

use crate::bus::cassette::{Answer, CallRecord, ModelFailure, RawJson, ToolFailure};
use crate::cassette::Recorded;
use crate::clock::RunClock;
use crate::provider::contract::Finish;
use crate::provider::prompts::Prompt;
use crate::provider::{
    Completion, ModelOutput, ModelRequest, ProviderError, TextPiece, TextSink, WorkerError,
};
use crate::scenario::JsonText;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// What a recorded call that never answered waits past its latency
/// before it fails as timed out: the call's own timeout, which cut it at
/// that latency, comes first.
const PAST_THE_TIMEOUT: Duration = Duration::from_millis(1);

/// The prompt of a model call, hashed: its file's name, its compiled-in
/// text, the JSON payload and its rounds of repair, as lowercase hex.
pub(super) fn prompt_sha256(request: &ModelRequest) -> String {
    let mut hash = after_prompt(request.prompt);
    // Written into the hash as it is serialized: a final brief's payload
    // holds every task's result, and is not copied into a string. Its
    // characters are counted on the way, for the sim's token estimate.
    request.write_payload(Hashing(&mut hash));
    // A repair asks again after the failed answers: each one and what was
    // wrong with it is part of what was asked. A first ask hashes as it
    // always did.
    for turn in &request.repair {
        for part in [&turn.answer, &turn.error] {
            hash.update(b"\n");
            hash.update(part.as_bytes());
        }
    }
    lowercase_hex(&hash.finalize())
}

/// The hash of a prompt's file name and compiled-in text, which every
/// call asked with that prompt starts with. Kept per prompt: the text is
/// several times a member call's payload, and the scale bench's
/// `coordinator_100k` (100,000 member calls of one prompt) hashed it at
/// every call.
fn after_prompt(prompt: &Prompt) -> Sha256 {
    // A prompt's text is compiled in: where it lies and its length say
    // which it is.
    type Key = (usize, usize, usize, usize);
    static KEPT: Mutex<Vec<(Key, Sha256)>> = Mutex::new(Vec::new());
    let key = (
        prompt.file.as_ptr() as usize,
        prompt.file.len(),
        prompt.text.as_ptr() as usize,
        prompt.text.len(),
    );
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, hash)) = kept.iter().find(|(kept, _)| *kept == key) {
        return hash.clone();
    }
    let mut hash = Sha256::new();
    hash.update(prompt.file.as_bytes());
    hash.update(b"\n");
    hash.update(prompt.text.as_bytes());
    hash.update(b"\n");
    kept.push((key, hash.clone()));
    hash
}

/// `bytes` as lowercase hex, two digits a byte: written digit by digit, as
/// a formatted string a byte cost a model call more than its hash did.
fn lowercase_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    hex
}

/// Bytes written into a hash.
struct Hashing<'a>(&'a mut Sha256);

impl std::io::Write for Hashing<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

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
        Err(ProviderError::Timeout) => return None,
        Err(ProviderError::Unavailable {
            message,
            retry_after,
        }) => (ModelFailure::Unavailable, message, *retry_after),
        Err(ProviderError::Auth(m)) => (ModelFailure::Auth, m, None),
        Err(ProviderError::BadResponse(m)) => (ModelFailure::BadResponse, m, None),
        Err(ProviderError::BadRequest(m)) => (ModelFailure::BadRequest, m, None),
        Err(ProviderError::UnexpectedStatus(m)) => (ModelFailure::UnexpectedStatus, m, None),
        Err(ProviderError::Failed(m)) => (ModelFailure::Failed, m, None),
        Err(ProviderError::Unsupported { feature, said }) => {
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
            timed: clock.is_virtual(),
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
        });
    }
    let Some(answer) = recorded.record.answer else {
        playback.until(end.saturating_add(PAST_THE_TIMEOUT)).await;
        return Err(ProviderError::Timeout);
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
        } => return Err(model_failure(error, message, retry_after_ms)),
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
            };
            assert_eq!(served(Err(refused.clone())).await, Err(refused));
        }
        let answer = model_answer(&Err(ProviderError::Unsupported {
            feature: Feature::JsonSchema,
            said: "no".into(),
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

    #[test]
    fn rounds_of_repair_change_the_prompts_hash_and_none_leave_it_as_it_was() {
        use crate::provider::contract::RepairTurn;
        use crate::provider::prompts::Prompt;
        let request = ModelRequest::new(
            crate::provider::Purpose::unscripted("plan"),
            &Prompt::UNUSED,
            json!({"a": 1}),
        );
        // SHA-256 of "unused.md\n\n{\"a\":1}", as every recording so far has it.
        let mut hash = Sha256::new();
        hash.update(b"unused.md\n\n{\"a\":1}");
        let old: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(prompt_sha256(&request), old);
        let turn = |answer: &str, error: &str| RepairTurn {
            answer: answer.into(),
            error: error.into(),
        };
        let mut once = request.clone();
        once.repair = vec![turn("{}", "missing key `verdict`")];
        let mut shifted = request.clone();
        shifted.repair = vec![turn("{}m", "issing key `verdict`")];
        let hashes = [
            prompt_sha256(&request),
            prompt_sha256(&once),
            prompt_sha256(&shifted),
        ];
        assert!(hashes[0] != hashes[1] && hashes[1] != hashes[2] && hashes[0] != hashes[2]);
    }

    #[test]
    fn a_prompts_kept_hash_gives_the_hash_of_its_whole_text_for_each_prompt() {
        use crate::provider::prompts::Prompt;
        static FIRST: Prompt = Prompt {
            file: "first.md",
            text: "You answer in JSON.",
            json: true,
        };
        static SECOND: Prompt = Prompt {
            file: "second.md",
            text: "You answer in words.",
            json: false,
        };
        let whole = |prompt: &Prompt, payload: &str| {
            let mut hash = Sha256::new();
            hash.update(format!("{}\n{}\n{payload}", prompt.file, prompt.text));
            lowercase_hex(&hash.finalize())
        };
        // Each prompt twice and in turn: the second call of each starts
        // from the hash kept for it, never from the other prompt's.
        for (prompt, payload) in [(&FIRST, 1), (&SECOND, 2), (&FIRST, 3), (&SECOND, 4)] {
            let purpose = crate::provider::Purpose::unscripted("turn:a");
            let request = ModelRequest::new(purpose, prompt, json!({"n": payload}));
            let expected = whole(prompt, &format!("{{\"n\":{payload}}}"));
            assert_eq!(prompt_sha256(&request), expected, "{}", prompt.file);
        }
    }
}
