//! The gateway's worker call path: all the attempts of one task's call, in
//! one loop. It checks the dispatch budget, the execution allowlist and the
//! run's deadline before each attempt, times each attempt, retries a timed
//! out one as 001's gateway does (at once, up to `max_attempts`), and
//! publishes every step. Runners decide which calls to make; they never
//! time or retry one themselves.

use super::Gateway;
use crate::bus::{BudgetKind, CallOutcome, EventKind, GatePoint};
use crate::control::SharedGate;
use crate::provider::WorkerError;
use crate::stop::StopReason;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The shortest timeout an attempt gets, however little time is left: 001
/// gives every attempt at least 0.01 s.
pub const MIN_ATTEMPT_TIMEOUT: Duration = Duration::from_millis(10);

/// One call a runner asks for: task `task` wants `tool` called with `args`.
#[derive(Clone, Copy, Debug)]
pub struct ToolCall<'a> {
    pub task: &'a str,
    pub tool: &'a str,
    pub args: &'a Value,
}

/// How the gateway treats the calls to a tool. The resilience settings
/// still to come (breaker, bulkhead, backoff with jitter, retry budget)
/// belong here, applied in [`Gateway::call_tool`]'s attempt loop.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolPolicy {
    /// Attempts per call, the first included.
    pub max_attempts: u32,
    /// How long one attempt may take, before the run's deadline clips it.
    pub attempt_timeout: Duration,
}

/// What every attempt of every tool call of a run counts against: the
/// dispatch budget, if the run has one, and the run's deadline.
#[derive(Debug)]
pub struct DispatchLimits {
    used: AtomicU64,
    max_dispatches: Option<u64>,
    /// Run time at which `max_seconds` is reached.
    deadline: Duration,
}

impl DispatchLimits {
    pub fn new(max_dispatches: u64, deadline: Duration) -> Self {
        DispatchLimits {
            used: AtomicU64::new(0),
            max_dispatches: Some(max_dispatches),
            deadline,
        }
    }

    /// Limits without a dispatch budget (the swarm's and research's tool
    /// calls): attempts are counted but never refused for their number.
    pub fn without_budget(deadline: Duration) -> Self {
        DispatchLimits {
            used: AtomicU64::new(0),
            max_dispatches: None,
            deadline,
        }
    }

    /// No dispatch budget and no deadline, for calls a pattern bounds by
    /// its own budgets (004's research tools have neither).
    pub fn unmetered() -> Self {
        DispatchLimits::without_budget(Duration::MAX)
    }

    /// Attempts started so far, refused ones included.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Acquire)
    }

    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// Count one attempt; `Err` carries the count when it is over budget.
    /// Counted before the check, as 001 does, so every later attempt is
    /// over budget too.
    fn consume(&self) -> Result<u64, u64> {
        let used = self.used.fetch_add(1, Ordering::AcqRel) + 1;
        if self.max_dispatches.is_some_and(|max| used > max) {
            Err(used)
        } else {
            Ok(used)
        }
    }
}

/// How a call ended after all its attempts.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolReport {
    pub attempts_used: u32,
    /// The worker's observation, or why the last attempt failed.
    pub outcome: Result<Value, StopReason>,
}

impl Gateway {
    /// Run `call` under `policy`: attempt, and try again after a timeout
    /// while attempts remain, passing `gate` before each retry. A timed-out
    /// attempt is cancelled: its worker call is dropped, not left running
    /// (001's thread pool lets it run on and waits for it).
    pub async fn call_tool(
        &self,
        call: ToolCall<'_>,
        policy: &ToolPolicy,
        limits: &DispatchLimits,
        gate: &SharedGate<'_>,
    ) -> ToolReport {
        let mut attempt = 1;
        loop {
            let outcome = self.attempt(call, policy, limits, gate, attempt).await;
            match outcome {
                Err(StopReason::TaskTimeout) if attempt < policy.max_attempts => {
                    // Without a resilience section 001 retries at once.
                    let delay = Duration::ZERO;
                    self.bus.publish(EventKind::RetryScheduled {
                        task: call.task.to_string(),
                        worker: call.tool.to_string(),
                        attempt: attempt + 1,
                        delay_ms: millis(delay),
                        after: StopReason::TaskTimeout,
                    });
                    let at = GatePoint::Retry {
                        task: call.task.to_string(),
                        attempt: attempt + 1,
                    };
                    if gate.pass(at).await.is_err() {
                        return ToolReport {
                            attempts_used: attempt,
                            outcome: Err(StopReason::Cancelled),
                        };
                    }
                    attempt += 1;
                }
                outcome => {
                    return ToolReport {
                        attempts_used: attempt,
                        outcome,
                    };
                }
            }
        }
    }

