//! A model call as a pattern makes it: the attempts, then what the answer
//! says. An endpoint's answer is read leniently (the one JSON object in a
//! fence or in prose) and put back in its contract's own form; an answer
//! that fails its contract, or was cut at the output limit, is asked for
//! again with the answer and what was wrong with it (`provider.
//! output_retries` times, Instructor's re-ask); a refusal stops the run.
//! A repair is a new model call: it counts against every budget.

use super::attempts::LastAttempt;
use super::{CallError, Gateway, lock};
use crate::bus::{EventKind, TokenUsage};
use crate::provider::contract::{Finish, RepairTurn};
use crate::provider::lenient::{self, Extracted, Lenient};
use crate::provider::{Completion, ModelOutput, ModelRequest};
use crate::stop::StopReason;
use std::sync::Mutex;
use std::time::Duration;

/// How much of a failed answer a stop's line quotes.
const QUOTED_CHARS: usize = 200;

/// What a pattern checks an answer against before it takes it, and what
/// must hold before it is asked again.
pub(crate) struct Check<'a> {
    /// The answer as read keeps its contract, or what is wrong with it in
    /// words the model can act on (`missing key "verdict"`).
    pub(crate) verify: &'a (dyn Fn(&ModelOutput) -> Result<(), String> + Sync),
    /// A repair may be asked: the pattern's own call budget allows one
    /// more model call (`max_llm_calls`), or the reason it does not.
    pub(crate) before_repair: &'a (dyn Fn() -> Result<(), StopReason> + Sync),
}

impl Check<'static> {
    /// Every answer keeps the contract: only a cut answer is repaired.
    pub(crate) const ANY: Check<'static> = Check {
        verify: &|_| Ok(()),
        before_repair: &|| Ok(()),
    };
}

/// A model's answer that the run stopped on, for the line a headless run
/// prints and the result pane shows.
#[derive(Clone, Debug)]
pub(super) struct AnswerFailure {
    agent: Option<String>,
    call: Option<u64>,
    what: String,
    answer: String,
}

impl AnswerFailure {
    /// One line: who, which call, what was wrong, and how the answer
    /// began, cleaned for a terminal.
    pub(super) fn line(&self) -> String {
        let who = match (&self.agent, self.call) {
            (Some(agent), Some(call)) => format!("{agent}, call {call}: "),
            (Some(agent), None) => format!("{agent}: "),
            (None, Some(call)) => format!("call {call}: "),
            (None, None) => String::new(),
        };
        let answer: String = self.answer.chars().take(QUOTED_CHARS).collect();
        let more = if self.answer.chars().count() > QUOTED_CHARS {
            "…"
        } else {
            ""
        };
        let line = format!("{who}{}; the answer began: {answer:?}{more}", self.what);
        let line = crate::secrets::scrub_model_text(&line);
        crate::sanitize::clean(&line.replace(['\n', '\r'], " ")).into_owned()
    }
}

impl Gateway {
    /// Call the model. `label` says what for, in the event log. Without a
    /// resilience section: one attempt under the provider's timeout.
    pub(crate) async fn model(
        &self,
        label: String,
        request: ModelRequest,
    ) -> Result<ModelOutput, CallError> {
        self.model_checked(label, request, None, &Check::ANY)
            .await
            .0
            .unwrap_or(Err(CallError::Timeout))
    }

    /// Call the model for an answer that `check` takes, for an agent that
    /// must be done by `deadline` on the run clock (`None` when the call
    /// was cut off there; an answer exactly at it is in time), and how
    /// long the call took on the run clock, its repairs included. An
    /// answer that still fails its check when the repairs run out is
    /// handed back as read, for the pattern to stop on as it always did.
    pub(crate) async fn model_checked(
        &self,
        label: String,
        mut request: ModelRequest,
        deadline: Option<Duration>,
        check: &Check<'_>,
    ) -> (Option<Result<ModelOutput, CallError>>, Duration) {
        // Every ask of the call, its repairs included, is timed from the
        // call's start: the last one's span is the call's, as a cassette
        // gives it back (whole milliseconds, never a sum of roundings).
        let entry = self.bus.clock().elapsed();
        loop {
            let (answer, took, call) = self.model_once(&label, &request, deadline, entry).await;
            let completion = match answer {
                Some(Ok(completion)) => completion,
                Some(Err(error)) => return (Some(Err(error)), took),
                None => return (None, took),
            };
            if let Finish::Refused(words) = &completion.finish {
                self.note_answer_failure(&request, call, "the model refused", words);
                return (Some(Err(CallError::Refused(words.clone()))), took);
            }
            // The raw answer is kept apart only where reading changed it
            // (an endpoint's): the sim's is read as it is, never copied.
            let (output, raw) = match self.read_answer(&request, &completion.output) {
                Some((read, _)) => (read, Some(completion.output)),
                None => (completion.output, None),
            };
            // The sim's answers are checked by their patterns alone, as the
            // references check them, and never repaired.
            let problem = match completion.finish {
                Finish::Length => Some(self.cut_words(completion.usage)),
                _ if self.reads_leniently() => (check.verify)(&output).err(),
                _ => None,
            };
            let Some(problem) = problem else {
                self.repaired(&request);
                return (Some(Ok(output)), took);
            };
            let raw = raw.unwrap_or_else(|| output.clone()).into_text();
            let failure = self.note_answer_failure(&request, call, &problem, &raw);
            let repairs = u32::try_from(request.repair.len()).unwrap_or(u32::MAX);
            if repairs >= self.output_retries {
                let answer = match completion.finish {
                    Finish::Length => Err(CallError::OutputCut(failure.line())),
                    _ => Ok(output),
                };
                return (Some(answer), took);
            }
            if let Err(reason) = (check.before_repair)() {
                return (Some(Err(CallError::Rejected(reason))), took);
            }
            self.bus.publish(EventKind::CallRepair {
                call: call.unwrap_or_default(),
                attempt: repairs + 1,
                of: self.output_retries,
                error: problem.clone(),
            });
            self.meter.note_repair();
            request.repair.push(RepairTurn {
                answer: raw,
                error: problem,
            });
        }
    }

