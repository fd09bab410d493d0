//! What the dashboard knows about a run: a pure fold over its events
//! (`state = events.fold(apply)`). A live run and its replay go through the
//! same `apply`, so they draw the same frames. What every run has is folded
//! here; the pattern's own events go to its unit's fold, seated at the
//! run's start. Nothing here knows ratatui, and nothing here reads a clock
//! or the engine.

use crate::bus::{BudgetKind, ClockMode, Event, EventKind, GatePoint, RunId, RunStarted};
use crate::scenario::{PatternKind, Scenario};
use crate::tui::patterns::{self, fold::PatternFold};
use std::sync::Arc;

pub(crate) mod asked;
pub(crate) mod calls;
mod log;
pub(crate) mod outcome;
pub(crate) mod partial;
mod resilience;
pub(crate) mod spend;

pub use calls::CallInFlight;
pub(crate) use log::{EventLog, LOG_CAPACITY};
pub(crate) use outcome::Outcome;
pub use partial::PartialText;
pub(crate) use resilience::{Band, Period, Trend, moved_bit, severity};
pub use resilience::{BreakerView, BulkheadView, ERROR_WINDOW_MS, Resilience, ToolHealth};
pub(crate) use spend::Spend;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunState {
    pub(crate) run: RunId,
    pub(crate) info: Option<RunInfo>,
    pub(crate) activity: Activity,
    /// The run clock at the last event.
    pub(crate) t_ms: u64,
    pub last_seq: u64,
    /// Events that never arrived here, by seq gaps or a lagging viewer.
    pub missed: u64,
    pub(crate) flags: Vec<FlagView>,
    /// The pattern's own fold, seated by the run's start.
    pub pattern: PatternFold,
    /// Every tool's breaker, bulkhead and call health.
    pub resilience: Resilience,
    /// The budget the gateway counted last: which, used and its limit.
    pub(crate) budget: Option<(BudgetKind, u64, u64)>,
    /// The gateway calls in flight (the model's and the tools'), oldest
    /// first.
    pub(crate) calling: Vec<CallInFlight>,
    /// Model answers asked for again, and the repairs on their way.
    pub(crate) repairs: calls::Repairs,
    /// How the run last changed the way it asks the endpoint, and the
    /// endpoint's words (an output mode it refused, a parameter).
    pub(crate) endpoint: Option<String>,
    pub(crate) model_calls: u64,
    /// Tokens the run's model calls took, as the endpoint counted them
    /// (or the sim estimated them), and what they cost.
    pub(crate) spend: Spend,
    /// The same, per agent a model call spoke for (a seat of the round
    /// table, an agent of a team); the scenario names them, so they are
    /// few.
    pub(crate) spend_by_agent: std::collections::BTreeMap<String, Spend>,
    pub log: EventLog,
    pub outcome: Option<Outcome>,
    /// The question the run asks a person, from the event that raised it
    /// until the pattern's next step.
    pub(crate) asked: Option<asked::Asked>,
    /// A watched run's top span's name, once a span without a parent
    /// arrived: what the run list names it by.
    pub(crate) root_span: Option<String>,
}

/// Agents and call labels whose spend is kept apart, at most.
const MAX_SPENDERS: usize = 1024;

/// The first event's facts about the run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RunInfo {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) pattern: PatternKind,
    pub(crate) seed: u64,
    pub(crate) goal: String,
    pub(crate) clock: ClockMode,
    pub(crate) source: Option<String>,
    pub(crate) scenario: Arc<Scenario>,
    /// Every flag as the run started (the flags above change live).
    pub(crate) started_flags: Vec<crate::bus::FlagState>,
    /// A fork's parent: its recording, run and gate.
    pub(crate) forked_from: Option<crate::bus::cassette::ForkedFrom>,
    /// When the run started, in milliseconds since the epoch (0: not said).
    pub(crate) started_at_ms: u64,
}

/// What the run is doing.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Activity {
    /// No event yet.
    #[default]
    Starting,
    Running,
    Paused {
        gate: GatePoint,
    },
    Finished,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FlagView {
    pub(crate) name: String,
    pub(crate) on: bool,
    pub(crate) description: Option<String>,
}

