//! The steering of watched runs, pure: per run its pace (running, paused
//! with some passes left), its flags, what waits (gates, approvals,
//! questions) and whether a person stopped it, and the decisions taken,
//! in order. Nothing here reads a clock or a socket: every call is given
//! `now`, and the HTTP side (`serve`) turns a wait into a long poll.

use super::protocol::{Answer, Ask, Decision, Refused, RunView};
pub use super::protocol::{SteerSummary, Timed};
use crate::span::TraceId;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::time::Duration;
use tokio::time::Instant;

/// How much one watch holds for steering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Runs steered at once; past it a run with nothing waiting is let go.
    pub max_runs: usize,
    /// Gates, approvals and questions waiting in one run.
    pub max_waiting: usize,
    /// Of which questions.
    pub max_questions: usize,
    /// Flags one run declares.
    pub max_flags: usize,
    /// Decisions kept per run (the rest counted).
    pub max_decisions: usize,
    /// The longest a long poll is held before it is answered `waiting`.
    pub heartbeat: Duration,
    /// A wait its hook has not polled for this long is let go (the hook
    /// died or gave up).
    pub forget: Duration,
    /// How long a running run's hook may let gates pass without asking
    /// (it counts them and says so at its next call): nobody steering
    /// then costs a gate no round trip, and a pause, a flag or a stop is
    /// seen at most this late. Zero: every gate asks.
    pub lease: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_runs: 256,
            max_waiting: 64,
            max_questions: 8,
            max_flags: 64,
            max_decisions: 10_000,
            heartbeat: Duration::from_secs(10),
            forget: Duration::from_secs(30),
            lease: Duration::from_millis(100),
        }
    }
}

/// What decides when no person does: `--flag`, `--approve`, `--reject`,
/// and whether a person is there to hold approvals (the dashboard).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// `--flag NAME=on|off`: values over the hooks' defaults.
    pub flags: BTreeMap<String, bool>,
    /// `--approve TOOL`: tools approved at once.
    pub approve: Vec<String>,
    /// `--reject TOOL`: tools rejected at once.
    pub reject: Vec<String>,
    /// Every run's approvals and questions wait for a person, steered or
    /// not (a dashboard is open).
    pub person_present: bool,
    /// Breakpoints (`--break`, or set by a steerer): a running run pauses
    /// before a gate with one of these names (or of one of these agents).
    pub breaks: BTreeSet<String>,
}

