//! The round table's sections of a scenario file: the team (`team`: its
//! roles and their speaking order) and which `budget` keys are its own,
//! with their descriptions in the JSON Schema. Data only: the scenario
//! floor reads and checks them, so this file imports nothing above it and
//! nothing of the round table's runner.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The sections of a scenario file a round table owns.
pub(crate) const SECTIONS: &[&str] = &["team"];

/// The `budget` keys a round table reads.
pub(crate) const BUDGET_KEYS: &[&str] = &[
    "max_rounds",
    "max_messages",
    "min_go_votes",
    "escalate_after_blocking_rounds",
];

/// The schema's words for the round table's `budget` keys: `max_rounds`,
/// `max_messages`, `min_go_votes`, `escalate_after_blocking_rounds`.
pub(crate) const BUDGET_DOCS: [&str; 4] = [
    "collaboration: rounds before the run stops with `max_rounds_reached`\n(default 3).",
    "collaboration: contributions the gateway accepts for checking before\n`max_messages` (default 12).",
    "collaboration: `go` votes a round needs to decide (default 2).",
    "collaboration: after this many rounds in a row with a blocking\nstance the run asks a person (the dashboard's dialog, or `--decide`);\nheadless without an answer it stops with `escalated_to_human`.",
];

/// The collaboration team.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Team {
    /// Every role that may take part (the policy allowlist), by name.
    pub(crate) roles: IndexMap<String, RoleSpec>,
    /// The speaking order of every round; each name must be a declared role.
    pub(crate) sequence: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RoleSpec {
    /// What the role looks at, given to the model as its brief.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) focus: Option<String>,
}
