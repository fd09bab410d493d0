//! The round table's state: one row per role in order of first appearance,
//! one column per round, folded from the collaboration's events. Finished
//! rounds are shared (`Arc`), so copies of the state for replay's
//! checkpoints stay cheap.

use super::asks::Escalated;
use crate::bus::{EventKind, RunStarted};
use crate::patterns::collaboration::escalate::HumanChoice;
use crate::patterns::events::PatternEvent;
use crate::patterns::events::RoundEvent;
use crate::patterns::events::{Conflict, Decision, Stance};
use crate::stop::StopReason;
use crate::tui::patterns::folding::Fold;
use crate::tui::state::outcome::Outcome;
use serde_json::Value;
use std::sync::Arc;

/// The round limit a scenario without one gets (000's default).
const DEFAULT_MAX_ROUNDS: u32 = 3;

/// How many of the latest rounds the table keeps. A longer run's earlier
/// rounds are counted, not kept (its recording has them all), so that the
/// dashboard's memory does not grow with the run.
pub(crate) const KEPT_ROUNDS: usize = 256;

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RoundTable {
    pub(crate) roles: Vec<String>,
    pub(crate) rounds: Vec<Arc<RoundColumn>>,
    /// The scenario's round limit.
    pub(crate) max_rounds: u32,
    /// Rounds before those kept.
    pub(crate) earlier_rounds: usize,
    /// The last time the table asked a person, as the question dialog
    /// shows it.
    pub(crate) asked: Option<Escalated>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RoundColumn {
    pub(crate) round: u32,
    pub(crate) speakers: Vec<String>,
    /// Indexed like `RoundTable::roles`.
    pub(crate) cells: Vec<Option<Cell>>,
    pub(crate) conflicts: Vec<Conflict>,
    pub(crate) decision: Option<Decision>,
    /// What a person answered after this round, when the table asked one.
    pub(crate) person: Option<HumanChoice>,
    /// The table asked a person after this round.
    pub(crate) escalated: bool,
    pub(crate) finished: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    /// Asked, no answer yet.
    Waiting,
    Accepted(Contribution),
    Rejected {
        reason: StopReason,
        raw: Value,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Contribution {
    pub(crate) stance: Stance,
    pub(crate) confidence: f64,
    pub(crate) summary: String,
    pub(crate) actions: Vec<String>,
}

impl RoundTable {
    /// Seat the sequence and the roles of joining flags that are on at the
    /// run's start.
    pub(super) fn seated(started: &RunStarted) -> RoundTable {
        let scenario = &started.scenario;
        let mut table = RoundTable {
            max_rounds: scenario
                .budget
                .as_ref()
                .and_then(|b| b.max_rounds)
                .unwrap_or(DEFAULT_MAX_ROUNDS),
            ..RoundTable::default()
        };
        if let Some(team) = &scenario.team {
            for role in &team.sequence {
                table.role_index(role);
            }
        }
        let on = |flag: &str| started.flags.iter().any(|f| f.name == flag && f.on);
        for (flag, spec) in &scenario.flags {
            if spec.joins && on(flag) {
                for role in &spec.roles {
                    table.role_index(role);
                }
            }
        }
        table
    }
}

impl Fold for RoundTable {
    fn apply(&mut self, kind: &EventKind, _t_ms: u64) {
        match kind {
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                round,
                speakers,
            })) => {
                for role in speakers {
                    self.role_index(role);
                }
                self.rounds.push(Arc::new(RoundColumn {
                    round: *round,
                    speakers: speakers.clone(),
                    cells: Vec::new(),
                    conflicts: Vec::new(),
                    decision: None,
                    person: None,
                    escalated: false,
                    finished: false,
                }));
                // Down to the latest once twice as many: nothing per round
                // on average.
                if self.rounds.len() >= 2 * KEPT_ROUNDS {
                    let over = self.rounds.len() - KEPT_ROUNDS;
                    self.rounds.drain(..over);
                    self.earlier_rounds += over;
                }
            }
            EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested {
                round,
                agent,
            })) => self.set_cell(*round, agent, Cell::Waiting),
            EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionAccepted {
                round,
                agent,
                stance,
                confidence,
                summary,
                actions,
            })) => self.set_cell(
                *round,
                agent,
                Cell::Accepted(Contribution {
                    stance: *stance,
                    confidence: *confidence,
                    summary: summary.clone(),
                    actions: actions.clone(),
                }),
            ),
            EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRejected {
                round,
                agent,
                reason,
                raw,
            })) => self.set_cell(
                *round,
                agent,
                Cell::Rejected {
                    reason: reason.clone(),
                    raw: raw.clone(),
                },
            ),
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
                round,
                conflicts,
                decision,
            })) => {
                if let Some(column) = self.column(*round) {
                    column.conflicts = conflicts.clone();
                    column.decision = *decision;
                    column.finished = true;
                }
            }
            EventKind::Pattern(PatternEvent::Round(RoundEvent::EscalatedToHuman {
                round,
                blocking_rounds,
                conflicts,
                stances,
            })) => {
                if let Some(column) = self.column(*round) {
                    column.escalated = true;
                }
                self.asked = Some(Escalated {
                    round: *round,
                    blocking_rounds: *blocking_rounds,
                    conflicts: conflicts.clone(),
                    stances: stances.clone(),
                });
            }
            // The table asks after the round it just finished: the last.
            EventKind::HumanDecided { choice, .. } => {
                if let Some(column) = self.rounds.last_mut() {
                    Arc::make_mut(column).person = HumanChoice::named(choice);
                }
            }
            _ => {}
        }
    }

    /// The run ended: nobody is still being asked.
    fn close(&mut self, _outcome: &Outcome) {
        for column in &mut self.rounds {
            if column
                .cells
                .iter()
                .any(|c| matches!(c, Some(Cell::Waiting)))
            {
                for cell in Arc::make_mut(column).cells.iter_mut() {
                    if matches!(cell, Some(Cell::Waiting)) {
                        *cell = None;
                    }
                }
            }
        }
    }
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
        self.rounds
            .iter_mut()
            .rev()
            .find(|c| c.round == round)
            .map(Arc::make_mut)
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

    pub(crate) fn cell(&self, row: usize, column: usize) -> Option<&Cell> {
        self.rounds.get(column)?.cells.get(row)?.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::events::PatternEvent;

    #[test]
    fn a_long_table_keeps_its_latest_rounds_and_counts_the_rest() {
        let mut table = RoundTable::default();
        for round in 1..=2_000u32 {
            table.apply(
                &EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                    round,
                    speakers: vec!["finance".into()],
                })),
                0,
            );
            table.apply(
                &EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
                    round,
                    conflicts: vec![],
                    decision: None,
                })),
                0,
            );
            assert!(table.rounds.len() < 2 * KEPT_ROUNDS);
        }
        assert_eq!(table.earlier_rounds + table.rounds.len(), 2_000);
        let last = table.rounds.last().unwrap();
        assert_eq!((last.round, last.finished), (2_000, true));
        assert_eq!(table.rounds[0].round as usize, table.earlier_rounds + 1);
    }
}
