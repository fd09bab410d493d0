//! What the scenario floor asks of the patterns' own sections. A scenario
//! file holds one section per pattern (the round table's `team`, the
//! orchestrator's `health_rules`, the teams' `agents`, `limits` and
//! `teams`, research's `sources`, the graph's `graph`); each pattern
//! defines its section's type, checks and descriptions in its own folder.
//! `Scenario` names them through the `Sections` registry and asks of them
//! only what this file declares, so the floors below the patterns never
//! name a pattern's type. The registry is given once, with the patterns'
//! other declarations (`patterns/declared.rs`); how each section is
//! checked is `checks::SectionChecks`.

use super::research_tools::ResearchTools;
use super::workers::WorkerSpec;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;

/// The one registry of the patterns' sections; its `Sections` impl lives
/// with the patterns.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PatternSections;

/// Every pattern's section as the scenario file holds it, by type, and its
/// words in the schema. How each is checked is `checks::SectionChecks`.
pub(crate) trait Sections {
    /// collaboration: `team`, its roles and their speaking order.
    type Team: Section;
    /// orchestrator: one of `health_rules`.
    type HealthRule: Section;
    /// swarm and coordinator: one of `agents`.
    type Agent: Section;
    /// swarm and coordinator: `limits`, and a member team's.
    type TeamLimits: Section + TimedLimits;
    /// coordinator: one of the member `teams`.
    type MemberTeam: Section + MemberTeam<Limits = Self::TeamLimits>;
    /// research: `sources`, what its tools find.
    type Sources: Section + ToolSection;
    /// graph: `graph`, the workflow.
    type Graph: Section;

    /// The schema's descriptions of the round table's `budget` keys, in the
    /// order `max_rounds`, `max_messages`, `min_go_votes`,
    /// `escalate_after_blocking_rounds`.
    const ROUND_TABLE_BUDGET_DOCS: [&'static str; 4];
    /// The schema's description of the sim's `provider.synthesis`.
    const SYNTHESIS_SCRIPT_DOC: &'static str;
}

/// What every section is: read from and written to the file, described in
/// the schema, compared and cloned with its scenario.
pub(crate) trait Section:
    Clone + Debug + PartialEq + Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static
{
}

impl<T> Section for T where
    T: Clone
        + Debug
        + PartialEq
        + Serialize
        + DeserializeOwned
        + JsonSchema
        + Send
        + Sync
        + 'static
{
}

/// Team limits that give durations, which the shared checks hold to what
/// `crate::duration` accepts.
pub(crate) trait TimedLimits {
    /// Each duration in milliseconds by key, set or not.
    fn timeouts_ms(&self) -> Vec<(&'static str, Option<u64>)>;
}

/// A member team: the tools it calls through the gateway and its limits.
pub(crate) trait MemberTeam {
    type Limits;
    /// Its tools, by name within the team.
    fn tools(&self) -> &IndexMap<String, WorkerSpec>;
    /// Its own limits, when written.
    fn limits(&self) -> Option<&Self::Limits>;
}

/// A section that declares how the research tools' calls behave.
pub(crate) trait ToolSection {
    fn tools(&self) -> &ResearchTools;
}

/// A section's type, as the registry names it.
pub(crate) type TeamSection = <PatternSections as Sections>::Team;
pub(crate) type HealthRuleSection = <PatternSections as Sections>::HealthRule;
pub(crate) type AgentSection = <PatternSections as Sections>::Agent;
pub(crate) type TeamLimitsSection = <PatternSections as Sections>::TeamLimits;
pub(crate) type MemberTeamSection = <PatternSections as Sections>::MemberTeam;
pub(crate) type SourcesSection = <PatternSections as Sections>::Sources;
pub(crate) type GraphSection = <PatternSections as Sections>::Graph;
