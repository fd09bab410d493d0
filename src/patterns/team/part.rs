//! Which team a run of turns belongs to: the scenario's own part (its
//! `agents`, `entry`, `limits`, `tools`) or a member team of its `teams`
//! (002's "Team of Teams"), called by a coordinator and run to its own
//! stop. A member team's agents are named by their path in every event
//! (`launch/research_team/analyst`), scripted and gated as `TEAM/AGENT`,
//! and call their team's own tools, which the gateway knows as
//! `TEAM/TOOL`; the scenario's own agents keep their bare names.

use super::scenario::{AgentSpec, TeamLimits, TeamSpec};
use crate::patterns::team::events::MemberTeam;
use crate::scenario::{PatternKind, Scenario, WorkerSpec};
use indexmap::IndexMap;
use std::borrow::Cow;
use std::time::Duration;

/// A team's part of the scenario, and where it sits in the run.
#[derive(Clone, Debug)]
pub(crate) struct Part<'a> {
    pub(crate) pattern: PatternKind,
    pub(crate) agents: &'a IndexMap<String, AgentSpec>,
    pub(crate) tools: &'a IndexMap<String, WorkerSpec>,
    /// The swarm's first holder, or the coordinator.
    pub(crate) entry: String,
    pub(crate) limits: TeamLimits,
    /// `None` for the scenario's own team.
    pub(crate) nested: Option<Nested<'a>>,
}

/// Where a member team sits: who called it and by when it must answer.
#[derive(Clone, Debug)]
pub(crate) struct Nested<'a> {
    /// The team's name in the scenario's `teams`.
    pub(crate) name: &'a str,
    /// `launch/research_team`: its agents are `PATH/AGENT`.
    pub(crate) path: String,
    /// The member as its caller's events name it.
    pub(crate) member: String,
    /// The caller's deadline for the member call, which bounds every call
    /// inside the team.
    pub(crate) deadline: Option<Duration>,
}

impl<'a> Part<'a> {
    /// The scenario's own team. The loader refuses a team without an
    /// entry; one built in code without it starts with the first agent.
    pub(crate) fn of_scenario(scenario: &'a Scenario) -> Self {
        let entry = scenario
            .entry
            .clone()
            .or_else(|| scenario.agents.keys().next().cloned())
            .unwrap_or_default();
        Part {
            pattern: scenario.pattern,
            agents: &scenario.agents,
            tools: &scenario.tools,
            entry,
            limits: scenario.limits.clone().unwrap_or_default(),
            nested: None,
        }
    }

    /// The member team `name` (`spec`), called as `member` by an agent of
    /// this team, within `deadline`; `earlier` calls of the same member in
    /// the same turn came before this one.
    pub(crate) fn member_team(
        &self,
        name: &'a str,
        spec: &'a TeamSpec,
        (member, earlier): (&str, usize),
        deadline: Option<Duration>,
    ) -> Part<'a> {
        Part {
            pattern: spec.pattern,
            agents: &spec.agents,
            tools: &spec.tools,
            entry: spec.entry.clone(),
            limits: spec.limits.clone().unwrap_or_default(),
            nested: Some(Nested {
                name,
                path: self.team_path(member, earlier),
                member: self.path_of(member).into_owned(),
                deadline,
            }),
        }
    }

    /// What the member call of this team announces.
    pub(crate) fn announced(&self) -> Option<MemberTeam> {
        let nested = self.nested.as_ref()?;
        Some(MemberTeam {
            name: nested.name.to_string(),
            pattern: self.pattern.as_str().to_string(),
            entry: self.entry.clone(),
            path: nested.path.clone(),
        })
    }

    /// The path of the team a member `member` of this team runs: the top
    /// coordinator's name, then each member team's name. The same member
    /// called again in one turn runs again beside the first call, as
    /// `member#2`, `member#3`…, so that each call's agents have names of
    /// their own.
    fn team_path(&self, member: &str, earlier: usize) -> String {
        let above = match &self.nested {
            None => &self.entry,
            Some(nested) => &nested.path,
        };
        match earlier {
            0 => format!("{above}/{member}"),
            _ => format!("{above}/{member}#{}", earlier + 1),
        }
    }

    /// How events, the log and the usage name this team's `agent`.
    pub(crate) fn path_of<'n>(&self, agent: &'n str) -> Cow<'n, str> {
        match &self.nested {
            None => Cow::Borrowed(agent),
            Some(nested) => Cow::Owned(format!("{}/{agent}", nested.path)),
        }
    }

    /// The team's name in `teams`, for a member team.
    pub(crate) fn team_name(&self) -> Option<&'a str> {
        self.nested.as_ref().map(|n| n.name)
    }

    /// How the scenario's `flags` name this team's `agent`: `TEAM/AGENT`
    /// in a member team, as its sim script does.
    pub(crate) fn flag_name<'n>(&self, agent: &'n str) -> Cow<'n, str> {
        match self.team_name() {
            None => Cow::Borrowed(agent),
            Some(team) => Cow::Owned(format!("{team}/{agent}")),
        }
    }

    /// The gateway's name of this team's `tool`: `TEAM/TOOL` in a member
    /// team, so that its breaker, its bulkhead and its calls are its own.
    pub(crate) fn tool_name<'n>(&self, tool: &'n str) -> Cow<'n, str> {
        self.flag_name(tool)
    }

    /// The earlier of `own` and the caller's deadline.
    pub(crate) fn deadline(&self, own: Option<Duration>) -> Option<Duration> {
        let caller = self.nested.as_ref().and_then(|n| n.deadline);
        match (own, caller) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the caller's deadline has passed at run time `now`: the
    /// member call is over, whatever the team was doing.
    pub(crate) fn caller_cut(&self, now: Duration) -> bool {
        self.nested
            .as_ref()
            .and_then(|n| n.deadline)
            .is_some_and(|at| now >= at)
    }
}
