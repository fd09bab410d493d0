//! The swarm's and the coordinator's sections of a scenario file: the
//! agents (`agents`, `entry`), the member teams (`teams`) and the team's
//! safety limits (`limits`), with their defaults. Data only: the scenario
//! floor reads and checks them, so this file imports nothing above it and
//! nothing of the team's runner.

use crate::scenario::pattern_kind::PatternKind;
use crate::scenario::workers::WorkerSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// 002's `DefaultSwarmConfig()`: at most 20 transfers a run, no node
/// timeout, and a loop check over the last 8 targets that wants at least 3
/// distinct names.
pub(crate) const DEFAULT_MAX_HANDOFFS: u32 = 20;
pub(crate) const DEFAULT_NODE_TIMEOUT_MS: u64 = 0;
pub(crate) const DEFAULT_REPETITIVE_HANDOFF_WINDOW: u32 = 8;
pub(crate) const DEFAULT_REPETITIVE_HANDOFF_MIN_UNIQUE: u32 = 3;
/// The team budgets' defaults (DESIGN.md "swarm").
pub(crate) const DEFAULT_MAX_LLM_CALLS: u32 = 30;
pub(crate) const DEFAULT_TEAM_MAX_SECONDS: f64 = 120.0;

/// The `budget` keys a swarm or a coordinator reads beside the shared ones.
pub(crate) const BUDGET_KEYS: &[&str] = &["max_llm_calls"];

/// The sections of a scenario file a swarm owns.
pub(crate) const SWARM_SECTIONS: &[&str] = &["entry", "agents", "limits", "tools"];

/// The sections of a scenario file a coordinator owns: a swarm's, and the
/// member teams.
pub(crate) const COORDINATOR_SECTIONS: &[&str] = &["entry", "agents", "limits", "tools", "teams"];

/// An agent of a swarm or coordinator team.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentSpec {
    /// What the agent does; the other agents see it when they choose whom
    /// to hand control to or call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// coordinator members: what a member sees of the coordinator's
    /// conversation when it is called (default `isolated`: only its task).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) history: Option<MemberHistory>,
    /// coordinator members only: this member is the team of that name in
    /// the scenario's `teams`, called like any member and run to its own
    /// stop (`{"team": "research_team", "description": "…"}`). A swarm's
    /// agents are agents only: a swarm hands control to its agents, and a
    /// team cannot take the sub-agents a handoff needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) team: Option<String>,
}

/// Why a swarm's agent `agent` cannot be the team `team`, as the
/// scenario's check words it.
pub(crate) fn team_as_swarm_agent(team: &str, agent: &str) -> String {
    format!(
        "a swarm's agents are agents only, found the team {} as agent {}: a swarm hands control to its agents, and a team cannot take the sub-agents a handoff needs; put a coordinator over the swarm and make the team a member of that coordinator",
        serde_json::Value::from(team),
        serde_json::Value::from(agent)
    )
}

/// The most levels of teams one under another: the scenario's own team is
/// level 0, a member team level 1, its member team level 2, and so on.
pub(crate) const MAX_TEAM_DEPTH: usize = 4;

/// A team a coordinator's member may be: written as a swarm or coordinator
/// scenario's own pattern part is, so that it runs on its own when lifted
/// out into a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TeamSpec {
    /// `swarm` or `coordinator`.
    pub(crate) pattern: PatternKind,
    /// swarm: the agent that takes the first turn; coordinator: the
    /// coordinator, which calls the other agents as its members.
    pub(crate) entry: String,
    /// Every agent of the team, by name; a coordinator team's member may
    /// itself be a team (`{"team": NAME}`).
    pub(crate) agents: indexmap::IndexMap<String, AgentSpec>,
    /// The team's own safety limits; each missing one takes 002's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) limits: Option<TeamLimits>,
    /// The tools the team's agents may call, by name, as a scenario's
    /// `tools`.
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub(crate) tools: indexmap::IndexMap<String, WorkerSpec>,
}

/// What a coordinator's member sees when it is called (002's history scope).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MemberHistory {
    /// Only its task and its own turns.
    Isolated,
    /// Also the coordinator's conversation so far: its turns and the
    /// members' answers before this call (002's default, `ParentBranch`).
    Shared,
}

