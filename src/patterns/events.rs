//! The registry of every pattern's events: the bus carries a pattern's
//! step as one [`PatternEvent`], and sees it only through the methods here
//! (its kind's name, its line, the steps and gates it marks). Each arm
//! names one pattern's own event enum, defined in that pattern's folder;
//! no match here has a wildcard, so a pattern left out does not compile.
//! Data only: it imports the patterns' event and describe files, never
//! the bus's upper parts nor a runner.

pub(crate) use crate::bus::cassette::Measure;
use crate::bus::event::named::kinds_of;
use crate::bus::event::values::GateKind;
use crate::bus::pattern::PatternPayload;
use crate::patterns::collaboration::{describe as round_lines, events::RoundNamed};
use crate::patterns::graph::{describe as graph_lines, events::GraphNamed};
use crate::patterns::orchestrator::{describe as task_lines, events::TaskNamed};
use crate::patterns::research::{describe as research_lines, events::ResearchNamed};
use crate::patterns::team::{describe as team_lines, events::TeamNamed};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::HashMap;
use std::sync::OnceLock;

pub use crate::patterns::collaboration::events::{
    Conflict, Decision, RoundEvent, SeatStance, Stance,
};
pub use crate::patterns::graph::events::{
    ActivationStatus, EdgeCheck, GraphEvent, GraphNodeKind, PlannedEdge, PlannedNode,
};
pub use crate::patterns::orchestrator::events::{Health, PlannedTask, TaskEvent, TaskStatus};
pub use crate::patterns::research::events::{
    Cited, NoteExtracted, NotesVerified, PageRead, ResearchEvent, ResearchPhase, SourceAllowed,
    SourceDenial, SourceDenied, SourceFound, SourcesDeduped, StepFinished, StepStarted,
};
pub use crate::patterns::team::events::{
    HandoffRejection, MemberTeam, TURN_TEXT_CHARS, TeamEvent, TurnOutcome,
};

/// One step of a pattern, as the bus carries it. Each pattern's enum is
/// tagged by `type` itself, so the recorded JSON is the pattern's event
/// as it is: `{"type": "contribution_accepted", ...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PatternEvent {
    /// A round table's step ([`RoundEvent`]).
    Round(RoundEvent),
    /// An orchestrator's step ([`TaskEvent`]).
    Tasks(TaskEvent),
    /// A swarm's or a coordinator's step ([`TeamEvent`]).
    Team(TeamEvent),
    /// A research workflow's step ([`ResearchEvent`]).
    Research(ResearchEvent),
    /// A graph workflow's step ([`GraphEvent`]).
    Graph(GraphEvent),
}

impl PatternEvent {
    /// The kind's serde name, e.g. `contribution_accepted`.
    pub(crate) fn kind_name(&self) -> &'static str {
        match self {
            PatternEvent::Round(event) => event.into(),
            PatternEvent::Tasks(event) => event.into(),
            PatternEvent::Team(event) => event.into(),
            PatternEvent::Research(event) => event.into(),
            PatternEvent::Graph(event) => event.into(),
        }
    }

    /// What happened, in the pattern's words (not yet cleaned for the
    /// terminal).
    pub(crate) fn describe(&self) -> String {
        match self {
            PatternEvent::Round(event) => round_lines::line(event),
            PatternEvent::Tasks(event) => task_lines::line(event),
            PatternEvent::Team(event) => team_lines::line(event),
            PatternEvent::Research(event) => research_lines::line(event),
            PatternEvent::Graph(event) => graph_lines::line(event),
        }
    }

    /// Whether the event begins one of its pattern's steps: a round, a
    /// dispatch wave, an agent's turn, a research step.
    pub(crate) fn opens_step(&self) -> bool {
        match self {
            PatternEvent::Round(event) => round_lines::opens_step(event),
            PatternEvent::Tasks(event) => task_lines::opens_step(event),
            PatternEvent::Team(event) => team_lines::opens_step(event),
            PatternEvent::Research(event) => research_lines::opens_step(event),
            PatternEvent::Graph(event) => graph_lines::opens_step(event),
        }
    }

    /// The gate the event opens a step after, with its number.
    pub(crate) fn opened_gate(&self) -> Option<(GateKind, u32)> {
        match self {
            PatternEvent::Round(event) => round_lines::opened_gate(event),
            PatternEvent::Tasks(event) => task_lines::opened_gate(event),
            PatternEvent::Team(event) => team_lines::opened_gate(event),
            PatternEvent::Research(event) => research_lines::opened_gate(event),
            PatternEvent::Graph(event) => graph_lines::opened_gate(event),
        }
    }

    /// Whether the event raises a question to a person at the next gate
    /// (the round table's escalation).
    pub(crate) fn asks_a_person(&self) -> bool {
        match self {
            PatternEvent::Round(event) => round_lines::asks_a_person(event),
            PatternEvent::Graph(event) => graph_lines::asks_a_person(event),
            PatternEvent::Tasks(_) | PatternEvent::Team(_) | PatternEvent::Research(_) => false,
        }
    }

    /// What the event measured on the run's clock, if anything, with its
    /// value (the event is at run time `t_ms`).
    pub(crate) fn measured(&self, t_ms: u64) -> Option<(Measure, u64)> {
        match self {
            PatternEvent::Team(event) => team_lines::measured(event),
            PatternEvent::Research(event) => research_lines::measured(event, t_ms),
            PatternEvent::Round(_) | PatternEvent::Tasks(_) | PatternEvent::Graph(_) => None,
        }
    }

    /// Whether the event closes one of its pattern's steps.
    pub(crate) fn closes_step(&self) -> bool {
        match self {
            PatternEvent::Round(event) => round_lines::closes_step(event),
            PatternEvent::Tasks(event) => task_lines::closes_step(event),
            PatternEvent::Team(event) => team_lines::closes_step(event),
            PatternEvent::Research(event) => research_lines::closes_step(event),
            PatternEvent::Graph(event) => graph_lines::closes_step(event),
        }
    }
}

