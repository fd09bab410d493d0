//! The scenario file format (DESIGN.md "Scenario files"). These types are the
//! one description of the format: serde reads files into them and schemars
//! derives the JSON Schema that both `conclave schema` prints and the loader
//! checks files against. The doc comments become the schema's descriptions.

use super::json_text::JsonText;
use super::origin::Origin;
use super::pattern_kind::PatternKind;
pub(crate) use super::provider_spec::ProviderSpec;
pub use super::provider_spec::{OutputMode, ProviderKind};
use super::real::McpServerSpec;
use super::resilience::{GatewayMechanism, ResilienceSpec};
use super::sections::{
    AgentSection, GraphSection, HealthRuleSection, MemberTeam, MemberTeamSection, PatternSections,
    Sections, SourcesSection, TeamLimitsSection, TeamSection,
};
use super::workers::WorkerSpec;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A Conclave scenario: one run of one multi-agent pattern.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short machine name, e.g. `checkout_v2_launch`.
    pub name: String,
    /// Which multi-agent pattern runs this scenario.
    pub pattern: PatternKind,
    /// What the agents are asked to achieve.
    pub goal: String,
    /// The shared facts every agent sees: any JSON value.
    #[schemars(with = "Value")]
    pub(crate) context: JsonText,
    /// The model behind the agents: the embedded simulator or an
    /// OpenAI-compatible endpoint.
    pub(crate) provider: std::sync::Arc<ProviderSpec>,
    /// A human title for the scenario picker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    /// One or two sentences for the scenario picker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// Seed of the run's random choices (simulated latency, jitter); `--seed`
    /// overrides it. Without one the seed is 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) seed: Option<u64>,
    /// Run limits; each missing limit takes its reference's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) budget: Option<Budget>,
    /// Feature flags that gate roles, workers, agents or domains; toggled at
    /// launch with `--flag NAME=on|off` or live from the dashboard.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub flags: IndexMap<String, FlagSpec>,
    /// The collaboration team: its roles and their speaking order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) team: Option<TeamSection>,
    /// orchestrator: the workers a plan may use (the policy allowlist), by
    /// name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub workers: IndexMap<String, WorkerSpec>,
    /// orchestrator: what turns the run's health yellow or red.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) health_rules: Option<Vec<HealthRuleSection>>,
    /// swarm: the agent that takes the first turn; coordinator: the
    /// coordinator, which calls the other agents as its members.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) entry: Option<String>,
    /// swarm and coordinator: every agent of the team (the policy
    /// allowlist), by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) agents: IndexMap<String, AgentSection>,
    /// swarm and coordinator: the team's safety limits; each missing one
    /// takes 002's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) limits: Option<TeamLimitsSection>,
    /// swarm and coordinator: the tools agents may call, by name, each
    /// simulated like an orchestrator worker. A tool's `data` is keyed by
    /// the values of the call's args joined with `:` in the order given
    /// (`{"order_id": "A-7"}` looks up `A-7`), with `*` as the fallback.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) tools: IndexMap<String, WorkerSpec>,
    /// coordinator: the teams its members may be (`{"team": NAME}`), each
    /// written as a swarm or coordinator scenario's part is; at most 4
    /// levels deep, never within itself. Sim turns: `TEAM/AGENT`.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) teams: IndexMap<String, MemberTeamSection>,
    /// research: what the simulated research tools find: the search
    /// results, the pages and the notes each page yields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sources: Option<SourcesSection>,
    /// graph: the workflow as nodes and edges, with its entry, step
    /// bound, shared state and conditions (docs/graph.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) graph: Option<GraphSection>,
    /// How the gateway shields the run's dependencies: timeouts, retries
    /// with backoff and jitter, a retry budget, circuit breakers, bulkheads
    /// and safe mode (any pattern).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resilience: Option<ResilienceSpec>,
    /// The Model Context Protocol servers the scenario's `mcp` workers and
    /// tools call, by name: each started once per run (stdio `command`) or
    /// reached at its `url`, and shut down at the run's end.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) mcp_servers: IndexMap<String, McpServerSpec>,
    /// Where the scenario was read from (not part of the file).
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) origin: Origin,
}

