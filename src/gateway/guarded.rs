//! One attempt at a tool behind its shield, the step every model and tool
//! call takes: admitted by the breaker and bulkhead, announced, called
//! against the run's cancellation, its text settled, its end published
//! and its outcome settled with the breaker; and a retry's backoff.

use super::text::CallText;
use super::{CallError, Gateway, ToolShield, millis};
use crate::bus::cassette::CallRecord;
use crate::bus::{CallOutcome, EventKind, TokenUsage};
use crate::stop::StopReason;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

impl Gateway {
    /// One attempt at a tool behind its shield: admitted by its breaker and
    /// bulkhead (a refusal becomes `rejected(reason)`), then `call`, given
    /// the run time it starts at and where its text goes as it streams,
    /// raced against cancellation of the run. Publishes the attempt's
    /// `call_started`, its text as `call_delta`s and its `call_finished`,
    /// and settles its outcome with the breaker.
    pub(super) async fn guarded<T, E, F>(
        &self,
        at: Shielded<'_>,
        call: impl FnOnce(Duration, CallText) -> F,
        rejected: impl FnOnce(StopReason) -> E,
        outcome_of: impl Fn(&Result<T, E>) -> CallOutcome,
        details_of: impl Fn(&Result<T, E>) -> CallDetails,
    ) -> Result<T, E>
    where
        F: Future<Output = Result<T, E>>,
        E: From<Cancelled>,
    {
        let admitted = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Err(Cancelled.into()),
            admitted = at.shield.admit(at.attempt) => admitted,
        };
        let pass = match admitted {
            Ok(pass) => pass,
            Err(reason) => return Err(rejected(reason)),
        };
        let id = self.next_call_id();
        self.bus.publish(EventKind::CallStarted {
            call: id,
            tool: at.shield.name().to_string(),
            attempt: at.attempt,
            label: at.label,
            agent: at.agent,
        });
        let started = self.bus.clock().elapsed();
        let text = CallText::new(self.bus.clone(), id);
        let result = tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(Cancelled.into()),
            result = call(started, text.clone()) => result,
        };
        let ended = self.bus.clock().elapsed();
        // The text's last delta keeps its spacing from the one before; a
        // cancelled run does not wait for it. Without text left (a tool's
        // call, the sim's answer) there is nothing to wait for.
        if text.is_pending() {
            tokio::select! {
                biased;
                () = self.cancel.cancelled() => {}
                () = text.settle() => {}
            }
        }
        let timing = text.finish();
        let outcome = outcome_of(&result);
        let details = details_of(&result);
        let fallback = details.fallback;
        self.bus.publish(EventKind::CallFinished {
            call: id,
            tool: at.shield.name().to_string(),
            attempt: at.attempt,
            // A served call took its recorded time, which the real clock
            // did not wait out.
            latency_ms: millis(details.latency.unwrap_or(ended.saturating_sub(started))),
            outcome,
            first_token_ms: timing.first_token_ms(started),
            tokens_per_s: timing.tokens_per_s(details.usage.as_ref()),
            usage: details.usage,
            error: details.error,
            http_status: details.http_status,
            served: details.served,
            reasoning: details.reasoning,
            record: details.record,
            extracted: details.extracted,
            fallback: details.fallback_taken,
        });
        // A feature the endpoint refused by name says nothing of its
        // health: the run asks the next way at once, and the breaker
        // counts nothing.
        if fallback {
            pass.settle(CallOutcome::Cancelled);
        } else {
            pass.settle(outcome);
        }
        result
    }

    /// Wait out a retry's backoff on the run clock; `Err` when the run is
    /// cancelled meanwhile. No delay, no wait (001 retries at once).
    pub(super) async fn back_off(&self, delay: Duration) -> Result<(), Cancelled> {
        if delay.is_zero() {
            return Ok(());
        }
        let clock = self.bus.clock();
        let until = clock.elapsed() + delay;
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(Cancelled),
            () = clock.sleep_until(until) => Ok(()),
        }
    }
}

/// What a finished call's event says besides its outcome.
#[derive(Clone, Debug, Default)]
pub(super) struct CallDetails {
    /// Tokens a model call took.
    pub(super) usage: Option<TokenUsage>,
    /// Why the call failed, in words.
    pub(super) error: Option<String>,
    /// The status a real worker's endpoint answered a failed call with.
    pub(super) http_status: Option<u16>,
    /// What the attempt asked and answered, for a cassette.
    pub(super) record: Option<Box<CallRecord>>,
    /// The answer was served from a cassette.
    pub(super) served: bool,
    /// A served answer's latency, as the recording measured it.
    pub(super) latency: Option<Duration>,
    /// A model's reasoning text, apart from its answer.
    pub(super) reasoning: Option<String>,
    /// How a model's JSON was found in its text, when it was extracted.
    pub(super) extracted: Option<crate::provider::lenient::Extracted>,
    /// The endpoint refused a feature of the request by name.
    pub(super) fallback: bool,
    /// … and the call asks again another way: the attempt was a
    /// fallback, as its event says.
    pub(super) fallback_taken: bool,
}

/// Which attempt of which tool's call, and what it is for.
pub(super) struct Shielded<'a> {
    pub(super) shield: &'a Arc<ToolShield>,
    pub(super) attempt: u32,
    pub(super) label: String,
    /// The role or agent a model call speaks for.
    pub(super) agent: Option<String>,
}

/// The run was cancelled during a call.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cancelled;

impl From<Cancelled> for CallError {
    fn from(_: Cancelled) -> Self {
        CallError::Cancelled
    }
}

impl From<Cancelled> for StopReason {
    fn from(_: Cancelled) -> Self {
        StopReason::Cancelled
    }
}