/// The team's safety limits. In a swarm, 0 turns a limit off, as in 002's
/// `SwarmConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TeamLimits {
    /// swarm: transfers a run may ask for, refused ones included (default
    /// 20; 0: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_handoffs: Option<u32>,
    /// swarm: how long a transfer target may hold control, in milliseconds
    /// of run time from the accepted transfer (default 0: no limit). The
    /// entry agent has no such bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) node_timeout_ms: Option<u64>,
    /// swarm: how many recent transfer targets the loop check looks at
    /// (default 8; 0 turns the check off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) repetitive_handoff_window: Option<u32>,
    /// swarm: the fewest distinct names a full window must hold, or the
    /// transfer is refused as `repetitive_handoff` (default 3; 0 turns the
    /// check off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) repetitive_handoff_min_unique: Option<u32>,
    /// coordinator: how long a member may take to answer a call, in
    /// milliseconds of run time (default 0: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) member_timeout_ms: Option<u64>,
    /// coordinator: call the members a turn names at once (default true);
    /// false calls them one after another, in the order named, and a stop
    /// of the run met by one calls none after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parallel: Option<bool>,
    /// coordinator: end the run with the members' answers once a turn's
    /// members have answered, without the coordinator's summary turn
    /// (default false; 002's `SkipSummarization`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) skip_summary: Option<bool>,
}

impl TeamLimits {
    pub(crate) fn max_handoffs(&self) -> u32 {
        self.max_handoffs.unwrap_or(DEFAULT_MAX_HANDOFFS)
    }

    pub(crate) fn node_timeout_ms(&self) -> u64 {
        self.node_timeout_ms.unwrap_or(DEFAULT_NODE_TIMEOUT_MS)
    }

    pub(crate) fn window(&self) -> u32 {
        self.repetitive_handoff_window
            .unwrap_or(DEFAULT_REPETITIVE_HANDOFF_WINDOW)
    }

    pub(crate) fn min_unique(&self) -> u32 {
        self.repetitive_handoff_min_unique
            .unwrap_or(DEFAULT_REPETITIVE_HANDOFF_MIN_UNIQUE)
    }

    pub(crate) fn member_timeout_ms(&self) -> u64 {
        self.member_timeout_ms.unwrap_or(0)
    }

    pub(crate) fn parallel(&self) -> bool {
        self.parallel.unwrap_or(true)
    }

    pub(crate) fn skip_summary(&self) -> bool {
        self.skip_summary.unwrap_or(false)
    }
}

impl TeamLimits {
    /// The keys that are set, by name, with the pattern they belong to.
    pub(crate) fn keys_set(&self) -> Vec<(&'static str, PatternKind)> {
        const SWARM: PatternKind = PatternKind::Swarm;
        const COORDINATOR: PatternKind = PatternKind::Coordinator;
        [
            ("max_handoffs", self.max_handoffs.is_some(), SWARM),
            ("node_timeout_ms", self.node_timeout_ms.is_some(), SWARM),
            (
                "repetitive_handoff_window",
                self.repetitive_handoff_window.is_some(),
                SWARM,
            ),
            (
                "repetitive_handoff_min_unique",
                self.repetitive_handoff_min_unique.is_some(),
                SWARM,
            ),
            (
                "member_timeout_ms",
                self.member_timeout_ms.is_some(),
                COORDINATOR,
            ),
            ("parallel", self.parallel.is_some(), COORDINATOR),
            ("skip_summary", self.skip_summary.is_some(), COORDINATOR),
        ]
        .into_iter()
        .filter(|(_, set, _)| *set)
        .map(|(name, _, pattern)| (name, pattern))
        .collect()
    }
}

impl crate::scenario::TimedLimits for TeamLimits {
    fn timeouts_ms(&self) -> Vec<(&'static str, Option<u64>)> {
        vec![
            ("node_timeout_ms", self.node_timeout_ms),
            ("member_timeout_ms", self.member_timeout_ms),
        ]
    }
}

impl crate::scenario::MemberTeam for TeamSpec {
    type Limits = TeamLimits;

    fn tools(&self) -> &indexmap::IndexMap<String, WorkerSpec> {
        &self.tools
    }

    fn limits(&self) -> Option<&TeamLimits> {
        self.limits.as_ref()
    }
}