/// Run limits. Which keys apply depends on the pattern.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Budget {
    // The round table's keys, described in its own scenario section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = <PatternSections as Sections>::ROUND_TABLE_BUDGET_DOCS[0])]
    pub(crate) max_rounds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = <PatternSections as Sections>::ROUND_TABLE_BUDGET_DOCS[1])]
    pub(crate) max_messages: Option<u32>,
    /// Seconds of run time before the run stops with `max_seconds`
    /// (collaboration default 40, orchestrator and research 25, swarm and
    /// coordinator 120).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub(crate) max_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = <PatternSections as Sections>::ROUND_TABLE_BUDGET_DOCS[2])]
    pub(crate) min_go_votes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    #[schemars(description = <PatternSections as Sections>::ROUND_TABLE_BUDGET_DOCS[3])]
    pub(crate) escalate_after_blocking_rounds: Option<u32>,
    /// orchestrator: tasks a plan may hold (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_tasks: Option<u32>,
    /// orchestrator: tasks running at once (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub(crate) max_parallel: Option<u32>,
    /// orchestrator: how often a timed-out task is tried again (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_retries_per_task: Option<u32>,
    /// orchestrator: attempts the whole run may start, retries included
    /// (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_dispatches: Option<u32>,
    /// orchestrator: seconds one attempt may take before it times out
    /// (default 2.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub(crate) task_timeout_seconds: Option<f64>,
    /// swarm and coordinator: model calls the run may start (default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_llm_calls: Option<u32>,
    /// research: steps a plan may hold (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_steps: Option<u32>,
    /// Every pattern: tokens (input and output together) the run's model
    /// calls may use. Past it, the run stops with `max_tokens` at its next
    /// gate or model call; a call in flight finishes and is counted. A
    /// whole number above 0; no limit by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub(crate) max_tokens: Option<u64>,
    /// Every pattern: US dollars the run's model calls may cost, priced
    /// from `provider.pricing`, `--pricing FILE` or the compiled-in prices.
    /// Past it, the run stops with `max_cost` at its next gate or model
    /// call; a call in flight finishes and is counted. A number above 0;
    /// no limit by default. A run whose model has no price is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_cost_usd: Option<f64>,
}

impl Budget {
    /// The keys every pattern reads: the run's time, tokens and cost.
    pub(crate) const SHARED_KEYS: &'static [&'static str] =
        &["max_seconds", "max_tokens", "max_cost_usd"];

    /// The keys that are set, by name, in the order the format lists them;
    /// which pattern reads which is `patterns::declared`'s to say.
    pub(crate) fn keys_set(&self) -> Vec<&'static str> {
        [
            ("max_rounds", self.max_rounds.is_some()),
            ("max_messages", self.max_messages.is_some()),
            ("max_seconds", self.max_seconds.is_some()),
            ("min_go_votes", self.min_go_votes.is_some()),
            (
                "escalate_after_blocking_rounds",
                self.escalate_after_blocking_rounds.is_some(),
            ),
            ("max_tasks", self.max_tasks.is_some()),
            ("max_parallel", self.max_parallel.is_some()),
            ("max_retries_per_task", self.max_retries_per_task.is_some()),
            ("max_dispatches", self.max_dispatches.is_some()),
            ("task_timeout_seconds", self.task_timeout_seconds.is_some()),
            ("max_llm_calls", self.max_llm_calls.is_some()),
            ("max_steps", self.max_steps.is_some()),
            ("max_tokens", self.max_tokens.is_some()),
            ("max_cost_usd", self.max_cost_usd.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect()
    }
}

/// A feature flag. While off, the names it lists are outside the execution
/// allowlist.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlagSpec {
    /// State at launch (default off).
    #[serde(default)]
    pub(crate) default: bool,
    /// What turning the flag on does, shown in the flags overlay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// collaboration: roles this flag gates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) roles: Vec<String>,
    /// orchestrator: workers this flag gates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) workers: Vec<String>,
    /// swarm and coordinator: agents this flag gates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) agents: Vec<String>,
    /// research: domains this flag gates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) domains: Vec<String>,
    /// collaboration: while on, the flag's roles that the sequence does not
    /// list speak after the sequence, from the next round.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) joins: bool,
    /// The gateway mechanism this flag switches: on, it works as the
    /// `resilience` section configures it; off, as if the section left it
    /// out. Takes effect at the next gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<GatewayMechanism>,
}

