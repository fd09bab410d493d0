//! What the dashboard knows about a run: a pure fold over its events
//! (`state = events.fold(apply)`). A live run and its replay go through the
//! same `apply`, so they draw the same frames. Nothing here knows ratatui,
//! and nothing here reads a clock or the engine.

use crate::bus::{
    ClockMode, Conflict, Decision, Event, EventKind, GatePoint, RunId, RunStatus, Stance,
};
use crate::scenario::{PatternKind, Scenario};
use crate::stop::StopReason;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Arc;

/// How many events the log keeps for viewing; older ones stay in the
/// recording.
pub const LOG_CAPACITY: usize = 50_000;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunState {
    pub run: RunId,
    pub info: Option<RunInfo>,
    pub activity: Activity,
    /// The run clock at the last event.
    pub t_ms: u64,
    pub last_seq: u64,
    /// Events that never arrived here, by seq gaps or a lagging viewer.
    pub missed: u64,
    pub flags: Vec<FlagView>,
    pub table: RoundTable,
    /// Messages used and the budget, as the gateway counts them.
    pub messages: Option<(u64, u64)>,
    /// What the model is being asked right now.
    pub calling: Option<String>,
    pub model_calls: u64,
    pub log: EventLog,
    pub outcome: Option<Outcome>,
}

/// The first event's facts about the run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInfo {
    pub name: String,
    pub title: Option<String>,
    pub pattern: PatternKind,
    pub seed: u64,
    pub goal: String,
    pub clock: ClockMode,
    pub source: Option<String>,
    pub scenario: Arc<Scenario>,
}

/// What the run is doing.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Activity {
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
pub struct FlagView {
    pub name: String,
    pub on: bool,
    pub description: Option<String>,
}

/// How the run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub status: RunStatus,
    pub stop_reason: StopReason,
    pub phase: Option<String>,
    pub result: Value,
}

impl Outcome {
    pub fn final_decision(&self) -> Option<&str> {
        self.result.get("final_decision").and_then(Value::as_str)
    }

    pub fn answer(&self) -> Option<&str> {
        self.result.get("answer").and_then(Value::as_str)
    }

    pub fn rounds_used(&self) -> Option<u64> {
        self.result.get("rounds_used").and_then(Value::as_u64)
    }
}