    /// One ask of the model, its attempts and retries included: the
    /// answer, how long after `entry` (the call's start) it ended and the
    /// id of its last attempt's call.
    async fn model_once(
        &self,
        label: &str,
        request: &ModelRequest,
        deadline: Option<Duration>,
        entry: Duration,
    ) -> (Option<Result<Completion, CallError>>, Duration, Option<u64>) {
        let last = Mutex::new(LastAttempt::default());
        let answer = self
            .model_attempts(label, request, deadline, entry, &last)
            .await;
        let last = last.into_inner().unwrap_or_else(|e| e.into_inner());
        let took = last
            .span
            .unwrap_or_else(|| self.bus.clock().elapsed().saturating_sub(entry));
        (answer, took, last.call)
    }

    /// Whether answers are read as an endpoint's (leniently, repaired),
    /// rather than exactly as the references read the sim's.
    pub(crate) fn reads_leniently(&self) -> bool {
        self.provider.is_remote()
    }

    /// Whether the endpoint is asked for the contract itself (`native` or
    /// `tool` mode), so that a reply comes only through it.
    pub(crate) fn replies_by_contract(&self) -> bool {
        self.provider.replies_by_contract()
    }

    /// An answer as its pattern reads it, and how its JSON was found. An
    /// endpoint's answer to a JSON prompt is read leniently and put in its
    /// contract's own form; the sim's is read exactly, as the references
    /// read it.
    /// `None` when the answer is read as it is.
    pub(super) fn read_answer(
        &self,
        request: &ModelRequest,
        output: &ModelOutput,
    ) -> Option<(ModelOutput, Option<Extracted>)> {
        let ModelOutput::Text(text) = output else {
            return None;
        };
        if !self.provider.is_remote() || !request.prompt.json {
            return None;
        }
        let (value, extracted) = match lenient::read(text) {
            Lenient::Whole => match crate::pycompat::parse_model_text(text.trim()) {
                Some(value @ serde_json::Value::Object(_)) => (value, None),
                _ => return None,
            },
            Lenient::Found(value, how) => (value, Some(how)),
            Lenient::Several | Lenient::None { .. } => return None,
        };
        let value = match &request.contract {
            Some(contract) => (contract.normalise)(value),
            None => value,
        };
        Some((ModelOutput::Json(value), extracted))
    }

    /// What a cut answer is told, with the limit when the run set one,
    /// and who cut it: a stream that ran past the limit the endpoint
    /// ignored was cut by Conclave, which the endpoint never said. That
    /// is read from the answer's usage (the pieces counted, estimated, past
    /// where Conclave stops reading), so a cassette, which keeps the
    /// usage and the limit its run sent, says it in the same words.
    fn cut_words(&self, usage: Option<TokenUsage>) -> String {
        let limit = self.provider.limit_sent();
        if let (Some(tokens), Some(usage)) = (limit, usage)
            && usage.estimated
            && usage.output > crate::provider::openai::pieces_past(tokens)
        {
            return format!(
                "Conclave cut the stream after {} pieces: the endpoint ignored the output limit (max_output_tokens {tokens}); give a shorter answer that is complete",
                usage.output
            );
        }
        let limit = match limit {
            Some(tokens) => format!("max_output_tokens {tokens}"),
            None => "the model's own limit".to_string(),
        };
        format!(
            "the answer was cut at the output limit ({limit}, finish_reason \"length\"): give a shorter answer that is complete"
        )
    }

    /// An answer of `request`'s speaker kept its contract: an earlier one
    /// of theirs that did not is no longer what the run may stop on.
    fn repaired(&self, request: &ModelRequest) {
        let mut failure = lock(&self.answer_failure);
        if failure
            .as_ref()
            .is_some_and(|f| f.agent.as_deref() == Some(request.purpose.spender()))
        {
            *failure = None;
        }
    }

    /// Remember the answer the run may stop on; the failure as noted.
    fn note_answer_failure(
        &self,
        request: &ModelRequest,
        call: Option<u64>,
        what: &str,
        answer: &str,
    ) -> AnswerFailure {
        let failure = AnswerFailure {
            agent: Some(request.purpose.spender().to_string()),
            call,
            what: what.to_string(),
            // One character past what the line quotes says there is more.
            answer: answer.chars().take(QUOTED_CHARS + 1).collect(),
        };
        *lock(&self.answer_failure) = Some(failure.clone());
        failure
    }
}