impl FlagSpec {
    /// The fields of a flag written at `path` in a `pattern` scenario that
    /// gate names of another kind than `own`, the kind its pattern's flags
    /// gate (`roles`, `workers`, `agents` or `domains`; `joins` goes with
    /// `roles`), each a problem at its key.
    pub(crate) fn check_gates(
        &self,
        path: &super::JsonPath,
        (pattern, own): (&dyn std::fmt::Display, &str),
        problems: &mut Vec<super::Problem>,
    ) {
        let set = [
            ("roles", !self.roles.is_empty()),
            ("workers", !self.workers.is_empty()),
            ("agents", !self.agents.is_empty()),
            ("domains", !self.domains.is_empty()),
            ("joins", self.joins && own != "roles"),
        ];
        for (field, _) in set.into_iter().filter(|(f, set)| *set && *f != own) {
            problems.push(super::Problem::at_key(
                path.key(field),
                format!("{pattern} flags gate {own}; expected \"{own}\" instead of \"{field}\""),
            ));
        }
    }

    /// Every name the flag gates, whatever its kind.
    pub(crate) fn gated_names(&self) -> impl Iterator<Item = &str> {
        self.roles
            .iter()
            .chain(&self.workers)
            .chain(&self.agents)
            .chain(&self.domains)
            .map(String::as_str)
    }
}

impl Scenario {
    /// Each section a pattern owns, by key, and whether this scenario
    /// writes it, in the format's order: the checks refuse one written in
    /// a scenario whose pattern reads none of it.
    pub(crate) fn sections_written(&self) -> [(&'static str, bool); 10] {
        [
            ("team", self.team.is_some()),
            ("workers", !self.workers.is_empty()),
            ("health_rules", self.health_rules.is_some()),
            ("sources", self.sources.is_some()),
            ("graph", self.graph.is_some()),
            ("teams", !self.teams.is_empty()),
            ("entry", self.entry.is_some()),
            ("agents", !self.agents.is_empty()),
            ("limits", self.limits.is_some()),
            ("tools", !self.tools.is_empty()),
        ]
    }

    /// Every member team's tools, each with where it is written and the
    /// name the gateway knows it by (`TEAM/TOOL`, so that two teams' tools
    /// of one name are two tools, each with its own breaker).
    pub(crate) fn team_tools(
        &self,
    ) -> impl Iterator<Item = (super::JsonPath, String, &WorkerSpec)> {
        self.teams.iter().flat_map(|(team, spec)| {
            spec.tools().iter().map(move |(tool, worker)| {
                let at = super::JsonPath::root()
                    .key("teams")
                    .key(team)
                    .key("tools")
                    .key(tool);
                (at, format!("{team}/{tool}"), worker)
            })
        })
    }
}

impl Scenario {
    /// Errors found in this scenario after it was loaded (at launch),
    /// placed in its file as the loader places its own.
    pub(crate) fn errors_at(&self, found: Vec<(super::JsonPath, String)>) -> super::ScenarioErrors {
        self.origin.errors(
            found
                .into_iter()
                .map(|(p, m)| super::Problem::at(p, m))
                .collect(),
        )
    }

    /// A top-level fact of the shared context (`report_date`, `region`),
    /// or `null` when the context has none.
    pub(crate) fn fact(&self, key: &str) -> Value {
        self.context.get(key).unwrap_or(Value::Null)
    }

    /// The shared context's JSON text, when the scenario holds it as text
    /// (read from a file); `None` when it holds only its value.
    pub(crate) fn context_text(&self) -> Option<&str> {
        self.context.held_text()
    }

    /// This scenario with no shared context (`null`).
    pub(crate) fn without_context(&self) -> Scenario {
        Scenario {
            context: JsonText::from_value(Value::Null),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FlagSpec;
    use crate::scenario::JsonPath;

    fn gates(flag: &FlagSpec, own: &str) -> Vec<String> {
        let mut problems = Vec::new();
        flag.check_gates(&JsonPath::root(), (&"p", own), &mut problems);
        problems.into_iter().map(|p| p.message).collect()
    }

    #[test]
    fn a_flag_gating_another_kind_is_named_field_by_field_and_joins_goes_with_roles() {
        let flag = FlagSpec {
            roles: vec!["r".into()],
            workers: vec!["w".into()],
            joins: true,
            ..FlagSpec::default()
        };
        assert_eq!(
            gates(&flag, "workers"),
            [
                "p flags gate workers; expected \"workers\" instead of \"roles\"",
                "p flags gate workers; expected \"workers\" instead of \"joins\"",
            ]
        );
        assert_eq!(
            gates(&flag, "roles"),
            ["p flags gate roles; expected \"roles\" instead of \"workers\""]
        );
        assert!(gates(&FlagSpec::default(), "agents").is_empty());
    }
}
