//! Two round tables aligned (collaboration): agent × round, each cell the
//! agent's stance and confidence, a refused contribution or a question
//! left unanswered; under each round its conflicts and decision. An agent
//! who spoke in one run only (a flag seated them) has a row with nothing
//! on the other side.

mod tables;

use crate::bus::figures::Figures;
use crate::bus::{Event, EventKind, RunSummary};
use crate::compare::sections::{Cell, Tone};
use crate::compare::union;
use crate::compare::{Aligned, Alignment, CompareRules, Difference, Which};
use crate::patterns::collaboration::events::RoundEvent;
use crate::patterns::collaboration::events::{Conflict, Decision, Stance};
use crate::patterns::events::PatternEvent;
use crate::stop::StopReason;
use indexmap::IndexMap;
use serde::Serialize;
use std::sync::Arc;

/// What an agent did in one round.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum Contribution {
    /// Asked, and the run ended before it answered.
    Asked,
    Accepted {
        stance: Stance,
        confidence: f64,
    },
    Rejected {
        reason: StopReason,
    },
}

/// How a round ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct RoundEnd {
    pub(crate) conflicts: Vec<Conflict>,
    pub(crate) decision: Option<Decision>,
}

/// One agent across the rounds of both runs; `a` and `b` hold a cell per
/// round of [`RoundsAligned::rounds`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct AgentRow {
    pub(crate) agent: String,
    /// The run the agent spoke in, when it spoke in one only.
    pub(crate) only_in: Option<Which>,
    pub(crate) a: Vec<Option<Contribution>>,
    pub(crate) b: Vec<Option<Contribution>>,
}

/// How round `round` ended in each run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct RoundEnds {
    pub(crate) round: u32,
    pub(crate) a: Option<RoundEnd>,
    pub(crate) b: Option<RoundEnd>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct RoundsAligned {
    /// Every round either run convened, in order.
    pub(crate) rounds: Vec<u32>,
    pub(crate) agents: Vec<AgentRow>,
    pub(crate) ends: Vec<RoundEnds>,
}

/// One run's round table.
#[derive(Default)]
struct Table {
    /// Round number → agent → contribution, in speaking order.
    cells: IndexMap<u32, IndexMap<String, Contribution>>,
    ends: IndexMap<u32, RoundEnd>,
}

impl Table {
    fn of(events: &[Arc<Event>]) -> Table {
        let mut table = Table::default();
        for event in events {
            match &event.kind {
                EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                    round, ..
                })) => {
                    table.cells.entry(*round).or_default();
                }
                EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested {
                    round,
                    agent,
                })) => {
                    table.set(*round, agent, Contribution::Asked);
                }
                EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionAccepted {
                    round,
                    agent,
                    stance,
                    confidence,
                    ..
                })) => table.set(
                    *round,
                    agent,
                    Contribution::Accepted {
                        stance: *stance,
                        confidence: *confidence,
                    },
                ),
                EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRejected {
                    round,
                    agent,
                    reason,
                    ..
                })) => table.set(
                    *round,
                    agent,
                    Contribution::Rejected {
                        reason: reason.clone(),
                    },
                ),
                EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
                    round,
                    conflicts,
                    decision,
                })) => {
                    table.ends.insert(
                        *round,
                        RoundEnd {
                            conflicts: conflicts.clone(),
                            decision: *decision,
                        },
                    );
                }
                _ => {}
            }
        }
        table
    }

    fn set(&mut self, round: u32, agent: &str, cell: Contribution) {
        self.cells
            .entry(round)
            .or_default()
            .insert(agent.to_string(), cell);
    }

    /// Agents in the order they first spoke.
    fn agents(&self) -> Vec<String> {
        let mut agents: Vec<String> = Vec::new();
        for agent in self.cells.values().flat_map(|round| round.keys()) {
            if !agents.contains(agent) {
                agents.push(agent.clone());
            }
        }
        agents
    }

    fn cell(&self, round: u32, agent: &str) -> Option<Contribution> {
        self.cells.get(&round)?.get(agent).cloned()
    }
}

