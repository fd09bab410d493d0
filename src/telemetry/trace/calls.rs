//! Calls as spans: every model call `chat <model>` (in `chat`), every
//! worker or tool call `execute_tool <tool>` (in `tools`), from its first
//! attempt to its last. A call the gateway retried gets one `attempt <n>`
//! span per attempt under it. A failed attempt leaves its call waiting for
//! a retry; the call ends at its last attempt's end once nothing follows
//! it up.

use super::{TraceBuilder, error_type, wire};
use crate::bus::{CallOutcome, EventKind, TokenUsage};
use crate::gateway::MODEL_TOOL;
use crate::stop::StopReason;
use crate::telemetry::names as n;
use crate::telemetry::span::{Attrs, SpanNo, SpanStatus};

/// The calls whose spans are open.
#[derive(Debug, Default)]
pub(super) struct Calls {
    pub(super) open: Vec<Call>,
}

#[derive(Debug)]
pub(super) struct Call {
    pub(super) span: SpanNo,
    pub(super) what: What,
    pub(super) attempts: Vec<Attempt>,
    /// The last attempt failed: a retry may follow.
    pub(super) waiting: bool,
}

#[derive(Debug, PartialEq)]
pub(super) enum What {
    Model { label: String },
    Tool { task: String, tool: String },
}

#[derive(Debug, Default)]
pub(super) struct Attempt {
    pub(super) n: u32,
    /// The gateway's number for the call that reached the tool.
    pub(super) call: Option<u64>,
    pub(super) start: u64,
    pub(super) end: Option<u64>,
    pub(super) outcome: Option<String>,
    pub(super) error: Option<String>,
    pub(super) http_status: Option<u16>,
    /// The model's text as it streamed (kept only with content on).
    pub(super) text: String,
}

impl Calls {
    /// When the call whose span is `span` ended, if `span` is a call's:
    /// its last attempt's end (`u64::MAX` while an attempt runs).
    pub(super) fn last_end(&self, span: SpanNo) -> Option<u64> {
        let call = self.open.iter().find(|c| c.span == span)?;
        Some(
            call.attempts
                .last()
                .map_or(u64::MAX, |a| a.end.unwrap_or(u64::MAX)),
        )
    }

    pub(super) fn forget(&mut self, span: SpanNo) {
        self.open.retain(|c| c.span != span);
    }

    fn by_call_id(&mut self, id: u64) -> Option<&mut Call> {
        self.open
            .iter_mut()
            .find(|c| c.attempts.iter().any(|a| a.call == Some(id)))
    }

    /// The call a retry's attempt `attempt` continues.
    pub(super) fn retried(
        &mut self,
        what: impl Fn(&What) -> bool,
        attempt: u32,
    ) -> Option<&mut Call> {
        self.open.iter_mut().rev().find(|c| {
            c.waiting && what(&c.what) && c.attempts.last().is_some_and(|a| a.n + 1 == attempt)
        })
    }
}

/// How an attempt ended, as its `call_finished` says.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ended {
    pub(super) outcome: CallOutcome,
    pub(super) usage: Option<TokenUsage>,
    pub(super) http_status: Option<u16>,
    /// Served from a recording, at no cost now.
    pub(super) served: bool,
}

impl TraceBuilder {
    /// Fold in a call's event; whether the event was a call's alone.
    pub(super) fn apply_call(&mut self, kind: &EventKind, t: u64) -> bool {
        match kind {
            EventKind::CallStarted {
                call,
                tool,
                attempt,
                label,
                agent,
            } if tool == MODEL_TOOL => {
                self.start_model_call(*call, *attempt, label, agent.as_deref(), t);
            }
            EventKind::CallStarted {
                call,
                tool,
                attempt,
                ..
            } => self.number_worker_call(*call, tool, *attempt),
            // The answer's text only: reasoning is no part of the output,
            // nor are a function call's arguments its text.
            EventKind::CallDelta {
                call,
                text,
                reasoning: false,
                arguments: false,
            } => {
                if self.content
                    && let Some(open) = self.calls.by_call_id(*call)
                    && let Some(last) = open.attempts.last_mut()
                {
                    last.text.push_str(text);
                }
            }
            EventKind::CallFinished {
                call,
                tool,
                outcome,
                usage,
                http_status,
                served,
                ..
            } => {
                let model = tool == MODEL_TOOL;
                let ended = Ended {
                    outcome: *outcome,
                    usage: *usage,
                    http_status: *http_status,
                    served: *served,
                };
                self.finish_attempt(*call, model, ended, t);
            }
            EventKind::CallRejected {
                tool,
                attempt,
                reason,
            } => self.call_rejected(tool, *attempt, reason, t),
            EventKind::RetryScheduled {
                tool,
                task,
                attempt,
                delay_ms,
                after,
            } => self.retry_scheduled(tool, task.as_deref(), *attempt, *delay_ms, after, t),
            other => return self.apply_tool(other, t),
        }
        true
    }

    /// A worker call within an attempt the gateway announced: the attempt
    /// takes the call's number.
    fn number_worker_call(&mut self, call: u64, tool: &str, attempt: u32) {
        if let Some(open) = self.calls.open.iter_mut().rev().find(|c| {
            matches!(&c.what, What::Tool { tool: w, .. } if w == tool)
                && c.attempts
                    .last()
                    .is_some_and(|a| a.n == attempt && a.call.is_none() && a.end.is_none())
        }) && let Some(last) = open.attempts.last_mut()
        {
            last.call = Some(call);
        }
    }