/// The round table: one row per role in order of first appearance, one
/// column per round.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RoundTable {
    pub roles: Vec<String>,
    pub rounds: Vec<RoundColumn>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RoundColumn {
    pub round: u32,
    pub speakers: Vec<String>,
    /// Indexed like `RoundTable::roles`.
    pub cells: Vec<Option<Cell>>,
    pub conflicts: Vec<Conflict>,
    pub decision: Option<Decision>,
    pub finished: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Asked, no answer yet.
    Waiting,
    Accepted(Contribution),
    Rejected {
        reason: StopReason,
        raw: Value,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Contribution {
    pub stance: Stance,
    pub confidence: f64,
    pub summary: String,
    pub actions: Vec<String>,
}

impl RoundTable {
    fn role_index(&mut self, role: &str) -> usize {
        match self.roles.iter().position(|r| r == role) {
            Some(i) => i,
            None => {
                self.roles.push(role.to_string());
                self.roles.len() - 1
            }
        }
    }

    fn column(&mut self, round: u32) -> Option<&mut RoundColumn> {
        self.rounds.iter_mut().rev().find(|c| c.round == round)
    }

    fn set_cell(&mut self, round: u32, role: &str, cell: Cell) {
        let index = self.role_index(role);
        if let Some(column) = self.column(round) {
            if column.cells.len() <= index {
                column.cells.resize(index + 1, None);
            }
            column.cells[index] = Some(cell);
        }
    }

    pub fn cell(&self, row: usize, column: usize) -> Option<&Cell> {
        self.rounds.get(column)?.cells.get(row)?.as_ref()
    }
}

/// The events kept for the log, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventLog {
    pub events: VecDeque<Arc<Event>>,
    /// Older events dropped from view to keep the log bounded.
    pub dropped: u64,
}

impl EventLog {
    fn push(&mut self, event: Arc<Event>) {
        if self.events.len() == LOG_CAPACITY {
            self.events.pop_front();
            self.dropped += 1;
        }
        self.events.push_back(event);
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
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

    pub fn is_live(&self) -> bool {
        !matches!(self.activity, Activity::Finished)
    }

    /// A viewer fell behind and lost `n` events.
    pub fn note_missed(&mut self, n: u64) {
        self.missed += n;
    }

    pub fn apply(&mut self, event: Arc<Event>) {
        if self.last_seq > 0 && event.seq > self.last_seq + 1 {
            self.missed += event.seq - self.last_seq - 1;
        }
        self.last_seq = self.last_seq.max(event.seq);
        self.t_ms = self.t_ms.max(event.t_ms);
        match &event.kind {
            EventKind::RunStarted(started) => {
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
                if let Some(team) = &scenario.team {
                    for role in &team.sequence {
                        self.table.role_index(role);
                    }
                }
                for (flag, spec) in scenario.flags.iter() {
                    let on = started.flags.iter().any(|f| &f.name == flag && f.on);
                    if on && spec.joins {
                        for role in &spec.roles {
                            self.table.role_index(role);
                        }
                    }
                }
                self.info = Some(RunInfo {
                    name: scenario.name.clone(),
                    title: scenario.title.clone(),
                    pattern: started.pattern,
                    seed: started.seed,
                    goal: started.goal.clone(),
                    clock: started.clock,
                    source: started.source.clone(),
                    scenario,
                });
                self.activity = Activity::Running;
            }
            EventKind::RunFinished {
                status,
                stop_reason,
                phase,
                result,
            } => {
                self.activity = Activity::Finished;
                self.calling = None;
                for column in &mut self.table.rounds {
                    for cell in column.cells.iter_mut() {
                        if matches!(cell, Some(Cell::Waiting)) {
                            *cell = None;
                        }
                    }
                }
                self.outcome = Some(Outcome {
                    status: *status,
                    stop_reason: stop_reason.clone(),
                    phase: phase.clone(),
                    result: result.clone(),
                });
            }
            EventKind::RoundStarted { round, speakers } => {
                for role in speakers {
                    self.table.role_index(role);
                }
                self.table.rounds.push(RoundColumn {
                    round: *round,
                    speakers: speakers.clone(),
                    cells: Vec::new(),
                    conflicts: Vec::new(),
                    decision: None,
                    finished: false,
                });
            }
            EventKind::ContributionRequested { round, agent } => {
                self.table.set_cell(*round, agent, Cell::Waiting);
            }
            EventKind::ContributionAccepted {
                round,
                agent,
                stance,
                confidence,
                summary,
                actions,
            } => self.table.set_cell(
                *round,
                agent,
                Cell::Accepted(Contribution {
                    stance: *stance,
                    confidence: *confidence,
                    summary: summary.clone(),
                    actions: actions.clone(),
                }),
            ),
            EventKind::ContributionRejected {
                round,
                agent,
                reason,
                raw,
            } => self.table.set_cell(
                *round,
                agent,
                Cell::Rejected {
                    reason: reason.clone(),
                    raw: raw.clone(),
                },
            ),
            EventKind::RoundFinished {
                round,
                conflicts,
                decision,
            } => {
                if let Some(column) = self.table.column(*round) {
                    column.conflicts = conflicts.clone();
                    column.decision = *decision;
                    column.finished = true;
                }
            }
            EventKind::FinalizeStarted { .. } => {}
            EventKind::BudgetConsumed { used, limit, .. } => {
                self.messages = Some((*used, *limit));
            }
            EventKind::FlagChanged { name, on } => {
                if let Some(flag) = self.flags.iter_mut().find(|f| &f.name == name) {
                    flag.on = *on;
                }
            }
            EventKind::Paused { gate } => {
                self.activity = Activity::Paused { gate: gate.clone() };
            }
            EventKind::Resumed { .. } | EventKind::Stepped { .. } => {
                self.activity = Activity::Running;
            }
            EventKind::CallStarted { label, .. } => {
                self.calling = Some(label.clone());
                self.model_calls += 1;
            }
            EventKind::CallFinished { .. } => {
                self.calling = None;
            }
        }
        self.log.push(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{FlagState, RunStarted};
    use serde_json::json;

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
        let started = EventKind::RunStarted(RunStarted {
            pattern: PatternKind::Collaboration,
            seed: 7,
            goal: "g".into(),
            clock: ClockMode::Virtual,
            flags: vec![FlagState {
                name: "legal".into(),
                on: false,
            }],
            source: None,
            started_at_ms: 0,
            scenario: scenario(),
        });
        let accepted = |round, agent: &str, stance| EventKind::ContributionAccepted {
            round,
            agent: agent.into(),
            stance,
            confidence: 0.5,
            summary: format!("{agent} in {round}"),
            actions: vec!["act".into()],
        };
        let kinds = vec![
            started,
            EventKind::RoundStarted {
                round: 1,
                speakers: vec!["a".into(), "b".into()],
            },
            EventKind::ContributionRequested {
                round: 1,
                agent: "a".into(),
            },
            accepted(1, "a", Stance::Go),
            accepted(1, "b", Stance::Block),
            EventKind::RoundFinished {
                round: 1,
                conflicts: vec![Conflict::BlockingVsNonBlock],
                decision: None,
            },
            EventKind::Paused {
                gate: GatePoint::Round { round: 2 },
            },
            EventKind::FlagChanged {
                name: "legal".into(),
                on: true,
            },
            EventKind::Resumed {
                gate: GatePoint::Round { round: 2 },
            },
            EventKind::RoundStarted {
                round: 2,
                speakers: vec!["a".into(), "b".into(), "legal".into()],
            },
            accepted(2, "a", Stance::Go),
            EventKind::ContributionRequested {
                round: 2,
                agent: "b".into(),
            },
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
            state.table.roles,
            vec!["a", "b", "legal"],
            "legal joins in round 2"
        );
        assert_eq!(state.table.rounds.len(), 2);
        let round_1 = &state.table.rounds[0];
        assert!(round_1.finished);
        assert_eq!(round_1.conflicts, vec![Conflict::BlockingVsNonBlock]);
        assert!(
            matches!(state.table.cell(1, 0), Some(Cell::Accepted(c)) if c.stance == Stance::Block)
        );
        assert_eq!(state.table.cell(2, 0), None, "legal did not sit in round 1");
        assert_eq!(state.table.cell(1, 1), Some(&Cell::Waiting));
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
                result: json!({"status": "stopped"}),
            },
        ));
        let state = RunState::from_events(1, &events);
        assert_eq!(state.activity, Activity::Finished);
        assert_eq!(state.table.cell(1, 1), None);
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
}