/// A run's pace at its gates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    Running,
    /// Paused, with this many gates still allowed to pass.
    Paused {
        passes: u64,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Waiting {
    pub(super) ask: Ask,
    pub(super) since: Instant,
    pub(super) polled: Instant,
    /// Set when decided; the hook collects it at its next poll.
    pub(super) answer: Option<Answer>,
    /// A gate queued behind the pace (not an approval or question).
    pub(super) queued: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Flag {
    pub(super) default: bool,
    pub(super) value: bool,
    pub(super) description: String,
}

/// One run's steering.
#[derive(Clone, Debug)]
pub struct RunSteer {
    pub(super) session: String,
    pub(super) pace: Pace,
    /// A steerer has acted on this run: its approvals wait for a person.
    pub(super) steered: bool,
    pub(super) flags: BTreeMap<String, Flag>,
    /// Tools a person approved for the rest of the run.
    pub(super) approved_for_run: BTreeSet<String>,
    pub(super) waiting: BTreeMap<u64, Waiting>,
    pub(super) stopped: Option<String>,
    pub(super) decisions: Vec<(Instant, Decision)>,
    pub(super) decisions_dropped: u64,
    pub(super) gates: u64,
    /// Bumped whenever what a leased hook must know changes (the pace, a
    /// flag, a stop): a lease's long poll is answered at once when it
    /// differs from the one the hook saw.
    pub(super) epoch: u64,
    pub(super) first: Instant,
    pub(super) last: Instant,
}

/// A hook's call, answered now or waited on.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// Answered now, with the run's flags as they are.
    Now(Answer, BTreeMap<String, bool>),
    Wait(u64),
}

/// Every steered run of one watch.
#[derive(Debug)]
pub struct Board {
    pub(super) limits: Limits,
    pub(super) policy: Policy,
    pub(super) runs: HashMap<TraceId, RunSteer>,
    /// A trace-less pause: new runs start paused and steered.
    pub(super) hold_new: bool,
    pub(super) next_id: u64,
    /// Runs lately finished, oldest first: a lease renewed for one makes
    /// no run again (its hook's last count comes after the run ended).
    pub(super) finished: VecDeque<TraceId>,
}

/// How many finished runs the board remembers.
const FINISHED_KEPT: usize = 1024;

impl Board {
    pub fn new(limits: Limits, policy: Policy) -> Board {
        Board {
            limits,
            policy,
            runs: HashMap::new(),
            hold_new: false,
            next_id: 1,
            finished: VecDeque::new(),
        }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The run `trace` as its hook `session` speaks of it: made when new
    /// (room made by letting go the idlest run with nothing waiting), an
    /// error when another hook holds it.
    pub(super) fn run_for(
        &mut self,
        trace: TraceId,
        session: &str,
        now: Instant,
    ) -> Result<&mut RunSteer, Refused> {
        if let Some(run) = self.runs.get(&trace) {
            if run.session != session {
                return Err(Refused::OtherHook);
            }
        } else {
            if self.runs.len() >= self.limits.max_runs {
                let idlest = self
                    .runs
                    .iter()
                    .filter(|(_, r)| r.waiting.is_empty())
                    .min_by_key(|(_, r)| r.last)
                    .map(|(id, _)| *id);
                match idlest {
                    Some(id) => {
                        self.runs.remove(&id);
                    }
                    None => return Err(Refused::TooMany("runs steered at once")),
                }
            }
            let pace = if self.hold_new {
                Pace::Paused { passes: 0 }
            } else {
                Pace::Running
            };
            self.runs.insert(
                trace,
                RunSteer {
                    session: session.to_string(),
                    pace,
                    steered: self.hold_new,
                    flags: BTreeMap::new(),
                    approved_for_run: BTreeSet::new(),
                    waiting: BTreeMap::new(),
                    stopped: None,
                    decisions: Vec::new(),
                    decisions_dropped: 0,
                    gates: 0,
                    epoch: 0,
                    first: now,
                    last: now,
                },
            );
        }
        let run = self.runs.get_mut(&trace).expect("just found or made");
        run.last = now;
        Ok(run)
    }

    /// Let go of waits whose hook stopped polling; the runs affected.
    pub fn expire(&mut self, now: Instant) -> usize {
        let forget = self.limits.forget;
        let mut gone = 0;
        for run in self.runs.values_mut() {
            let before = run.waiting.len();
            run.waiting
                .retain(|_, w| now.saturating_duration_since(w.polled) < forget);
            gone += before - run.waiting.len();
        }
        gone
    }

    /// The steering a finished run leaves, taken out of the board.
    pub fn finish(&mut self, trace: TraceId) -> Option<SteerSummary> {
        let run = self.runs.remove(&trace)?;
        if self.finished.len() >= FINISHED_KEPT {
            self.finished.pop_front();
        }
        self.finished.push_back(trace);
        Some(run.summary())
    }

    /// What the steerer sees: every run, what waits in it, oldest first.
    pub fn list(&self, now: Instant) -> Vec<RunView> {
        let mut runs: Vec<RunView> = self
            .runs
            .iter()
            .map(|(trace, run)| run.view(*trace, now))
            .collect();
        runs.sort_by(|a, b| a.trace_id.cmp(&b.trace_id));
        runs
    }
}

impl RunSteer {
    pub(super) fn values(&self) -> BTreeMap<String, bool> {
        self.flags
            .iter()
            .map(|(name, flag)| (name.clone(), flag.value))
            .collect()
    }

    pub(super) fn decide(&mut self, now: Instant, decision: Decision, max: usize) {
        if self.decisions.len() < max {
            self.decisions.push((now, decision));
        } else {
            self.decisions_dropped += 1;
        }
    }

    /// What a leased hook knows changed: its lease's long poll answers.
    pub(super) fn touch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    pub(super) fn pause(&mut self, now: Instant, max: usize) {
        if self.pace == Pace::Running {
            self.pace = Pace::Paused { passes: 0 };
            self.touch();
            self.decide(now, Decision::Paused, max);
        }
    }

    pub(super) fn run_on(&mut self, now: Instant, max: usize) {
        if self.pace != Pace::Running {
            self.pace = Pace::Running;
            self.touch();
            self.decide(now, Decision::RanOn, max);
        }
        self.release();
    }

    /// Let queued gates go, oldest first, as the pace allows.
    pub(super) fn release(&mut self) {
        for waiting in self.waiting.values_mut() {
            if !waiting.queued || waiting.answer.is_some() {
                continue;
            }
            match &mut self.pace {
                Pace::Running => waiting.answer = Some(Answer::go()),
                Pace::Paused { passes } if *passes > 0 => {
                    *passes -= 1;
                    waiting.answer = Some(Answer::go());
                }
                Pace::Paused { .. } => break,
            }
        }
    }

    /// The wait `id`, still undecided.
    pub(super) fn open_wait(&mut self, id: u64) -> Result<&mut Waiting, Refused> {
        match self.waiting.get_mut(&id) {
            Some(w) if w.answer.is_none() => Ok(w),
            Some(_) => Err(Refused::Decided(id)),
            None => Err(Refused::NoSuchWait(id)),
        }
    }
}

pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
