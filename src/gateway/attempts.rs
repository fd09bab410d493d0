//! The attempts of one model call: admitted by the model's shield, timed,
//! raced against its deadline and the run's cancellation, charged to the
//! meter as each answer arrives, and retried as the retry rule says. What
//! the answer then says (its contract, its repair) is `model`'s concern.

use super::prompt_hash;
use super::retry::{Next, Retrier};
use super::served::Noted;
use super::text::CallText;
use super::{CallDetails, CallError, Gateway, MODEL_TOOL, Shielded, lock, millis};
use crate::bus::cassette::CallRecord;
use crate::bus::{CallOutcome, EventKind};
use crate::provider::{Completion, ModelRequest, ProviderError};
use crate::stop::StopReason;
use std::sync::Mutex;
use std::time::Duration;

/// What the last attempt of a call left behind: how long after the call's
/// start it ended, and its call's id.
#[derive(Debug, Default)]
pub(super) struct LastAttempt {
    pub(super) span: Option<Duration>,
    pub(super) call: Option<u64>,
}

/// What every attempt of one model call shares.
struct Ask<'a> {
    request: &'a ModelRequest,
    /// What the call's recording says it asked.
    asked: CallRecord,
    /// The model's timeout per attempt.
    timeout: Option<Duration>,
    /// The caller's deadline on the run clock, which cuts the call.
    deadline: Option<Duration>,
    /// Run time the call started at.
    entry: Duration,
    last: &'a Mutex<LastAttempt>,
}

/// How an attempt ended, as its `call_finished` says.
fn outcome_of(result: &Result<Completion, CallError>) -> CallOutcome {
    match result {
        Ok(_) => CallOutcome::Ok,
        Err(
            CallError::Timeout
            | CallError::Cut
            | CallError::Provider(ProviderError::TimedOutWriting { .. }),
        ) => CallOutcome::Timeout,
        Err(CallError::Cancelled) => CallOutcome::Cancelled,
        Err(CallError::Rejected(_)) => CallOutcome::Refused,
        Err(_) => CallOutcome::Error,
    }
}

impl Gateway {
    /// The attempts of one model call that started at run time `entry`;
    /// each notes in `last` how long after `entry` it ended and its call's
    /// id. Each attempt is admitted by the model's shield, made, and its
    /// failure classified: the endpoint refused a way of asking (ask the
    /// next way), a retry is due, or the call gives up.
    pub(super) async fn model_attempts(
        &self,
        label: &str,
        request: &ModelRequest,
        deadline: Option<Duration>,
        entry: Duration,
        last: &Mutex<LastAttempt>,
    ) -> Option<Result<Completion, CallError>> {
        // The run's tokens and dollars are a gate of their own: once past
        // a budget no model call starts (the one that went past finished
        // and was counted).
        if let Some(reason) = self.meter.over() {
            return Some(Err(CallError::Rejected(reason)));
        }
        let shield = self.shields.tool(MODEL_TOOL);
        let mut retrier = match &shield.settings.retries {
            Some(rule) if self.shields.retries_on() => Retrier::configured(rule),
            _ if self.reading.retries_by_itself() => Retrier::remote(),
            _ => Retrier::own(1),
        };
        self.shields.first_call();
        let ask = Ask {
            request,
            asked: CallRecord {
                purpose: Some(request.purpose.key()),
                prompt_sha256: Some(prompt_hash::prompt_sha256(request)),
                span_ms: None,
                ended_us: None,
                args: None,
                answer: None,
            },
            timeout: shield
                .settings
                .timeout_ms
                .map(crate::duration::clamp_millis)
                .or_else(|| self.reading.timeout()),
            deadline,
            entry,
            last,
        };
        let mut attempt = 1;
        loop {
            let noted = &Noted::default();
            let shielded = Shielded {
                shield: &shield,
                attempt,
                label: label.to_string(),
                agent: request.purpose.agent().map(str::to_string),
            };
            let answered = self
                .guarded(
                    shielded,
                    |_started, text| self.model_attempt(&ask, text, noted),
                    CallError::Rejected,
                    outcome_of,
                    |result| self.details_of(&ask, noted, result),
                )
                .await;
            if let Some(span) = noted.span() {
                lock(last).span = Some(span);
            }
            let error = match answered {
                Ok(completion) => {
                    self.heed_limit(&completion);
                    return Some(Ok(completion));
                }
                Err(CallError::Cut) => return None,
                Err(error) => error,
            };
            // The endpoint refused a way of asking: ask the next way at
            // once. Not a retry: nothing failed that waiting would mend,
            // and it takes none of the retry rule's attempts.
            if self.adapted(&error) {
                retrier.asked_another_way();
            } else if let Err(end) = self
                .retry_or_give_up(&mut retrier, &shield, attempt, error)
                .await
            {
                return Some(Err(end));
            }
            attempt += 1;
        }
    }

