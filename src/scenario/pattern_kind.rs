//! Which pattern a scenario runs, and what each kind is made of: the one
//! table the scenario's checks and the real tools ask instead of naming
//! kinds themselves.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
pub enum PatternKind {
    // The first of the kinds, for a value not yet read.
    #[default]
    Collaboration,
    Orchestrator,
    Swarm,
    Coordinator,
    Research,
    Graph,
}

impl PatternKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PatternKind::Collaboration => "collaboration",
            PatternKind::Orchestrator => "orchestrator",
            PatternKind::Swarm => "swarm",
            PatternKind::Coordinator => "coordinator",
            PatternKind::Research => "research",
            PatternKind::Graph => "graph",
        }
    }

    /// Whether runs of this kind are a round table: the roles of `team`
    /// speak in rounds (the sim scripts them in `provider.responses`), and
    /// a run may ask a person.
    pub(crate) fn is_round_table(self) -> bool {
        self == PatternKind::Collaboration
    }

    /// Whether a planner splits runs of this kind into tasks for their
    /// `workers` (the sim scripts it in `provider.plan`).
    pub(crate) fn dispatches_workers(self) -> bool {
        self == PatternKind::Orchestrator
    }

    /// Whether runs of this kind are a team of `agents` taking turns and
    /// calling `tools` from the `entry` agent on, within `limits` (the sim
    /// scripts `provider.turns`).
    pub(crate) fn is_team(self) -> bool {
        matches!(self, PatternKind::Swarm | PatternKind::Coordinator)
    }

    /// Whether runs of this kind are agents of the scenario's `agents`
    /// taking turns, as a team's do or a graph's agent nodes: the sim
    /// scripts their turns in `provider.turns`, they call the scenario's
    /// `tools`, and an agent may be a member team.
    pub(crate) fn runs_agents(self) -> bool {
        self.is_team() || self == PatternKind::Graph
    }

    /// Where this kind stands in the format's order of kinds (the order
    /// every list of patterns keeps).
    pub(crate) fn place(self) -> usize {
        self as usize
    }

    /// Whether the team's `entry` agent coordinates: it keeps control and
    /// calls the other agents as members, who answer it.
    pub(crate) fn has_coordinator(self) -> bool {
        self == PatternKind::Coordinator
    }

    /// Whether runs of this kind research `sources` with the research
    /// tools, from a plan to a synthesis.
    pub(crate) fn researches(self) -> bool {
        self == PatternKind::Research
    }
}

impl std::fmt::Display for PatternKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
