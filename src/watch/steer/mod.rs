//! Steering other frameworks' runs: a hook inside the traced process
//! (`hooks/python`, or any client of the protocol in docs/steer.md)
//! names its run by its trace id, declares flags, waits at gates, asks
//! approval of tool calls and a person's answers, and learns of a stop.
//! The [`Board`] (`state`, pure) holds each run's steering: the hook's
//! side in `hook_side` (what is answered at once in `arrive`), the
//! steerer's in `steerer`, what is refused in `bounds`; [`Steering`]
//! shares it between the HTTP side (`serve`, on the receiver's listener)
//! and a steerer in-process (the dashboard), and wakes long polls when
//! something changed. A finished run's steering ([`SteerSummary`]) goes
//! into its summary and recording.

mod arrive;
mod bounds;
mod hook_side;
#[cfg(test)]
mod long_poll_tests;
pub(crate) mod marks;
pub mod protocol;
#[cfg(test)]
mod refusal_tests;
pub mod replayed;
pub mod serve;
pub mod state;
mod steerer;
#[cfg(test)]
mod tests;
mod views;
pub(crate) mod words;

pub use protocol::{Answer, Ask, ControlOp, ControlRequest, Decision, HookOp, HookRequest};
pub use protocol::{Refused, Ruling, RunView};
pub use state::{Board, Limits, Pace, Policy, Reply, SteerSummary, Timed};

use crate::span::TraceId;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// The largest steering request body.
pub const MAX_BODY: usize = 64 * 1024;

/// One watch's steering, shared.
#[derive(Debug)]
pub struct Steering {
    board: Mutex<Board>,
    /// Bumped on every change a waiting hook may care about.
    changed: watch::Sender<u64>,
}

/// What a hook's call came to: an answer with the flags, or still
/// waiting (ask again with `poll`).
#[derive(Clone, Debug, PartialEq)]
pub enum HookAnswer {
    Now(Answer, BTreeMap<String, bool>),
    Waiting(u64),
    Flags(BTreeMap<String, bool>),
}

impl Steering {
    pub fn new(limits: Limits, policy: Policy) -> Arc<Steering> {
        Arc::new(Steering {
            board: Mutex::new(Board::new(limits, policy)),
            changed: watch::channel(0).0,
        })
    }

