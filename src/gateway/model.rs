//! A model call as a pattern makes it: the attempts, then what the answer
//! says. An endpoint's answer is read leniently (the one JSON object in a
//! fence or in prose) and put back in its contract's own form; an answer
//! that fails its contract, or was cut at the output limit, is asked for
//! again with the answer and what was wrong with it (`provider.
//! output_retries` times, Instructor's re-ask); a refusal stops the run.
//! A repair is a new model call: it counts against every budget.

use super::attempts::LastAttempt;
use super::{CallError, Gateway, ReadingPolicy, lock};
use crate::bus::{EventKind, TokenUsage};
use crate::provider::contract::{Finish, RepairTurn};
use crate::provider::lenient::{self, Extracted, Lenient};
use crate::provider::{Completion, ModelOutput, ModelRequest};
use crate::stop::StopReason;
use std::convert::Infallible;
use std::sync::Mutex;
use std::time::Duration;

/// How much of a failed answer a stop's line quotes.
const QUOTED_CHARS: usize = 200;

/// How a pattern reads an answer before it takes it, and what must hold
/// before it is asked again. The gateway reads each answer once, with
/// `read`, and hands the pattern what it read (`T`), or the reading that
/// failed (`E`) when the repairs run out: the pattern never parses the
/// answer again, so the check and the pattern cannot read it apart.
pub(crate) struct Check<'a, T, E> {
    /// The answer as the pattern takes it, or the pattern's own reading of
    /// what is wrong with it (the answer as far as it was read with it).
    pub(crate) read: &'a (dyn Fn(ModelOutput) -> Result<T, E> + Sync),
    /// What is wrong with a failed reading, in words the model can act on
    /// (`missing key "verdict"`).
    pub(crate) problem: &'a (dyn Fn(&E) -> String + Sync),
    /// A repair may be asked: the pattern's own call budget allows one
    /// more model call (`max_llm_calls`), or the reason it does not.
    pub(crate) before_repair: &'a (dyn Fn() -> Result<(), StopReason> + Sync),
}

impl Check<'static, ModelOutput, Infallible> {
    /// Every answer is taken as it is: only a cut answer is repaired.
    pub(crate) const ANY: Check<'static, ModelOutput, Infallible> = Check {
        read: &Ok,
        problem: &|never| match *never {},
        before_repair: &|| Ok(()),
    };
}

/// A checked call's answer: what the check read, or, once the repairs ran
/// out (at once on the sim, which is never repaired), the reading that
/// failed, for the pattern to stop on; `None` when the call was cut off
/// at its deadline.
pub(crate) type Checked<T, E> = Option<Result<Result<T, E>, CallError>>;

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
        let (answer, _) = self.model_checked(label, request, None, &Check::ANY).await;
        match answer.unwrap_or(Err(CallError::Timeout))? {
            Ok(output) => Ok(output),
            Err(never) => match never {},
        }
    }

    /// Call the model for an answer that `check` takes, for an agent that
    /// must be done by `deadline` on the run clock (`None` when the call
    /// was cut off there; an answer exactly at it is in time), and how
    /// long the call took on the run clock, its repairs included. Each
    /// answer is read once, by the check; an answer that still fails it
    /// when the repairs run out is handed back as the check read it, for
    /// the pattern to stop on as it always did.
    pub(crate) async fn model_checked<T, E>(
        &self,
        label: String,
        mut request: ModelRequest,
        deadline: Option<Duration>,
        check: &Check<'_, T, E>,
    ) -> (Checked<T, E>, Duration) {
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
            let cut = matches!(completion.finish, Finish::Length);
            let usage = completion.usage;
            // The sim's answers are read as the references read them, and
            // never repaired: what the check read is the pattern's to take
            // or stop on.
            if !cut && !self.reading.reads_leniently() {
                self.repaired(&request);
                return (Some(Ok((check.read)(output))), took);
            }
            let (problem, raw, failed) = if cut {
                (self.cut_words(usage), raw.unwrap_or(output), None)
            } else {
                // The answer as it came is kept for a repair's turn.
                let raw = raw.unwrap_or_else(|| output.clone());
                match (check.read)(output) {
                    Ok(read) => {
                        self.repaired(&request);
                        return (Some(Ok(Ok(read))), took);
                    }
                    Err(failed) => ((check.problem)(&failed), raw, Some(failed)),
                }
            };
            let raw = raw.into_text();
            let failure = self.note_answer_failure(&request, call, &problem, &raw);
            let repairs = u32::try_from(request.repair.len()).unwrap_or(u32::MAX);
            if repairs >= self.output_retries {
                let answer = match failed {
                    None => Err(CallError::OutputCut(failure.line())),
                    Some(failed) => Ok(Err(failed)),
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

    /// How the run's answers are read and its calls treated, for the
    /// kind of its provider.
    pub(crate) fn reading(&self) -> &ReadingPolicy {
        &self.reading
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
        if !self.reading.reads_leniently() || !request.prompt.json {
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
        let limit = self.reading.limit_sent();
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