    /// The attempt of call `call` has finished: a model call's attempt
    /// ends here, its call answered or waiting for a retry.
    fn finish_attempt(&mut self, call: u64, model: bool, ended: Ended, t: u64) {
        let Some(open) = self.calls.by_call_id(call) else {
            return;
        };
        let span = open.span;
        let Some(last) = open.attempts.last_mut() else {
            return;
        };
        last.http_status = ended.http_status;
        if !model {
            // The attempt's own event ends it.
            return;
        }
        let outcome = ended.outcome;
        last.end = Some(t);
        last.outcome = Some(wire(&outcome));
        if outcome == CallOutcome::Ok {
            let text = std::mem::take(&mut last.text);
            self.model_answered(span, ended, &text, t);
        } else {
            last.error = Some(outcome_error(outcome));
            open.waiting = true;
            // A recorded failure served again cost nothing either.
            if ended.served {
                self.served_chat(span);
            }
        }
    }

    /// The gateway refused attempt `attempt` of a call to `tool`: an event
    /// on the root, and a refused model call's attempt.
    fn call_rejected(&mut self, tool: &str, attempt: u32, reason: &StopReason, t: u64) {
        let attrs = Attrs::default()
            .with(n::TOOL, tool)
            .with(n::ATTEMPT, attempt)
            .with(n::REASON, reason.to_string());
        let name = match reason {
            StopReason::BulkheadFull { .. } => n::EVENT_BULKHEAD_REJECTED,
            _ => n::EVENT_CALL_REJECTED,
        };
        self.event(super::ROOT, name, t, attrs);
        if tool == MODEL_TOOL {
            self.model_refused(attempt, reason, t);
        }
    }

    /// The gateway will try a call again as attempt `attempt`: the failed
    /// attempt's error, and the retry as an event on the call's span.
    fn retry_scheduled(
        &mut self,
        tool: &str,
        task: Option<&str>,
        attempt: u32,
        delay_ms: u64,
        after: &StopReason,
        t: u64,
    ) {
        let retried = self.calls.retried(
            |w| match (w, task) {
                (What::Model { .. }, None) => tool == MODEL_TOOL,
                (What::Tool { task: k, tool: w }, Some(task)) => k == task && w == tool,
                _ => false,
            },
            attempt,
        );
        if let Some(open) = retried {
            if let Some(last) = open.attempts.last_mut() {
                last.error = Some(error_type(after));
            }
            let span = open.span;
            let attrs = Attrs::default()
                .with(n::ATTEMPT, attempt)
                .with(n::DELAY_MS, delay_ms)
                .with(n::REASON, after.to_string());
            self.event(span, n::EVENT_RETRY, t, attrs);
        }
    }

    /// End the call whose span is `span` at run time `t`: its attempts as
    /// spans of their own when there was more than one, and its failure
    /// when its last attempt failed.
    pub(super) fn close_call(&mut self, span: SpanNo, t: u64) {
        let Some(index) = self.calls.open.iter().position(|c| c.span == span) else {
            self.end(span, t);
            return;
        };
        let call = self.calls.open.remove(index);
        if call.attempts.len() > 1 {
            for attempt in &call.attempts {
                let no =
                    self.open_span(Some(span), format!("attempt {}", attempt.n), attempt.start);
                let child = self.span(no);
                child.attrs.set(n::ATTEMPT, attempt.n);
                if let Some(id) = attempt.call {
                    child.attrs.set(n::CALL_ID, id);
                }
                if let Some(outcome) = &attempt.outcome {
                    child.attrs.set(n::OUTCOME, outcome.clone());
                }
                if let Some(status) = attempt.http_status {
                    child.attrs.set(n::HTTP_STATUS, u32::from(status));
                }
                if let Some(error) = &attempt.error {
                    child.attrs.set(n::ERROR_TYPE, error.clone());
                    child.status = SpanStatus::Error(error.clone());
                }
                self.end(no, attempt.end.unwrap_or(t).min(t));
            }
        }
        let attrs = &mut self.span(span).attrs;
        attrs.set(n::ATTEMPTS, call.attempts.len() as u64);
        if let Some(last) = call.attempts.last() {
            if call.attempts.len() == 1 {
                if let Some(id) = last.call {
                    attrs.set(n::CALL_ID, id);
                }
                if let Some(status) = last.http_status {
                    attrs.set(n::HTTP_STATUS, u32::from(status));
                }
            }
            if let Some(outcome) = &last.outcome {
                attrs.set(n::OUTCOME, outcome.clone());
            }
            if let Some(error) = &last.error {
                attrs.set(n::ERROR_TYPE, error.clone());
                self.span(span).status = SpanStatus::Error(error.clone());
            }
        }
        self.end(span, t);
    }
}

/// `error.type` for a failed attempt known only by its outcome.
pub(super) fn outcome_error(outcome: CallOutcome) -> String {
    match outcome {
        CallOutcome::Timeout => "timeout".into(),
        other => wire(&other),
    }
}
