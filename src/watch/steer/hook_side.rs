//! The hook's side of the board: declare flags, reach a gate, ask
//! approval or a question, count the gates passed under a lease, renew a
//! lease, ask again about a wait. What is answered at once is `arrive`'s
//! (`RunSteer::answer_now`); what waits is queued here.

use super::protocol::{Answer, Ask, Decision, FlagDecl, Refused};
use super::state::{Board, Flag, Pace, Reply, Waiting, millis};
use crate::span::TraceId;
use std::collections::BTreeMap;
use tokio::time::Instant;

/// A lease's answer and the run's flags.
type Renewal = (Answer, BTreeMap<String, bool>);

impl Board {
    /// A hook declares its flags: their values now (a `--flag` over a
    /// default, a person's setting over both).
    pub fn declare(
        &mut self,
        trace: TraceId,
        session: &str,
        flags: Vec<FlagDecl>,
        now: Instant,
    ) -> Result<BTreeMap<String, bool>, Refused> {
        let max = self.limits.max_flags;
        let policy = self.policy.flags.clone();
        let (max_decisions, run) = (
            self.limits.max_decisions,
            self.run_for(trace, session, now)?,
        );
        let new = flags
            .iter()
            .filter(|f| !run.flags.contains_key(&f.name))
            .count();
        if run.flags.len() + new > max {
            return Err(Refused::TooMany("flags in one run"));
        }
        let mut declared = Vec::new();
        for flag in flags {
            if run.flags.contains_key(&flag.name) {
                continue;
            }
            let value = policy.get(&flag.name).copied().unwrap_or(flag.default);
            declared.push((flag.name.clone(), value));
            run.flags.insert(
                flag.name,
                Flag {
                    default: flag.default,
                    value,
                    description: flag.description,
                },
            );
        }
        if !declared.is_empty() {
            let flags = declared.into_iter().collect();
            run.decide(now, Decision::FlagsDeclared { flags }, max_decisions);
        }
        Ok(run.values())
    }

    /// A hook reaches a gate, asks approval or asks a question.
    pub fn arrive(
        &mut self,
        trace: TraceId,
        session: &str,
        ask: Ask,
        now: Instant,
    ) -> Result<Reply, Refused> {
        let limits = self.limits;
        let policy = self.policy.clone();
        let id = self.next_id;
        let run = self.run_for(trace, session, now)?;
        if let Some(reason) = &run.stopped {
            let answer = Answer::Stopped {
                reason: reason.clone(),
            };
            return Ok(Reply::Now(answer, run.values()));
        }
        let answer = run.answer_now(&ask, &policy, limits, now)?;
        if let Some(answer) = answer {
            return Ok(Reply::Now(answer, run.values()));
        }
        if run.waiting.len() >= limits.max_waiting {
            return Err(Refused::TooMany(
                "gates, approvals and questions waiting in one run",
            ));
        }
        let queued = matches!(ask, Ask::Gate { .. });
        if queued {
            let d = Decision::Held { gate: ask.clone() };
            run.decide(now, d, limits.max_decisions);
        }
        run.waiting.insert(
            id,
            Waiting {
                ask,
                since: now,
                polled: now,
                answer: None,
                queued,
            },
        );
        self.next_id += 1;
        Ok(Reply::Wait(id))
    }

    /// Gates the hook let pass under its lease since its last call.
    pub fn passed(
        &mut self,
        trace: TraceId,
        session: &str,
        gates: u64,
        now: Instant,
    ) -> Result<(), Refused> {
        if !self.runs.contains_key(&trace) && self.finished.contains(&trace) {
            // Told after the run ended: its summary is written.
            return Ok(());
        }
        let run = self.run_for(trace, session, now)?;
        run.gates = run.gates.saturating_add(gates);
        Ok(())
    }

    /// A lease renewed: `go` with a new one while the run runs, `hold`
    /// once paused, `stopped`. With the `epoch` its hook saw: `None` while
    /// the run runs on as it was then (the long poll waits on). A run
    /// lately finished is not made again: its lease goes on, untold.
    pub fn lease(
        &mut self,
        trace: TraceId,
        session: &str,
        seen: Option<u64>,
        now: Instant,
    ) -> Result<Option<Renewal>, Refused> {
        let lease_ms = millis(self.limits.lease);
        if !self.runs.contains_key(&trace) && self.finished.contains(&trace) {
            let go = Answer::Go { lease_ms, epoch: 0 };
            return Ok((seen != Some(0)).then(|| (go, BTreeMap::new())));
        }
        let run = self.run_for(trace, session, now)?;
        let answer = match (&run.stopped, run.pace) {
            (Some(reason), _) => Answer::Stopped {
                reason: reason.clone(),
            },
            (None, Pace::Running) if seen == Some(run.epoch) => return Ok(None),
            (None, Pace::Running) => Answer::Go {
                lease_ms,
                epoch: run.epoch,
            },
            (None, Pace::Paused { .. }) => Answer::Hold,
        };
        Ok(Some((answer, run.values())))
    }

    /// The hook asks again after a heartbeat: the answer when decided
    /// (the wait then ends), else wait on.
    pub fn poll(
        &mut self,
        trace: TraceId,
        session: &str,
        id: u64,
        now: Instant,
    ) -> Result<Reply, Refused> {
        let run = self.runs.get_mut(&trace).ok_or(Refused::NoSuchWait(id))?;
        if run.session != session {
            return Err(Refused::OtherHook);
        }
        run.last = now;
        let waiting = run.waiting.get_mut(&id).ok_or(Refused::NoSuchWait(id))?;
        waiting.polled = now;
        if waiting.answer.is_none() {
            return Ok(Reply::Wait(id));
        }
        let answer = run
            .waiting
            .remove(&id)
            .and_then(|w| w.answer)
            .expect("checked above");
        Ok(Reply::Now(answer, run.values()))
    }
}
