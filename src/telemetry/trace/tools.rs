//! Worker and tool calls as `execute_tool <tool>` spans, from the
//! gateway's attempt events: a call opens at its first attempt, goes on
//! through the retries announced for it and ends with its last attempt,
//! under the wave, turn or step that asked for it.

use super::calls::{Attempt, Call, What, outcome_error};
use super::{ROOT, TraceBuilder, error_type, wire};
use crate::bus::{CallOutcome, EventKind};
use crate::stop::StopReason;
use crate::telemetry::names as n;
use crate::telemetry::span::{Attrs, SpanNo};

impl TraceBuilder {
    /// Fold in a tool call's event; whether the event was a call's alone.
    pub(super) fn apply_tool(&mut self, kind: &EventKind, t: u64) -> bool {
        match kind {
            EventKind::AttemptStarted {
                task,
                worker,
                attempt,
                max_attempts,
                ..
            } => self.attempt_started(task, worker, *attempt, *max_attempts, t),
            EventKind::AttemptFinished {
                task,
                worker,
                attempt,
                outcome,
                reason,
                ..
            } => self.attempt_finished(task, worker, *attempt, *outcome, reason.as_ref(), t),
            EventKind::FallbackServed { tool, task, after } => {
                self.fallback_served(tool, task.as_deref(), after, t);
            }
            _ => return false,
        }
        true
    }

    /// Attempt `attempt` of `worker` for `task` starts: a retry of the
    /// call waiting for it, or a call of its own under what asked for it.
    fn attempt_started(
        &mut self,
        task: &str,
        worker: &str,
        attempt: u32,
        max_attempts: u32,
        t: u64,
    ) {
        let what = What::Tool {
            task: task.to_owned(),
            tool: worker.to_owned(),
        };
        let started = Attempt {
            n: attempt,
            start: t,
            ..Attempt::default()
        };
        if attempt > 1
            && let Some(open) = self.calls.retried(|w| *w == what, attempt)
        {
            open.waiting = false;
            open.attempts.push(started);
            return;
        }
        self.close_waiting(|w| *w == what);
        let parent = self.tool_parent(task);
        let span = self.open_span(Some(parent), format!("{} {worker}", n::OP_EXECUTE_TOOL), t);
        let attrs = &mut self.span(span).attrs;
        attrs.set(n::OPERATION_NAME, n::OP_EXECUTE_TOOL);
        attrs.set(n::TOOL_NAME, worker);
        attrs.set(n::TASK, task);
        attrs.set(n::MAX_ATTEMPTS, max_attempts);
        self.calls.open.push(Call {
            span,
            what,
            attempts: vec![started],
            waiting: false,
        });
    }

    /// Attempt `attempt` of `worker` for `task` ended: a success ends its
    /// call, a failure leaves the call waiting for a retry.
    fn attempt_finished(
        &mut self,
        task: &str,
        worker: &str,
        attempt: u32,
        outcome: CallOutcome,
        reason: Option<&StopReason>,
        t: u64,
    ) {
        let found = self.calls.open.iter_mut().rev().find(|c| {
            matches!(&c.what, What::Tool { task: k, tool: w } if k == task && w == worker)
                && c.attempts
                    .last()
                    .is_some_and(|a| a.n == attempt && a.end.is_none())
        });
        let Some(open) = found else {
            return;
        };
        let span = open.span;
        let Some(last) = open.attempts.last_mut() else {
            return;
        };
        last.end = Some(t);
        last.outcome = Some(wire(&outcome));
        if outcome == CallOutcome::Ok {
            self.close_call(span, t);
        } else {
            last.error = Some(match reason {
                Some(reason) => error_type(reason),
                None => outcome_error(outcome),
            });
            open.waiting = true;
        }
    }

    /// Task `task` is over: the latest call of `worker` for it takes the
    /// task's status and ends at its last attempt's end. The pattern whose
    /// task it was says so, as it decides what else the task's end closes.
    pub(super) fn tool_task_finished(&mut self, task: &str, worker: &str, status: &str, t: u64) {
        let found = self.calls.open.iter().rev().find(
            |c| matches!(&c.what, What::Tool { task: k, tool: w } if k == task && w == worker),
        );
        if let Some(span) = found.map(|c| c.span) {
            self.span(span).attrs.set(n::TASK_STATUS, status);
            let end = self.calls.last_end(span).map_or(t, |e| e.min(t));
            self.close_call(span, end);
        }
    }

    /// A fallback answered for `tool` after `after`: an event on the
    /// task's call, else on the root.
    fn fallback_served(&mut self, tool: &str, task: Option<&str>, after: &StopReason, t: u64) {
        let span = self
            .calls
            .open
            .iter()
            .rev()
            .find(|c| match (&c.what, task) {
                (What::Tool { task: k, tool: w }, Some(task)) => k == task && w == tool,
                _ => false,
            })
            .map_or(ROOT, |c| c.span);
        let attrs = Attrs::default()
            .with(n::TOOL, tool)
            .with(n::REASON, after.to_string());
        self.event(span, n::EVENT_FALLBACK, t, attrs);
    }

    /// End the waiting calls `what` picks, each at its last attempt's end.
    fn close_waiting(&mut self, what: impl Fn(&What) -> bool) {
        let waiting: Vec<(SpanNo, u64)> = self
            .calls
            .open
            .iter()
            .filter(|c| c.waiting && what(&c.what))
            .filter_map(|c| Some((c.span, self.calls.last_end(c.span)?)))
            .collect();
        for (span, end) in waiting {
            self.close_call(span, end);
        }
    }
}
