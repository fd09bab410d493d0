//! The steerer's side of the board: pause, step, run on, set a flag,
//! decide an approval, answer a question, stop. Each that is done makes
//! the run steered (its approvals then wait for a person) and is a
//! decision of the run; one refused changes nothing.

use super::protocol::{Answer, Ask, By, Decision, Refused, Ruling};
use super::state::{Board, Pace, RunSteer};
use crate::span::TraceId;
use tokio::time::Instant;

impl Board {
    /// The run `trace`, for a steerer, as it is (the op marks it steered
    /// once it is done).
    fn steered(&mut self, trace: TraceId) -> Result<&mut RunSteer, Refused> {
        self.runs.get_mut(&trace).ok_or(Refused::NoSuchRun)
    }

    /// Pause `trace` at its next gate; no trace: every run, and every new
    /// run starts paused.
    pub fn pause(&mut self, trace: Option<TraceId>, now: Instant) -> Result<(), Refused> {
        let max = self.limits.max_decisions;
        let Some(trace) = trace else {
            self.hold_new = true;
            for run in self.runs.values_mut() {
                run.steered = true;
                run.pause(now, max);
            }
            return Ok(());
        };
        let run = self.steered(trace)?;
        run.pause(now, max);
        run.steered = true;
        Ok(())
    }

    /// Let `n` more gates of `trace` pass, then hold.
    pub fn step(&mut self, trace: TraceId, n: u64, now: Instant) -> Result<(), Refused> {
        let max = self.limits.max_decisions;
        let run = self.steered(trace)?;
        let passes = match run.pace {
            Pace::Running => return Err(Refused::NotPaused),
            Pace::Paused { passes } => passes.saturating_add(n),
        };
        run.pace = Pace::Paused { passes };
        run.steered = true;
        run.decide(now, Decision::Stepped { gates: n }, max);
        run.release();
        Ok(())
    }

    /// Run on: every gate goes; no trace: every run, and new runs too.
    pub fn run_on(&mut self, trace: Option<TraceId>, now: Instant) -> Result<(), Refused> {
        let max = self.limits.max_decisions;
        let Some(trace) = trace else {
            self.hold_new = false;
            for run in self.runs.values_mut() {
                run.run_on(now, max);
            }
            return Ok(());
        };
        let run = self.steered(trace)?;
        run.run_on(now, max);
        run.steered = true;
        Ok(())
    }

    /// Set a declared flag; the hook sees it at its next gate.
    pub fn set_flag(
        &mut self,
        trace: TraceId,
        name: &str,
        on: bool,
        now: Instant,
    ) -> Result<(), Refused> {
        let max = self.limits.max_decisions;
        let run = self.steered(trace)?;
        let flag = run
            .flags
            .get_mut(name)
            .ok_or_else(|| Refused::NoSuchFlag(name.to_string()))?;
        flag.value = on;
        run.steered = true;
        run.touch();
        let d = Decision::FlagSet {
            name: name.to_string(),
            on,
        };
        run.decide(now, d, max);
        Ok(())
    }

    /// Decide the approval `id`: approve (its arguments edited, or every
    /// later call of its tool in the run too), or reject with a reason.
    pub fn decide_approval(
        &mut self,
        trace: TraceId,
        id: u64,
        ruling: Ruling,
        now: Instant,
    ) -> Result<(), Refused> {
        let max = self.limits.max_decisions;
        let run = self.steered(trace)?;
        let waiting = run.open_wait(id)?;
        let Ask::Approval { tool, agent, .. } = &waiting.ask else {
            return Err(Refused::WrongKind(id, "an approval"));
        };
        let (tool, agent) = (tool.clone(), agent.clone());
        let (decision, answer) = match ruling {
            Ruling::Approve {
                arguments,
                for_the_run,
            } => {
                let decision = Decision::Approved {
                    tool,
                    agent,
                    by: By::Person,
                    arguments: arguments.clone(),
                    for_the_run,
                };
                (decision, Answer::Approved { arguments })
            }
            Ruling::Reject(reason) => (
                Decision::Rejected {
                    tool,
                    agent,
                    reason: reason.clone(),
                    by: By::Person,
                },
                Answer::Rejected {
                    reason,
                    by: By::Person,
                },
            ),
        };
        waiting.answer = Some(answer);
        if let Decision::Approved {
            tool,
            for_the_run: true,
            ..
        } = &decision
        {
            run.approved_for_run.insert(tool.clone());
        }
        run.steered = true;
        run.decide(now, decision, max);
        Ok(())
    }

    /// Answer the question `id`.
    pub fn answer(
        &mut self,
        trace: TraceId,
        id: u64,
        text: String,
        now: Instant,
    ) -> Result<(), Refused> {
        let max = self.limits.max_decisions;
        let run = self.steered(trace)?;
        let waiting = run.open_wait(id)?;
        let Ask::Question {
            question, options, ..
        } = &waiting.ask
        else {
            return Err(Refused::WrongKind(id, "a question"));
        };
        if !options.is_empty() && !options.contains(&text) {
            return Err(Refused::NotAnOption(options.clone()));
        }
        let question = question.clone();
        waiting.answer = Some(Answer::Answered { text: text.clone() });
        run.steered = true;
        run.decide(
            now,
            Decision::Answered {
                question,
                answer: text,
            },
            max,
        );
        Ok(())
    }

    /// Set or clear a breakpoint of every run: each leased hook learns of
    /// it at once (its long poll answers).
    pub fn set_break(&mut self, name: &str, on: bool) {
        let changed = if on {
            self.policy.breaks.insert(name.to_string())
        } else {
            self.policy.breaks.remove(name)
        };
        if changed {
            self.runs.values_mut().for_each(RunSteer::touch);
        }
    }

    /// The breakpoints, for a hook's answer.
    pub fn breaks(&self) -> &std::collections::BTreeSet<String> {
        &self.policy.breaks
    }

    /// Whether every new run is held from its first gate.
    pub fn holds_new(&self) -> bool {
        self.hold_new
    }

    /// Stop `trace`: everything waiting, and every later call of its
    /// hook, is answered stopped.
    pub fn stop(&mut self, trace: TraceId, reason: String, now: Instant) -> Result<(), Refused> {
        let max = self.limits.max_decisions;
        let run = self.steered(trace)?;
        run.steered = true;
        if run.stopped.is_some() {
            return Ok(());
        }
        run.stopped = Some(reason.clone());
        run.touch();
        for waiting in run.waiting.values_mut() {
            waiting.answer = Some(Answer::Stopped {
                reason: reason.clone(),
            });
        }
        run.decide(now, Decision::Stopped { reason }, max);
        Ok(())
    }
}