    fn board(&self) -> MutexGuard<'_, Board> {
        // A panic while the board was held leaves it as it was: go on.
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn changed(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A hook's call: answered at once, or held until decided or
    /// `wait` (capped at the heartbeat) has passed.
    pub async fn hook(&self, request: HookRequest) -> Result<HookAnswer, Refused> {
        request.check()?;
        let trace = protocol::trace_of(&request.trace_id)?;
        let session = request.session;
        let now = Instant::now();
        if request.passed > 0 {
            self.board().passed(trace, &session, request.passed, now)?;
        }
        let heartbeat = self.board().limits().heartbeat;
        let wait = request
            .wait_ms
            .map_or(heartbeat, Duration::from_millis)
            .min(heartbeat);
        let ask = match request.op {
            HookOp::Declare { flags } => {
                let flags = self.board().declare(trace, &session, flags, now)?;
                // A new run or new flags: a viewer lists them.
                self.changed();
                return Ok(HookAnswer::Flags(flags));
            }
            HookOp::Poll { id } => return self.wait(trace, &session, id, wait).await,
            HookOp::Lease { epoch } => {
                let wait = if epoch.is_some() {
                    wait
                } else {
                    Duration::ZERO
                };
                return self.lease(trace, &session, epoch, wait).await;
            }
            HookOp::Gate {
                kind,
                name,
                agent,
                arguments,
            } => Ask::Gate {
                kind,
                name,
                agent,
                arguments,
            },
            HookOp::Approval {
                tool,
                agent,
                arguments,
            } => Ask::Approval {
                tool,
                agent,
                arguments,
            },
            HookOp::Question {
                question,
                options,
                agent,
            } => Ask::Question {
                question,
                options,
                agent,
            },
        };
        let reply = {
            let mut board = self.board();
            board.expire(now);
            board.arrive(trace, &session, ask, now)?
        };
        // Something waits, or a gate was counted: a viewer lists it.
        self.changed();
        match reply {
            Reply::Now(answer, flags) => Ok(HookAnswer::Now(answer, flags)),
            Reply::Wait(id) => self.wait(trace, &session, id, wait).await,
        }
    }

    /// Hold the wait `id` until it is decided or `wait` has passed.
    async fn wait(
        &self,
        trace: TraceId,
        session: &str,
        id: u64,
        wait: Duration,
    ) -> Result<HookAnswer, Refused> {
        let mut changes = self.changed.subscribe();
        let deadline = Instant::now() + wait;
        loop {
            changes.borrow_and_update();
            let reply = self.board().poll(trace, session, id, Instant::now())?;
            if let Reply::Now(answer, flags) = reply {
                return Ok(HookAnswer::Now(answer, flags));
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => continue,
                Ok(Err(_)) | Err(_) => return Ok(HookAnswer::Waiting(id)),
            }
        }
    }

    /// Renew a lease; from the `epoch` a hook saw, held up to `wait`
    /// while the run runs on unchanged (then `go` again), answered as soon
    /// as it is paused, stopped or a flag is set: a hook long polling so
    /// learns of a pause at once, without a round trip per gate.
    async fn lease(
        &self,
        trace: TraceId,
        session: &str,
        epoch: Option<u64>,
        wait: Duration,
    ) -> Result<HookAnswer, Refused> {
        let mut changes = self.changed.subscribe();
        let deadline = Instant::now() + wait;
        loop {
            changes.borrow_and_update();
            let now = Instant::now();
            let seen = if now >= deadline { None } else { epoch };
            if let Some((answer, flags)) = self.board().lease(trace, session, seen, now)? {
                return Ok(HookAnswer::Now(answer, flags));
            }
            // A closed channel cannot be: this holds its sender.
            let _ = tokio::time::timeout_at(deadline, changes.changed()).await;
        }
    }

    /// A steerer's call.
    pub fn control(&self, request: ControlRequest) -> Result<(), Refused> {
        request.check()?;
        let trace = request
            .trace_id
            .as_deref()
            .map(protocol::trace_of)
            .transpose()?;
        let need = || trace.ok_or_else(|| Refused::Bad("trace_id: this op needs one".into()));
        let now = Instant::now();
        let mut board = self.board();
        board.expire(now);
        let done = match request.op {
            ControlOp::Pause => board.pause(trace, now),
            ControlOp::RunOn => board.run_on(trace, now),
            ControlOp::Step { gates } => board.step(need()?, gates, now),
            ControlOp::SetFlag { name, on } => board.set_flag(need()?, &name, on, now),
            ControlOp::Approve {
                id,
                arguments,
                for_the_run,
            } => {
                let ruling = Ruling::Approve {
                    arguments,
                    for_the_run,
                };
                board.decide_approval(need()?, id, ruling, now)
            }
            ControlOp::Reject { id, reason } => {
                board.decide_approval(need()?, id, Ruling::Reject(reason), now)
            }
            ControlOp::Answer { id, text } => board.answer(need()?, id, text, now),
            ControlOp::Stop { reason } => {
                let reason = reason.unwrap_or_else(|| "stopped by a person".to_string());
                board.stop(need()?, reason, now)
            }
            ControlOp::SetBreak { name, on } => {
                board.set_break(&name, on);
                Ok(())
            }
        };
        drop(board);
        self.changed();
        done
    }

    /// The breakpoints every run pauses at.
    pub fn breaks(&self) -> Vec<String> {
        self.board().breaks().iter().cloned().collect()
    }

    /// Whether a pause of every run holds each new run too.
    pub fn holds_new(&self) -> bool {
        self.board().holds_new()
    }

    /// Every steered run and what waits in it.
    pub fn list(&self) -> Vec<RunView> {
        let now = Instant::now();
        let mut board = self.board();
        board.expire(now);
        board.list(now)
    }

    /// The list once it differs from the one seen at `after` (a change
    /// number), or after `wait` (capped at the heartbeat): the change
    /// number now and the runs. No `after`: at once.
    pub async fn list_after(&self, after: Option<u64>, wait: Duration) -> (u64, Vec<RunView>) {
        if let Some(after) = after {
            let wait = wait.min(self.board().limits().heartbeat);
            let mut changes = self.changed.subscribe();
            let _ = tokio::time::timeout(wait, changes.wait_for(|n| *n != after)).await;
        }
        let version = *self.changed.borrow();
        (version, self.list())
    }

    /// The decisions of run `trace` from the `from`th on.
    pub fn decisions(&self, trace: TraceId, from: usize) -> Vec<Timed> {
        self.board().decisions(trace, from)
    }

    /// A receiver of change notices, for a viewer that redraws the list.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// The steering of the finished run `trace`, taken out.
    pub fn finish(&self, trace: TraceId) -> Option<SteerSummary> {
        self.board().finish(trace)
    }
}