    /// One attempt, checked in 001's order: dispatch budget, execution
    /// allowlist, time left; then the worker call under its timeout.
    async fn attempt(
        &self,
        call: ToolCall<'_>,
        policy: &ToolPolicy,
        limits: &DispatchLimits,
        gate: &SharedGate<'_>,
        attempt: u32,
    ) -> Result<Value, StopReason> {
        let clock = self.bus.clock();
        let started = clock.elapsed();
        let left = limits.deadline.saturating_sub(started);
        let timeout = policy.attempt_timeout.min(left.max(MIN_ATTEMPT_TIMEOUT));
        self.bus.publish(EventKind::AttemptStarted {
            task: call.task.to_string(),
            worker: call.tool.to_string(),
            attempt,
            max_attempts: policy.max_attempts,
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
            self.worker_call(call, attempt, timeout, started).await
        };
        let outcome = match &result {
            Ok(_) => CallOutcome::Ok,
            Err(StopReason::TaskTimeout) => CallOutcome::Timeout,
            Err(StopReason::Cancelled) => CallOutcome::Cancelled,
            Err(
                StopReason::MaxDispatches
                | StopReason::WorkerDenied { .. }
                | StopReason::MaxSeconds,
            ) => CallOutcome::Refused,
            Err(_) => CallOutcome::Error,
        };
        self.bus.publish(EventKind::AttemptFinished {
            task: call.task.to_string(),
            worker: call.tool.to_string(),
            attempt,
            outcome,
            elapsed_ms: millis(clock.elapsed().saturating_sub(started)),
            reason: result.as_ref().err().cloned(),
        });
        result
    }

    /// The worker call itself, bounded by `timeout` and by cancellation of
    /// the run; either drops the call.
    async fn worker_call(
        &self,
        call: ToolCall<'_>,
        attempt: u32,
        timeout: Duration,
        started: Duration,
    ) -> Result<Value, StopReason> {
        let id = self.next_call_id();
        self.bus.publish(EventKind::CallStarted {
            call: id,
            tool: call.tool.to_string(),
            attempt,
            label: format!("{} · {}", call.task, call.tool),
        });
        let answer =
            tokio::time::timeout(timeout, self.workers.call(call.tool, call.args, started));
        let worker = || call.tool.to_string();
        let result = tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(StopReason::Cancelled),
            answer = answer => match answer {
                Err(_elapsed) => Err(StopReason::TaskTimeout),
                Ok(Ok(observation)) => Ok(observation),
                Ok(Err(WorkerError::BadArgs)) => Err(StopReason::WorkerBadArgs { worker: worker() }),
                Ok(Err(WorkerError::Failed)) => Err(StopReason::WorkerError { worker: worker() }),
                Ok(Err(WorkerError::Missing)) => Err(StopReason::WorkerMissing { worker: worker() }),
            },
        };
        self.bus.publish(EventKind::CallFinished {
            call: id,
            tool: call.tool.to_string(),
            attempt,
            latency_ms: millis(self.bus.clock().elapsed().saturating_sub(started)),
            outcome: match &result {
                Ok(_) => CallOutcome::Ok,
                Err(StopReason::TaskTimeout) => CallOutcome::Timeout,
                Err(StopReason::Cancelled) => CallOutcome::Cancelled,
                Err(_) => CallOutcome::Error,
            },
        });
        result
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{Bus, Delivery, Hub, Subscription};
    use crate::clock::RunClock;
    use crate::control::{Flags, channel};
    use crate::provider::{Provider, SimProvider, SimWorkers};
    use crate::rng::RunRng;
    use crate::scenario::Scenario;
    use serde_json::json;
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;

    fn scenario() -> Arc<Scenario> {
        Arc::new(
            serde_json::from_value(json!({
                "name": "t", "pattern": "orchestrator", "goal": "g", "context": {},
                "provider": {"kind": "sim"},
                "workers": {
                    "slow_worker": {"latency_ms": 60000},
                    "gated_worker": {"latency_ms": 10}
                },
                "flags": {"gate": {"default": false, "workers": ["gated_worker"]}}
            }))
            .unwrap(),
        )
    }

    struct Rig {
        gateway: Gateway,
        workers: Arc<SimWorkers>,
        gate: crate::control::Gate,
        events: Subscription,
    }

    fn rig() -> Rig {
        let hub = Hub::new(1024);
        let events = hub.subscribe();
        let bus = Bus::new(1, RunClock::start(), hub, None);
        let scenario = scenario();
        let rng = RunRng::seeded(0);
        let provider = Arc::new(Provider::Sim(SimProvider::new(
            scenario.provider.clone(),
            rng.clone(),
        )));
        let workers = Arc::new(SimWorkers::new(scenario.workers.clone(), rng));
        let gateway = Gateway::new(
            bus.clone(),
            provider,
            Arc::clone(&workers),
            CancellationToken::new(),
        );
        let (_controller, gate) = channel(Flags::new(scenario, &[]).unwrap(), bus, false);
        Rig {
            gateway,
            workers,
            gate,
            events,
        }
    }

    fn drain(events: &mut Subscription) -> Vec<EventKind> {
        let mut out = Vec::new();
        while let Some(Delivery::Event(e)) = events.try_next() {
            out.push(e.kind.clone());
        }
        out
    }

    const ARGS: &str = r#"{"report_date": "2026-02-26", "region": "US"}"#;

    #[tokio::test(start_paused = true)]
    async fn a_timed_out_attempt_is_dropped_and_retried_at_once() {
        let mut rig = rig();
        let gate = SharedGate::new(&mut rig.gate);
        let args: Value = serde_json::from_str(ARGS).unwrap();
        let call = ToolCall {
            task: "t1",
            tool: "slow_worker",
            args: &args,
        };
        let policy = ToolPolicy {
            max_attempts: 3,
            attempt_timeout: Duration::from_secs(2),
        };
        let limits = DispatchLimits::new(10, Duration::from_secs(100));
        let start = tokio::time::Instant::now();
        let workers = Arc::clone(&rig.workers);
        let watch = async {
            let mut seen = Vec::new();
            for _ in 0..3 {
                tokio::time::sleep(Duration::from_secs(1)).await;
                seen.push(workers.in_flight());
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            seen
        };
        let (report, in_flight) =
            tokio::join!(rig.gateway.call_tool(call, &policy, &limits, &gate), watch);
        assert_eq!(
            in_flight,
            vec![1, 1, 1],
            "never more than the current attempt"
        );
        assert_eq!(rig.workers.in_flight(), 0);
        assert_eq!(start.elapsed(), Duration::from_secs(6), "3 attempts of 2 s");
        assert_eq!(
            report,
            ToolReport {
                attempts_used: 3,
                outcome: Err(StopReason::TaskTimeout)
            }
        );
        assert_eq!(limits.used(), 3);
        let retries: Vec<u32> = drain(&mut rig.events)
            .into_iter()
            .filter_map(|k| match k {
                EventKind::RetryScheduled { attempt, .. } => Some(attempt),
                _ => None,
            })
            .collect();
        assert_eq!(retries, vec![2, 3]);
    }

    #[tokio::test(start_paused = true)]
    async fn refused_attempts_never_reach_the_worker() {
        let mut rig = rig();
        let gate = SharedGate::new(&mut rig.gate);
        let args: Value = serde_json::from_str(ARGS).unwrap();
        let policy = ToolPolicy {
            max_attempts: 2,
            attempt_timeout: Duration::from_secs(2),
        };
        let cases = [
            (
                "gated_worker",
                10,
                100,
                StopReason::WorkerDenied {
                    worker: "gated_worker".into(),
                },
            ),
            ("slow_worker", 0, 100, StopReason::MaxDispatches),
            ("slow_worker", 10, 0, StopReason::MaxSeconds),
        ];
        for (tool, budget, seconds, want) in cases {
            let limits = DispatchLimits::new(budget, Duration::from_secs(seconds));
            let call = ToolCall {
                task: "t1",
                tool,
                args: &args,
            };
            let report = rig.gateway.call_tool(call, &policy, &limits, &gate).await;
            assert_eq!(report.outcome, Err(want.clone()));
            assert_eq!(report.attempts_used, 1, "{want} is not retried");
            let events = drain(&mut rig.events);
            assert!(
                !events
                    .iter()
                    .any(|k| matches!(k, EventKind::CallStarted { .. })),
                "{want}: {events:?}"
            );
            assert!(events.iter().any(|k| matches!(
                k,
                EventKind::AttemptFinished {
                    outcome: CallOutcome::Refused,
                    ..
                }
            )));
        }
    }
}
