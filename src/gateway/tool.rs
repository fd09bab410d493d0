//! The gateway's tool call path: all the attempts of one call, in one
//! loop. Before each attempt it checks the dispatch budget, the execution
//! allowlist and the run's deadline (001's order); each attempt then passes
//! the tool's shield (breaker, bulkhead) and runs under its timeout; a
//! failed one is retried as the call's retry rule says (001's: a timeout,
//! at once), behind a retry gate. Safe mode judges a call that failed fast.
//! Runners decide which calls to make; they never time or retry one.

use super::limits::DispatchLimits;
use super::retry::{Failure, Next};
use super::safe_mode::SafeModeVerdict;
use super::served::Noted;
use super::shield::ToolShield;
use super::{CallDetails, Gateway, Shielded, millis};
use crate::bus::cassette::CallRecord;
use crate::bus::{BudgetKind, CallOutcome, EventKind, GatePoint};
use crate::control::SharedGate;
use crate::provider::WorkerError;
use crate::stop::StopReason;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// The shortest timeout an attempt gets, however little time is left: 001
/// gives every attempt at least 0.01 s.
pub(crate) const MIN_ATTEMPT_TIMEOUT: Duration = Duration::from_millis(10);

/// The longest a real worker's call may take when the scenario chose no
/// timeout for it (DESIGN.md: 10 s).
pub(crate) const REAL_CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// One call a runner asks for: `task` wants `tool` called with `args`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ToolCall<'a> {
    /// What the call is for (an orchestrator task's id, a swarm agent's
    /// turn): named in its events and its retry gate.
    pub(crate) task: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) args: &'a Value,
    /// Whether the run cannot go on without this call: safe mode never
    /// skips a critical call.
    pub(crate) critical: bool,
}

/// How the calling pattern itself treats calls to a tool: its own retry
/// rule and timeout. A `resilience` section replaces either for the tools
/// it covers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ToolPolicy {
    /// Attempts per call, the first included; only a timed-out attempt is
    /// tried again, at once (001).
    pub(crate) max_attempts: u32,
    /// How long one attempt may take, before the run's deadline clips it.
    pub(crate) attempt_timeout: Duration,
    /// Where `attempt_timeout` comes from, which decides what a real
    /// call gets.
    pub(crate) timeout_from: TimeoutFrom,
}

/// Where a pattern's per-attempt timeout comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeoutFrom {
    /// The scenario set it: real calls keep it too.
    Scenario,
    /// The pattern's default, tuned to its simulated workers (001's 2 s):
    /// a real call gets [`REAL_CALL_TIMEOUT`] instead.
    PatternDefault,
    /// The time left before a deadline, or none at all: a real call gets
    /// at most [`REAL_CALL_TIMEOUT`].
    Deadline,
}

/// How a call ended after all its attempts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ToolReport {
    pub(crate) attempts_used: u32,
    /// The worker's observation, or why the last attempt failed.
    pub(crate) outcome: Result<Value, StopReason>,
    /// What safe mode made of a call that failed fast: skipped (the run
    /// goes on, partial) or a reason to stop the run early.
    pub(crate) safe_mode: Option<SafeModeVerdict>,
    /// The observation is the tool's last good answer, served because the
    /// call failed fast (`last_known_good`).
    pub(crate) stale: bool,
}