fn align(a: &[Arc<Event>], b: &[Arc<Event>]) -> RoundsAligned {
    let (ta, tb) = (Table::of(a), Table::of(b));
    let mut rounds: Vec<u32> = ta.cells.keys().chain(tb.cells.keys()).copied().collect();
    rounds.sort_unstable();
    rounds.dedup();
    let (agents_a, agents_b) = (ta.agents(), tb.agents());
    let agents = union(agents_a.iter(), agents_b.iter())
        .into_iter()
        .map(|agent| {
            let only_in = match (agents_a.contains(agent), agents_b.contains(agent)) {
                (true, false) => Some(Which::A),
                (false, true) => Some(Which::B),
                _ => None,
            };
            AgentRow {
                agent: agent.clone(),
                only_in,
                a: rounds.iter().map(|r| ta.cell(*r, agent)).collect(),
                b: rounds.iter().map(|r| tb.cell(*r, agent)).collect(),
            }
        })
        .collect();
    let ends = rounds
        .iter()
        .map(|round| RoundEnds {
            round: *round,
            a: ta.ends.get(round).cloned(),
            b: tb.ends.get(round).cloned(),
        })
        .collect();
    RoundsAligned {
        rounds,
        agents,
        ends,
    }
}

impl Aligned for RoundsAligned {
    fn differences(&self) -> Vec<Difference> {
        let mut out = Vec::new();
        for (i, round) in self.rounds.iter().enumerate() {
            for row in &self.agents {
                let (a, b) = (&row.a[i], &row.b[i]);
                if a != b {
                    out.push(Difference::new(
                        format!("rounds.{round}.{}", row.agent),
                        a,
                        b,
                    ));
                }
            }
            let ends = &self.ends[i];
            let conflicts = |end: &Option<RoundEnd>| end.as_ref().map(|e| e.conflicts.clone());
            // `none`: the round ended without one; `null`: it did not end.
            let decision = |end: &Option<RoundEnd>| {
                end.as_ref()
                    .map(|e| e.decision.map_or("none", |d| d.as_str()))
            };
            if conflicts(&ends.a) != conflicts(&ends.b) {
                out.push(Difference::new(
                    format!("rounds.{round}.conflicts"),
                    conflicts(&ends.a),
                    conflicts(&ends.b),
                ));
            }
            if decision(&ends.a) != decision(&ends.b) {
                out.push(Difference::new(
                    format!("rounds.{round}.decision"),
                    decision(&ends.a),
                    decision(&ends.b),
                ));
            }
        }
        out
    }

    fn sections(&self) -> Vec<crate::compare::sections::Section> {
        vec![tables::round_table(self)]
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "rounds": self })
    }
}

/// The rules by which two runs of this pattern are compared.
pub(crate) struct Rules;

impl CompareRules for Rules {
    fn align(&self, a: &[Arc<Event>], b: &[Arc<Event>]) -> Alignment {
        Alignment::new(align(a, b))
    }

    /// A round's roster follows from the scenario and the flags, which the
    /// comparison's facts and flag changes already compare: runs diverge
    /// where someone first acts differently, not where the roster is read.
    fn leave_out(&self, kind: &EventKind, fields: &mut serde_json::Map<String, serde_json::Value>) {
        if let EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted { .. })) = kind {
            fields.remove("speakers");
        }
    }

    fn figures(&self) -> &'static Figures {
        &super::figures::FIGURES
    }

    /// The table's decision: `GO WITH CAUTION`.
    fn came_to(&self, summary: &RunSummary) -> Option<Cell> {
        let decision: Decision = summary.read(super::figures::DECISION)?;
        let words = decision.as_str().replace('_', " ").to_uppercase();
        Some(Cell::toned(words, decision_tone(decision)))
    }
}

/// How a decision reads at a glance.
pub(super) fn decision_tone(decision: Decision) -> Tone {
    match decision {
        Decision::Go => Tone::Good,
        Decision::GoWithCaution => Tone::Caution,
        Decision::NoGo => Tone::Bad,
    }
}

#[cfg(test)]
mod tests;