    /// One attempt: the provider's answer (or the cassette's) under the
    /// call's timeout, cut at the caller's deadline, its text relayed as
    /// it streams, and its tokens charged the moment it arrives.
    async fn model_attempt(
        &self,
        ask: &Ask<'_>,
        text: CallText,
        noted: &Noted,
    ) -> Result<Completion, CallError> {
        lock(ask.last).call = Some(text.call());
        let (sink, pieces) = if self.streams() {
            let (sink, pieces) = tokio::sync::mpsc::unbounded_channel();
            (Some(sink), Some(pieces))
        } else {
            (None, None)
        };
        // Boxed: an answer under its timeout is most of an attempt's
        // size, and every future above this one would hold it whole and
        // copy it at each call (the scale bench's coordinator_100k and
        // orchestrator_100k rows, one per model call).
        let completion = Box::pin(async {
            let call = self.complete(ask.request, &ask.asked, sink, noted);
            // On the run clock, as the sim takes its time: a pause does
            // not time a call out.
            match ask.timeout {
                Some(limit) => self
                    .bus
                    .clock()
                    .timeout(limit, call)
                    .await
                    .unwrap_or(Err(ProviderError::Timeout)),
                None => call.await,
            }
        });
        let cut = async {
            match ask.deadline {
                Some(at) => self.bus.clock().sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let spender = ask.request.purpose.spender();
        let call = std::pin::pin!(async {
            tokio::select! {
                biased;
                answer = completion => answer
                    .map(|mut completion| {
                        // Counted the moment it arrives, priced once; a
                        // served answer as it was priced.
                        completion.usage = if completion.served {
                            self.meter.charge_served(spender, completion.usage)
                        } else {
                            self.meter.charge(spender, completion.usage)
                        };
                        completion
                    })
                    .map_err(|error| {
                        // An answer that came back and is not used still
                        // took the endpoint's tokens: counted as it came.
                        let charged = error.spent().map(|spent| {
                            if spent.served {
                                self.meter.charge_served(spender, Some(spent.usage))
                            } else {
                                self.meter.charge(spender, Some(spent.usage))
                            }
                        });
                        CallError::from_provider(error.charged(charged.flatten()))
                    }),
                () = cut => Err(CallError::Cut),
            }
        });
        let answered = match pieces {
            Some(pieces) => text.relay(call, pieces).await,
            None => call.await,
        };
        noted.ended(self.bus.clock().elapsed(), Some(ask.entry));
        answered
    }

    /// What an attempt's `call_finished` says besides its outcome.
    fn details_of(
        &self,
        ask: &Ask<'_>,
        noted: &Noted,
        result: &Result<Completion, CallError>,
    ) -> CallDetails {
        let (record, served) = noted.take(ask.asked.clone());
        let details = CallDetails {
            record,
            served,
            latency: noted.recorded_latency(),
            ..CallDetails::default()
        };
        match result {
            Ok(completion) => CallDetails {
                usage: completion.usage,
                reasoning: completion.reasoning.clone(),
                extracted: self
                    .read_answer(ask.request, &completion.output)
                    .and_then(|(_, how)| how),
                ..details
            },
            Err(error) => {
                let refused = match error {
                    CallError::Provider(ProviderError::Unsupported { feature, .. }) => {
                        Some(*feature)
                    }
                    _ => None,
                };
                let spent = match error {
                    CallError::Provider(provider) => provider.spent().map(|spent| spent.usage),
                    _ => None,
                };
                CallDetails {
                    usage: spent,
                    error: error.message(),
                    fallback: refused.is_some(),
                    fallback_taken: refused.is_some_and(|f| self.reading.adapts(f)),
                    ..details
                }
            }
        }
    }

    /// After attempt `attempt` failed with `error`: wait out the retry's
    /// backoff, or the error the call ends with here (given up, over the
    /// retry budget, past the run's time or cancelled).
    async fn retry_or_give_up(
        &self,
        retrier: &mut Retrier,
        shield: &std::sync::Arc<super::shield::ToolShield>,
        attempt: u32,
        error: CallError,
    ) -> Result<(), CallError> {
        let failure = error.failure();
        let gave_up = Err;
        match retrier.next(attempt, failure, self.shields.budget(), &self.shields.rng) {
            Next::GiveUp => {
                self.note_failure(&error);
                gave_up(error)
            }
            Next::OverBudget => {
                let reason = StopReason::RetryBudgetExhausted;
                shield.reject(attempt + 1, &reason);
                gave_up(CallError::Rejected(reason))
            }
            Next::Retry(delay) => {
                if let Some(late) = self.past_the_run(&error, delay) {
                    shield.reject(attempt + 1, &StopReason::MaxSeconds);
                    self.note_failure(&late);
                    return gave_up(late);
                }
                self.bus.publish(EventKind::RetryScheduled {
                    tool: MODEL_TOOL.to_string(),
                    task: None,
                    attempt: attempt + 1,
                    delay_ms: millis(delay),
                    after: error.reason(),
                });
                match self.back_off(delay).await {
                    Ok(()) => Ok(()),
                    Err(_) => gave_up(CallError::Cancelled),
                }
            }
        }
    }

    /// The failure a retry after `delay` becomes when the endpoint asked
    /// for the wait and it would end past the run's `max_seconds`: the
    /// run cannot use the answer, so it stops now rather than sleep.
    fn past_the_run(&self, error: &CallError, delay: Duration) -> Option<CallError> {
        let asked = error.retry_after()?;
        let left = self.run_limit?.saturating_sub(self.bus.clock().elapsed());
        (delay > left).then(|| {
            CallError::OutOfTime(format!(
                "the endpoint asked to wait {:.1} s before trying again (Retry-After), more than the {:.1} s left of the run's max_seconds",
                asked.as_secs_f64(),
                left.as_secs_f64()
            ))
        })
    }

    /// Remember the words of the model call that failed last, for the
    /// run's finish.
    fn note_failure(&self, error: &CallError) {
        if let Some(message) = error.message().or_else(|| self.timeout_words(error)) {
            *self
                .last_failure
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) =
                Some((error.stop_reason(), message));
        }
    }

    /// The words of a live endpoint's call that got no answer in time:
    /// after how long, and what raises it (the scenario's resilience
    /// timeout for `model` wins over the provider's, and `--call-timeout`
    /// raises only the latter).
    fn timeout_words(&self, error: &CallError) -> Option<String> {
        if !matches!(error, CallError::Timeout) {
            return None;
        }
        let words = self.reading.timeout_words()?.to_string();
        let shield = self.shields.tool(MODEL_TOOL);
        Some(match shield.settings.timeout_ms {
            Some(ms) => format!(
                "the model gave no answer within {} s, the scenario's resilience timeout for model (resilience.timeouts_ms), which wins over --call-timeout: raise it there",
                crate::duration::seconds_text(crate::duration::clamp_millis(ms))
            ),
            None => words,
        })
    }

    /// The words to finish a run stopped with `reason` with: the last
    /// failed model call's, when the run stopped on a model failure or
    /// with the very reason that call failed with (`max_seconds` after a
    /// `Retry-After` too long for the run).
    pub(crate) fn failure_words(&self, reason: &StopReason) -> Option<String> {
        if reason.is_answer_failure()
            && let Some(failure) = lock(&self.answer_failure).as_ref()
        {
            return Some(failure.line());
        }
        let last = lock(&self.last_failure);
        let (failed_with, message) = last.as_ref()?;
        (reason.is_model_failure() || failed_with == reason).then(|| message.clone())
    }
}