impl Gateway {
    /// Run `call`: attempt, and try again while its retry rule allows,
    /// waiting out the backoff and passing `gate` before each retry. A
    /// timed-out attempt is cancelled: its call is dropped, not left
    /// running (001's thread pool lets it run on and waits for it).
    pub(crate) async fn call_tool(
        &self,
        call: ToolCall<'_>,
        policy: &ToolPolicy,
        limits: &DispatchLimits,
        gate: &SharedGate<'_>,
    ) -> ToolReport {
        let shield = self.shields.tool(call.tool);
        let mut retrier = self.retrier(&shield, policy.max_attempts);
        self.shields.first_call();
        let mut attempt = 1;
        loop {
            let at = Attempt {
                shield: &shield,
                attempt,
                max_attempts: retrier.max_attempts(),
            };
            let reason = match self.attempt(call, at, policy, limits, gate).await {
                Ok(observation) => {
                    if let Some(store) = &self.last_good {
                        store.remember(call.tool, call.args, &observation);
                    }
                    return ToolReport {
                        attempts_used: attempt,
                        outcome: Ok(observation),
                        safe_mode: None,
                        stale: false,
                    };
                }
                Err(reason) => reason,
            };
            let next = retrier.next(
                attempt,
                Failure::of(&reason),
                self.shields.budget(),
                &self.shields.rng,
            );
            let reason = match next {
                Next::Retry(delay) => {
                    self.bus.publish(EventKind::RetryScheduled {
                        tool: call.tool.to_string(),
                        task: Some(call.task.to_string()),
                        attempt: attempt + 1,
                        delay_ms: millis(delay),
                        after: reason,
                    });
                    let at = GatePoint::Retry {
                        task: call.task.to_string(),
                        attempt: attempt + 1,
                    };
                    if self.back_off(delay).await.is_err() || gate.pass(at).await.is_err() {
                        return ToolReport {
                            attempts_used: attempt,
                            outcome: Err(StopReason::Cancelled),
                            safe_mode: None,
                            stale: false,
                        };
                    }
                    attempt += 1;
                    continue;
                }
                Next::GiveUp => reason,
                Next::OverBudget => {
                    let over = StopReason::RetryBudgetExhausted;
                    shield.reject(attempt + 1, &over);
                    over
                }
            };
            if let Some(answer) = self.fallback(call, &reason) {
                return ToolReport {
                    attempts_used: attempt,
                    outcome: Ok(answer),
                    safe_mode: None,
                    stale: true,
                };
            }
            return ToolReport {
                attempts_used: attempt,
                safe_mode: self.shields.judge(call.tool, call.critical, &reason),
                outcome: Err(reason),
                stale: false,
            };
        }
    }

    /// The tool's last good answer to the call's arguments, for a call that
    /// failed fast with `reason` while safe mode falls back to them; it is
    /// published as served.
    fn fallback(&self, call: ToolCall<'_>, reason: &StopReason) -> Option<Value> {
        let store = self.last_good.as_ref()?;
        if !reason.is_fail_fast() || !self.shields.safe_mode_on() {
            return None;
        }
        let answer = store.recall(call.tool, call.args)?;
        self.bus.publish(EventKind::FallbackServed {
            tool: call.tool.to_string(),
            task: Some(call.task.to_string()),
            after: reason.clone(),
        });
        Some(answer)
    }

    /// One attempt, checked in 001's order: dispatch budget, execution
    /// allowlist, time left; then the call behind the tool's shield.
    async fn attempt(
        &self,
        call: ToolCall<'_>,
        at: Attempt<'_>,
        policy: &ToolPolicy,
        limits: &DispatchLimits,
        gate: &SharedGate<'_>,
    ) -> Result<Value, StopReason> {
        let clock = self.bus.clock();
        let started = clock.elapsed();
        let left = limits.deadline.saturating_sub(started);
        let own_timeout = self.attempt_timeout(call.tool, at.shield, policy);
        let timeout = own_timeout.min(left.max(MIN_ATTEMPT_TIMEOUT));
        self.bus.publish(EventKind::AttemptStarted {
            task: call.task.to_string(),
            worker: call.tool.to_string(),
            attempt: at.attempt,
            max_attempts: at.max_attempts,
            timeout_ms: millis(timeout),
        });
        let used = limits.consume();
        if let Some(limit) = limits.max_dispatches {
            self.bus.publish(EventKind::BudgetConsumed {
                budget: BudgetKind::Dispatches,
                used: used.unwrap_or_else(|over| over),
                limit,
            });
        }
        let result = if used.is_err() {
            Err(StopReason::MaxDispatches)
        } else if !gate.allows(call.tool) {
            Err(StopReason::WorkerDenied {
                worker: call.tool.to_string(),
            })
        } else if left.is_zero() {
            Err(StopReason::MaxSeconds)
        } else {
            self.worker_call(call, &at, timeout).await
        };
        let outcome = match &result {
            Ok(_) => CallOutcome::Ok,
            Err(StopReason::TaskTimeout) => CallOutcome::Timeout,
            Err(StopReason::Cancelled) => CallOutcome::Cancelled,
            Err(
                StopReason::MaxDispatches
                | StopReason::WorkerDenied { .. }
                | StopReason::MaxSeconds
                | StopReason::CircuitOpen { .. }
                | StopReason::BulkheadFull { .. },
            ) => CallOutcome::Refused,
            Err(_) => CallOutcome::Error,
        };
        self.bus.publish(EventKind::AttemptFinished {
            task: call.task.to_string(),
            worker: call.tool.to_string(),
            attempt: at.attempt,
            outcome,
            elapsed_ms: millis(clock.elapsed().saturating_sub(started)),
            reason: result.as_ref().err().cloned(),
        });
        result
    }

