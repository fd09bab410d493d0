//! The dispatch stage: runs the plan's tasks through the gateway, at most
//! `max_parallel` at once, starting queued tasks in plan order as slots
//! free up, each start of a batch behind a wave gate. It decides what runs
//! and when; the gateway times and retries each call. Like 001's
//! `dispatch_parallel`, it waits for the tasks until the run's deadline
//! (at least 0.01 s) and stops the run with `max_seconds` past it.

use super::result::TaskRecord;
use crate::bus::{Bus, EventKind, GatePoint};
use crate::control::SharedGate;
use crate::gateway::{
    DispatchLimits, Gateway, MIN_ATTEMPT_TIMEOUT, SafeModeVerdict, ToolCall, ToolPolicy, ToolReport,
};
use crate::patterns::events::PatternEvent;
use crate::patterns::in_flight::InFlight;
use crate::patterns::orchestrator::events::TaskEvent;
use crate::patterns::orchestrator::events::{PlannedTask, TaskStatus};
use crate::pycompat::args_hash;
use crate::stop::StopReason;
use std::future::Future;
use std::pin::{Pin, pin};

/// Why a dispatch stopped before its tasks were all done, and the tasks
/// that had finished: kept when safe mode stopped the run (003's early
/// stop still reports what was done), empty on any other stop, as 001
/// reports none.
#[derive(Debug)]
pub(super) struct DispatchStop {
    pub(super) reason: StopReason,
    pub(super) finished: Vec<TaskRecord>,
}

/// How the dispatch loop ended early: a stop of the run, or safe mode's.
enum Halt {
    Run(StopReason),
    SafeMode(StopReason),
}

impl From<StopReason> for Halt {
    fn from(reason: StopReason) -> Self {
        Halt::Run(reason)
    }
}

/// What a dispatch needs from its run.
#[derive(Clone, Copy)]
pub(super) struct Dispatcher<'a> {
    pub(crate) gateway: &'a Gateway,
    pub(crate) bus: &'a Bus,
    pub(crate) gate: &'a SharedGate<'a>,
    pub(crate) limits: &'a DispatchLimits,
    pub(crate) policy: &'a ToolPolicy,
    pub(crate) max_parallel: usize,
}

impl<'a> Dispatcher<'a> {
    /// Run every task; their records in plan order, or why the dispatch
    /// stopped (`max_seconds`, `cancelled`, safe mode's reason).
    pub(super) async fn run(
        self,
        tasks: &'a [PlannedTask],
    ) -> Result<Vec<TaskRecord>, DispatchStop> {
        let mut records: Vec<Option<TaskRecord>> = vec![None; tasks.len()];
        // tokio's cooperative budget would make some ready tasks wait for
        // a later poll at the same instant, out of plan order.
        let ended = tokio::task::unconstrained(self.run_constrained(tasks, &mut records)).await;
        let finished = records.into_iter().flatten();
        match ended {
            Ok(()) => Ok(finished.collect()),
            Err(Halt::SafeMode(reason)) => Err(DispatchStop {
                reason,
                finished: finished.collect(),
            }),
            Err(Halt::Run(reason)) => Err(DispatchStop {
                reason,
                finished: Vec::new(),
            }),
        }
    }

    async fn run_constrained(
        self,
        tasks: &'a [PlannedTask],
        records: &mut [Option<TaskRecord>],
    ) -> Result<(), Halt> {
        let clock = self.bus.clock();
        let started = clock.elapsed();
        let deadline = self.limits.deadline();
        if started >= deadline {
            return Err(StopReason::MaxSeconds.into());
        }
        let end = started + (deadline - started).max(MIN_ATTEMPT_TIMEOUT);
        for task in tasks {
            self.bus.publish(EventKind::Pattern(PatternEvent::Tasks(
                TaskEvent::TaskQueued {
                    task: task.id.clone(),
                    worker: task.worker.clone(),
                    critical: task.critical,
                    max_attempts: self
                        .gateway
                        .max_attempts(&task.worker, self.policy.max_attempts),
                },
            )));
        }

        let mut running = InFlight::new(tasks.len());
        let mut next = 0;
        let mut wave = 0;
        let mut out_of_time = pin!(clock.sleep_until(end));
        loop {
            if next < tasks.len() && running.len() < self.max_parallel {
                wave += 1;
                // Tasks in flight go on while the run is held at this gate.
                let mut gate = pin!(self.gate.pass(GatePoint::Wave { wave }));
                loop {
                    tokio::select! {
                        biased;
                        passed = &mut gate => {
                            passed.map_err(|_| StopReason::Cancelled)?;
                            break;
                        }
                        ended = running.next_batch(), if !running.is_empty() => {
                            self.settle(tasks, ended, records)?;
                        }
                    }
                }
                let mut started = Vec::new();
                while running.len() < self.max_parallel && next < tasks.len() {
                    running.push(next, self.call(&tasks[next]));
                    started.push(tasks[next].id.clone());
                    next += 1;
                }
                // Published before any of the wave's attempts runs.
                self.bus.publish(EventKind::Pattern(PatternEvent::Tasks(
                    TaskEvent::WaveStarted {
                        wave,
                        tasks: started,
                    },
                )));
            }
            if running.is_empty() {
                break;
            }
            tokio::select! {
                biased;
                ended = running.next_batch() => self.settle(tasks, ended, records)?,
                () = &mut out_of_time => return Err(StopReason::MaxSeconds.into()),
            }
        }
        Ok(())
    }

    fn call(self, task: &'a PlannedTask) -> Pin<Box<dyn Future<Output = ToolReport> + Send + 'a>> {
        let call = ToolCall {
            task: &task.id,
            tool: &task.worker,
            args: &task.args,
            critical: task.critical,
        };
        Box::pin(
            self.gateway
                .call_tool(call, self.policy, self.limits, self.gate),
        )
    }

    /// Record the tasks that ended. A call safe mode says stops the run
    /// (a fast failure without partial results) ends the dispatch with its
    /// reason.
    fn settle(
        self,
        tasks: &[PlannedTask],
        ended: Vec<(usize, ToolReport)>,
        records: &mut [Option<TaskRecord>],
    ) -> Result<(), Halt> {
        for (index, report) in ended {
            if report.outcome == Err(StopReason::Cancelled) {
                return Err(StopReason::Cancelled.into());
            }
            let task = &tasks[index];
            let stop_run = report.safe_mode == Some(SafeModeVerdict::StopRun);
            let (status, observation, stop_reason) = match report.outcome {
                Ok(observation) => (TaskStatus::Done, Some(observation), None),
                Err(reason) => (TaskStatus::Failed, None, Some(reason)),
            };
            self.bus.publish(EventKind::Pattern(PatternEvent::Tasks(
                TaskEvent::TaskFinished {
                    task: task.id.clone(),
                    worker: task.worker.clone(),
                    status,
                    attempts_used: report.attempts_used,
                    stop_reason: stop_reason.clone(),
                    result: observation.as_ref().and_then(|o| o.get("result").cloned()),
                },
            )));
            records[index] = Some(TaskRecord {
                task_id: task.id.clone(),
                worker: task.worker.clone(),
                critical: task.critical,
                status,
                attempts_used: report.attempts_used,
                retried: report.attempts_used > 1,
                args_hash: args_hash(&task.args),
                observation,
                stop_reason: stop_reason.clone(),
                stale: report.stale,
            });
            if let (true, Some(reason)) = (stop_run, stop_reason) {
                return Err(Halt::SafeMode(reason));
            }
        }
        Ok(())
    }
}
