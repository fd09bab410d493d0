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
            | EventKind::CallFinished { .. }
            | EventKind::CallRepair { .. } => self.apply_call(kind, t_ms),
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
            EventKind::AttemptFinished { .. } => self.pattern.apply(kind, t_ms),
            // The log says both; nothing else in the run's view changes.
            EventKind::ToolsDescribed { .. } | EventKind::WentLive { .. } => {}
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
        self.pattern = patterns::unit(started.pattern).seat(started);
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

    /// A gateway call started, streamed text or finished.
    fn apply_call(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            EventKind::CallStarted {
                call,
                tool,
                attempt,
                label,
                agent,
            } => {
                let mut text = PartialText::default();
                if tool == crate::scenario::MODEL_TOOL
                    && let Some(note) = self.repairs.starting(agent.as_deref())
                {
                    text.set_note(note);
                }
                self.calling.push(CallInFlight {
                    call: *call,
                    tool: tool.clone(),
                    attempt: *attempt,
                    label: label.clone(),
                    agent: agent.clone(),
                    text,
                });
                self.model_calls += 1;
                self.resilience.apply(kind, t_ms);
            }
            // Shown where the call's agent sits until the call finishes
            // (and not a line of the log).
            EventKind::CallDelta {
                call,
                text,
                reasoning,
            } => {
                if let Some(calling) = self.calling.iter_mut().find(|c| c.call == *call) {
                    if *reasoning {
                        calling.text.push_reasoning(text);
                    } else {
                        calling.text.push(text);
                    }
                }
            }
            EventKind::CallFinished { call, usage, .. } => {
                // Whose tokens: the agent the call speaks for, else what a
                // model call was for (`plan`, `final brief`).
                let agent = self.calling.iter().find(|c| c.call == *call).and_then(|c| {
                    c.agent.clone().or_else(|| {
                        (c.tool == crate::scenario::MODEL_TOOL).then(|| c.label.clone())
                    })
                });
                if let Some(finished) = self.calling.iter().find(|c| c.call == *call)
                    && finished.tool == crate::scenario::MODEL_TOOL
                {
                    self.repairs.finished(*call, finished.agent.clone());
                }
                self.calling.retain(|c| c.call != *call);
                if let Some(usage) = usage {
                    self.spend.add(usage);
                    // A recording names whatever agents and labels it likes:
                    // past `MAX_SPENDERS` a new name is counted in the run's
                    // total only, so the state stays bounded.
                    if let Some(agent) = agent
                        && (self.spend_by_agent.len() < MAX_SPENDERS
                            || self.spend_by_agent.contains_key(&agent))
                    {
                        self.spend_by_agent.entry(agent).or_default().add(usage);
                    }
                }
                self.resilience.apply(kind, t_ms);
            }
            EventKind::CallRepair {
                call,
                attempt,
                of,
                error,
            } => self.repairs.announced(*call, *attempt, *of, error),
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
mod tests {
    use super::*;
    use crate::bus::{FlagState, RunStarted, RunStatus};
    use crate::patterns::events::PatternEvent;
    use crate::patterns::events::{Conflict, RoundEvent, Stance};
    use crate::stop::StopReason;
    use crate::tui::patterns::round_table::state::{Cell, RoundTable};
    use serde_json::json;

    fn table(state: &RunState) -> &RoundTable {
        state
            .pattern
            .get()
            .expect("a collaboration run seats a round table")
    }

    fn event(seq: u64, t_ms: u64, kind: EventKind) -> Arc<Event> {
        Arc::new(Event {
            run: 1,
            seq,
            t_ms,
            kind,
        })
    }

    fn scenario() -> Arc<Scenario> {
        Arc::new(
            serde_json::from_value(json!({
                "name": "t", "pattern": "collaboration", "goal": "g", "context": {},
                "team": {"roles": {"a": {}, "b": {}, "legal": {}}, "sequence": ["a", "b"]},
                "flags": {"legal": {"default": false, "description": "Seat legal", "roles": ["legal"], "joins": true}},
                "provider": {"kind": "sim"}
            }))
            .unwrap(),
        )
    }

    fn recorded() -> Vec<Arc<Event>> {
        let scenario = scenario();
        let started = EventKind::RunStarted(RunStarted {
            pattern: scenario.pattern,
            seed: 7,
            goal: "g".into(),
            clock: ClockMode::Virtual,
            flags: vec![FlagState {
                name: "legal".into(),
                on: false,
            }],
            source: None,
            started_at_ms: 0,
            model: None,
            scenario,
            forked_from: None,
        });
        let accepted = |round, agent: &str, stance| {
            EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionAccepted {
                round,
                agent: agent.into(),
                stance,
                confidence: 0.5,
                summary: format!("{agent} in {round}"),
                actions: vec!["act".into()],
            }))
        };
        let kinds = vec![
            started,
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                round: 1,
                speakers: vec!["a".into(), "b".into()],
            })),
            EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested {
                round: 1,
                agent: "a".into(),
            })),
            accepted(1, "a", Stance::Go),
            accepted(1, "b", Stance::Block),
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
                round: 1,
                conflicts: vec![Conflict::BlockingVsNonBlock],
                decision: None,
            })),
            EventKind::Paused {
                gate: GatePoint::Round { round: 2 },
            },
            EventKind::FlagChanged {
                name: "legal".into(),
                on: true,
                gate: None,
            },
            EventKind::Resumed {
                gate: GatePoint::Round { round: 2 },
            },
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                round: 2,
                speakers: vec!["a".into(), "b".into(), "legal".into()],
            })),
            accepted(2, "a", Stance::Go),
            EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested {
                round: 2,
                agent: "b".into(),
            })),
        ];
        kinds
            .into_iter()
            .enumerate()
            .map(|(i, kind)| event(i as u64 + 1, i as u64 * 100, kind))
            .collect()
    }

    #[test]
    fn a_recorded_sequence_folds_to_the_expected_state() {
        let state = RunState::from_events(1, &recorded());
        assert_eq!(state.activity, Activity::Running);
        assert_eq!(state.t_ms, 1100);
        assert_eq!(state.last_seq, 12);
        assert_eq!(state.missed, 0);
        assert!(state.flags[0].on);
        assert_eq!(state.flags[0].description.as_deref(), Some("Seat legal"));
        assert_eq!(
            table(&state).roles,
            vec!["a", "b", "legal"],
            "legal joins in round 2"
        );
        assert_eq!(table(&state).rounds.len(), 2);
        let round_1 = &table(&state).rounds[0];
        assert!(round_1.finished);
        assert_eq!(round_1.conflicts, vec![Conflict::BlockingVsNonBlock]);
        assert!(
            matches!(table(&state).cell(1, 0), Some(Cell::Accepted(c)) if c.stance == Stance::Block)
        );
        assert_eq!(
            table(&state).cell(2, 0),
            None,
            "legal did not sit in round 1"
        );
        assert_eq!(table(&state).cell(1, 1), Some(&Cell::Waiting));
        assert_eq!(state.log.len(), 12);
    }

    #[test]
    fn folding_twice_from_scratch_gives_equal_states() {
        let events = recorded();
        assert_eq!(
            RunState::from_events(1, &events),
            RunState::from_events(1, &events)
        );
    }

    #[test]
    fn the_finish_clears_what_was_pending_and_keeps_the_outcome() {
        let mut events = recorded();
        events.push(event(
            13,
            1200,
            EventKind::RunFinished {
                status: RunStatus::Stopped,
                stop_reason: StopReason::Cancelled,
                phase: Some("round_2:b".into()),
                result: std::sync::Arc::new(json!({"status": "stopped"}).into()),
                summary: Box::default(),
                error: None,
            },
        ));
        let state = RunState::from_events(1, &events);
        assert_eq!(state.activity, Activity::Finished);
        assert_eq!(table(&state).cell(1, 1), None);
        assert_eq!(state.outcome.unwrap().stop_reason, StopReason::Cancelled);
    }

    #[test]
    fn gaps_in_seq_count_as_missed() {
        let events = recorded();
        let mut state = RunState::new(1);
        for event in events.iter().filter(|e| e.seq != 4 && e.seq != 5) {
            state.apply(Arc::clone(event));
        }
        assert_eq!(state.missed, 2);
    }

    #[test]
    fn calls_in_flight_are_kept_until_each_finishes() {
        let mut events = recorded();
        let started = |call, tool: &str| EventKind::CallStarted {
            call,
            tool: tool.into(),
            attempt: 1,
            label: format!("x · {tool}"),
            agent: None,
        };
        events.push(event(13, 1200, started(10, "orders_worker")));
        events.push(event(14, 1200, started(11, "vendor_worker")));
        events.push(event(
            15,
            1300,
            EventKind::CallFinished {
                call: 10,
                tool: "orders_worker".into(),
                attempt: 1,
                latency_ms: 100,
                outcome: crate::bus::CallOutcome::Ok,
                usage: None,
                error: None,
                http_status: None,
                first_token_ms: None,
                tokens_per_s: None,
                reasoning: None,
                record: None,
                served: false,
                extracted: None,
            },
        ));
        let state = RunState::from_events(1, &events);
        let calling: Vec<&str> = state.calling.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(calling, ["vendor_worker"], "the finished one left");
    }

    #[test]
    fn spend_kept_apart_stays_bounded_whatever_a_recording_names() {
        use crate::bus::{CallOutcome, EventKind, TokenUsage};
        let mut state = RunState::new(1);
        let calls = MAX_SPENDERS as u64 + 500;
        let mut seq = 0;
        let mut event = |kind| {
            seq += 1;
            Arc::new(Event {
                run: 1,
                seq,
                t_ms: seq,
                kind,
            })
        };
        for call in 0..calls {
            state.apply(event(EventKind::CallStarted {
                call,
                tool: "model".into(),
                attempt: 1,
                label: format!("label {call}"),
                agent: None,
            }));
            state.apply(event(EventKind::CallFinished {
                call,
                tool: "model".into(),
                attempt: 1,
                latency_ms: 1,
                outcome: CallOutcome::Ok,
                usage: Some(TokenUsage {
                    input: 1,
                    output: 1,
                    ..TokenUsage::default()
                }),
                error: None,
                http_status: None,
                first_token_ms: None,
                tokens_per_s: None,
                reasoning: None,
                record: None,
                served: false,
                extracted: None,
            }));
        }
        assert_eq!(state.spend_by_agent.len(), MAX_SPENDERS);
        assert_eq!(
            state.spend.tokens(),
            2 * calls,
            "the run's total counts every call"
        );
    }
}