/// Each pattern's events as one reader: the bus learns the names of a
/// group's kinds from it and reads a line whose kind it names straight
/// through the text (see `bus::event::named`), never through serde's
/// buffer of every field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum PatternGroup {
    Round,
    Tasks,
    Team,
    Research,
    Graph,
}

impl PatternGroup {
    pub(crate) const ALL: [PatternGroup; 5] = [
        PatternGroup::Round,
        PatternGroup::Tasks,
        PatternGroup::Team,
        PatternGroup::Research,
        PatternGroup::Graph,
    ];

    /// One of the group's kinds, read as the kind the deserializer names.
    pub(crate) fn read<'de, D: Deserializer<'de>>(self, de: D) -> Result<PatternEvent, D::Error> {
        match self {
            PatternGroup::Round => RoundNamed::deserialize(de).map(PatternEvent::Round),
            PatternGroup::Tasks => TaskNamed::deserialize(de).map(PatternEvent::Tasks),
            PatternGroup::Team => TeamNamed::deserialize(de).map(PatternEvent::Team),
            PatternGroup::Research => ResearchNamed::deserialize(de).map(PatternEvent::Research),
            PatternGroup::Graph => GraphNamed::deserialize(de).map(PatternEvent::Graph),
        }
    }

    /// The names of the group's kinds, as its enum lists them.
    #[cfg(test)]
    pub(crate) fn kinds(self) -> &'static [&'static str] {
        use strum::VariantNames;
        match self {
            PatternGroup::Round => RoundEvent::VARIANTS,
            PatternGroup::Tasks => TaskEvent::VARIANTS,
            PatternGroup::Team => TeamEvent::VARIANTS,
            PatternGroup::Research => ResearchEvent::VARIANTS,
            PatternGroup::Graph => GraphEvent::VARIANTS,
        }
    }
}

/// Every pattern's group of events by the names of its kinds, learnt
/// from the groups' own readers (what their derive hands
/// `deserialize_enum`).
fn groups() -> &'static HashMap<&'static str, PatternGroup> {
    static GROUPS: OnceLock<HashMap<&'static str, PatternGroup>> = OnceLock::new();
    GROUPS.get_or_init(|| {
        PatternGroup::ALL
            .into_iter()
            .flat_map(|group| {
                kinds_of(|kinds| group.read(kinds))
                    .iter()
                    .map(move |kind| (*kind, group))
            })
            .collect()
    })
}

impl PatternPayload for PatternEvent {
    fn kind_name(&self) -> &'static str {
        PatternEvent::kind_name(self)
    }

    fn describe(&self) -> String {
        PatternEvent::describe(self)
    }

    fn opens_step(&self) -> bool {
        PatternEvent::opens_step(self)
    }

    fn opened_gate(&self) -> Option<(GateKind, u32)> {
        PatternEvent::opened_gate(self)
    }

    fn closes_step(&self) -> bool {
        PatternEvent::closes_step(self)
    }

    fn is_kind(name: &str) -> bool {
        groups().contains_key(name)
    }

    fn read_kind<'de, D: Deserializer<'de>>(kind: &str, de: D) -> Result<Self, D::Error> {
        match groups().get(kind) {
            Some(group) => group.read(de),
            None => Err(serde::de::Error::custom(format_args!(
                "`{kind}` is no pattern's event"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::event::KindNamed;

    #[test]
    fn each_kind_is_named_as_serde_reads_it() {
        for group in PatternGroup::ALL {
            assert_eq!(group.kinds(), kinds_of(|kinds| group.read(kinds)));
        }
    }

    #[test]
    fn no_kind_is_in_two_groups_or_shared() {
        let shared = kinds_of(KindNamed::<PatternEvent>::deserialize);
        let grouped: usize = PatternGroup::ALL
            .iter()
            .map(|group| kinds_of(|kinds| group.read(kinds)).len())
            .sum();
        assert_eq!(groups().len(), grouped);
        assert!(shared.iter().all(|kind| !groups().contains_key(kind)));
    }
}