    /// The worker call itself, behind the tool's shield, bounded by
    /// `timeout` and by cancellation of the run; either drops the call.
    async fn worker_call(
        &self,
        call: ToolCall<'_>,
        at: &Attempt<'_>,
        timeout: Duration,
    ) -> Result<Value, StopReason> {
        let noted = &Noted::default();
        let answer = |started, _text| async move {
            // On the run clock, as the sim takes its time: a pause does
            // not time a call out.
            let clock = self.bus.clock();
            let answered = clock
                .timeout(timeout, self.tool_answer(call, started, noted))
                .await;
            noted.ended(clock.elapsed(), None);
            match answered {
                // A served call that never answered is timed out too.
                None | Some(None) => Err(Failed::from(StopReason::TaskTimeout)),
                Some(Some(Ok(observation))) => Ok(observation),
                Some(Some(Err(error))) => Err(Failed::worker(call.tool, error)),
            }
        };
        let outcome_of = |result: &Result<Value, Failed>| match result {
            Ok(_) => CallOutcome::Ok,
            Err(failed) => match failed.reason {
                StopReason::TaskTimeout => CallOutcome::Timeout,
                StopReason::Cancelled => CallOutcome::Cancelled,
                _ => CallOutcome::Error,
            },
        };
        let details_of = |result: &Result<Value, Failed>| {
            let asked = CallRecord {
                purpose: None,
                prompt_sha256: None,
                span_ms: None,
                ended_us: None,
                args: Some(call.args.clone()),
                answer: None,
            };
            let (record, served) = noted.take(asked);
            let details = CallDetails {
                record,
                served,
                latency: noted.recorded_latency(),
                ..CallDetails::default()
            };
            match result {
                Ok(_) => details,
                Err(failed) => CallDetails {
                    error: failed.detail.clone(),
                    http_status: failed.http_status,
                    ..details
                },
            }
        };
        let shielded = Shielded {
            shield: at.shield,
            attempt: at.attempt,
            label: format!("{} · {}", call.task, call.tool),
            agent: None,
        };
        self.guarded(shielded, answer, Failed::from, outcome_of, details_of)
            .await
            .map_err(|failed| failed.reason)
    }

    /// How long one attempt at `tool` may take: the resilience section's
    /// timeout for it, else the pattern's; a real call the scenario set no
    /// timeout for gets [`REAL_CALL_TIMEOUT`], since nothing else would
    /// bound a hung endpoint or program.
    fn attempt_timeout(&self, tool: &str, shield: &ToolShield, policy: &ToolPolicy) -> Duration {
        if let Some(ms) = shield.settings.timeout_ms {
            return crate::duration::clamp_millis(ms);
        }
        if !self.workers.is_real(tool) {
            return policy.attempt_timeout;
        }
        match policy.timeout_from {
            TimeoutFrom::Scenario => policy.attempt_timeout,
            TimeoutFrom::PatternDefault => REAL_CALL_TIMEOUT,
            TimeoutFrom::Deadline => policy.attempt_timeout.min(REAL_CALL_TIMEOUT),
        }
    }
}

/// Why a worker call failed: the reason the run sees, and what the
/// call's event says of it.
#[derive(Clone, Debug)]
struct Failed {
    reason: StopReason,
    detail: Option<String>,
    http_status: Option<u16>,
}

impl Failed {
    fn worker(tool: &str, error: WorkerError) -> Self {
        let worker = tool.to_string();
        match error {
            WorkerError::BadArgs => StopReason::WorkerBadArgs { worker }.into(),
            WorkerError::Missing => StopReason::WorkerMissing { worker }.into(),
            WorkerError::Failed {
                detail,
                http_status,
            } => Failed {
                reason: StopReason::WorkerError { worker },
                detail,
                http_status,
            },
            WorkerError::BadResult { detail } => Failed {
                reason: StopReason::WorkerBadResult { worker },
                detail: Some(detail),
                http_status: None,
            },
        }
    }
}

impl From<StopReason> for Failed {
    fn from(reason: StopReason) -> Self {
        Failed {
            reason,
            detail: None,
            http_status: None,
        }
    }
}

impl From<super::Cancelled> for Failed {
    fn from(_: super::Cancelled) -> Self {
        StopReason::Cancelled.into()
    }
}

/// Which attempt of a call, behind which shield.
struct Attempt<'a> {
    shield: &'a Arc<ToolShield>,
    attempt: u32,
    max_attempts: u32,
}