impl RunState {
    pub fn new(run: RunId) -> Self {
        RunState {
            run,
            ..RunState::default()
        }
    }

    /// Fold a whole sequence of events.
    pub fn from_events<'a>(run: RunId, events: impl IntoIterator<Item = &'a Arc<Event>>) -> Self {
        let mut state = RunState::new(run);
        for event in events {
            state.apply(Arc::clone(event));
        }
        state
    }

    /// What each streamed model call in flight has written so far, oldest
    /// call first: its id, the agent it speaks for, its text.
    pub fn text_in_flight(&self) -> Vec<(u64, Option<&str>, &PartialText)> {
        self.calling
            .iter()
            .filter(|c| !c.text.is_empty())
            .map(|c| (c.call, c.agent.as_deref(), &c.text))
            .collect()
    }

    /// Whether the run is another framework's, told from its spans by
    /// `conclave watch` (live, or replayed from the watch's recording).
    pub(crate) fn is_watched(&self) -> bool {
        self.info
            .as_ref()
            .and_then(|i| i.source.as_deref())
            .is_some_and(|s| s.starts_with(crate::watch::translate::WATCH_SOURCE))
    }

    pub(crate) fn is_live(&self) -> bool {
        !matches!(self.activity, Activity::Finished)
    }

    /// A viewer fell behind and lost `n` events.
    pub(crate) fn note_missed(&mut self, n: u64) {
        self.missed += n;
    }

    pub fn apply(&mut self, event: Arc<Event>) {
        self.count_missed(&event);
        let (kind, t_ms) = (&event.kind, event.t_ms);
        match kind {
            EventKind::RunStarted(started) => self.start(started),
            EventKind::RunFinished { .. } => self.finish(kind, t_ms),
            EventKind::BudgetConsumed {
                budget,
                used,
                limit,
            } => {
                self.budget = Some((*budget, *used, *limit));
                self.pattern.apply(kind, t_ms);
            }
            EventKind::FlagChanged { .. }
            | EventKind::Paused { .. }
            | EventKind::Resumed { .. }
            | EventKind::Stepped { .. } => self.apply_control(kind, t_ms),
            EventKind::CallStarted { .. }
            | EventKind::CallDelta { .. }
            | EventKind::CallRepair { .. } => self.apply_call(kind, t_ms),
            // A finished call is the pattern's too: a watched run's pane
            // sums its model calls (the other patterns' folds pass it by).
            EventKind::CallFinished { .. } => {
                self.apply_call(kind, t_ms);
                self.pattern.apply(kind, t_ms);
            }
            EventKind::OutputModeChanged { to, said, .. } => {
                self.endpoint = Some(format!("output {to} ({said})"));
            }
            EventKind::RequestAdapted { to, said, .. } => {
                self.endpoint = Some(format!("{to} ({said})"));
            }
            EventKind::CallRejected { .. }
            | EventKind::BreakerTransition { .. }
            | EventKind::Bulkhead { .. }
            | EventKind::FallbackServed { .. }
            | EventKind::RetryScheduled { .. }
            | EventKind::AttemptStarted { .. } => self.apply_resilience(kind, t_ms),
            // A pattern's event may raise a question to a person, and its
            // next step puts the question behind the run.
            EventKind::HumanDecided { .. } | EventKind::Pattern(_) => {
                let pattern = self.info.as_ref().map(|i| i.pattern);
                asked::fold(&mut self.asked, pattern, kind);
                self.pattern.apply(kind, t_ms);
            }
            EventKind::SpanArrived {
                top, name, agent, ..
            } => {
                if self.root_span.is_none() && *top {
                    // AI SDK 7 names its agent's span by the model
                    // (`invoke_agent gpt-4o-mini`): the agent the same
                    // span names is the run's name.
                    let named = match agent {
                        Some(agent)
                            if name.starts_with("invoke_agent ")
                                && !name.contains(agent.as_str()) =>
                        {
                            format!("invoke_agent {agent}")
                        }
                        _ => name.clone(),
                    };
                    self.root_span = Some(crate::sanitize::clean(&named).into_owned());
                }
                self.pattern.apply(kind, t_ms)
            }
            EventKind::AttemptFinished { .. } => self.pattern.apply(kind, t_ms),
            // The log says them; nothing else in the run's view changes.
            EventKind::ToolsDescribed { .. }
            | EventKind::WentLive { .. }
            | EventKind::Steered { .. }
            | EventKind::ProgramOutput { .. } => {}
        }
        self.log.push(event);
    }

    /// Counts the events a gap in `seq` says never arrived, and moves the
    /// last seq and the run clock on.
    fn count_missed(&mut self, event: &Event) {
        if self.last_seq > 0 && event.seq > self.last_seq + 1 {
            self.missed += event.seq - self.last_seq - 1;
        }
        self.last_seq = self.last_seq.max(event.seq);
        self.t_ms = self.t_ms.max(event.t_ms);
    }

    /// Seats the run: its facts, its flags, the pattern's fold and every
    /// tool's resilience.
    fn start(&mut self, started: &RunStarted) {
        let scenario = Arc::clone(&started.scenario);
        self.flags = started
            .flags
            .iter()
            .map(|f| FlagView {
                name: f.name.clone(),
                on: f.on,
                description: scenario
                    .flags
                    .get(&f.name)
                    .and_then(|s| s.description.clone()),
            })
            .collect();
        self.pattern = patterns::unit_for(started.pattern, started.source.as_deref()).seat(started);
        self.resilience.seat(&scenario, &started.flags);
        self.info = Some(RunInfo {
            name: scenario.name.clone(),
            title: scenario.title.clone(),
            pattern: started.pattern,
            seed: started.seed,
            goal: started.goal.clone(),
            clock: started.clock,
            source: started.source.clone(),
            scenario,
            started_flags: started.flags.clone(),
            forked_from: started.forked_from.clone(),
            started_at_ms: started.started_at_ms,
        });
        self.activity = Activity::Running;
    }

    /// Keeps how the run ended; nothing is in flight any more.
    fn finish(&mut self, kind: &EventKind, t_ms: u64) {
        let EventKind::RunFinished {
            status,
            stop_reason,
            phase,
            result,
            summary,
            error,
        } = kind
        else {
            // `apply` sends no other kind here.
            return;
        };
        self.activity = Activity::Finished;
        self.calling.clear();
        let outcome = Outcome {
            status: *status,
            stop_reason: stop_reason.clone(),
            phase: phase.clone(),
            result: Arc::clone(result),
            summary: summary.as_ref().clone(),
            error: error.clone(),
            shown: outcome::Shown::of(result),
        };
        self.pattern.close(&outcome);
        self.outcome = Some(outcome);
        self.resilience.rank(t_ms);
    }

    /// A flag changed, or the run paused or went on.
    fn apply_control(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            EventKind::FlagChanged { name, on, .. } => {
                if let Some(flag) = self.flags.iter_mut().find(|f| &f.name == name) {
                    flag.on = *on;
                }
                self.resilience.apply(kind, t_ms);
            }
            EventKind::Paused { gate } => {
                self.activity = Activity::Paused { gate: gate.clone() };
            }
            EventKind::Resumed { .. } | EventKind::Stepped { .. } => {
                self.activity = Activity::Running;
            }
            // `apply` sends no other kind here.
            _ => {}
        }
    }

    /// A tool's breaker, bulkhead, fallback, retry or attempt.
    fn apply_resilience(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            // A stale answer is its tool's, and its task's.
            EventKind::FallbackServed { .. } => {
                self.resilience.apply(kind, t_ms);
                self.pattern.apply(kind, t_ms);
            }
            // A task's retry is the workers' too (a research run's tool
            // calls are attempts as well; its own fold leaves them out);
            // an attempt's timeout is its tool's.
            EventKind::RetryScheduled { .. } | EventKind::AttemptStarted { .. } => {
                self.pattern.apply(kind, t_ms);
                self.resilience.apply(kind, t_ms);
            }
            EventKind::CallRejected { .. }
            | EventKind::BreakerTransition { .. }
            | EventKind::Bulkhead { .. } => self.resilience.apply(kind, t_ms),
            // `apply` sends no other kind here.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
