//! What a launch sets up before the run starts: its model, its meter
//! (prices and spending limits), its time budget, and the descriptions
//! its MCP servers give the tools the scenario leaves undescribed.

use super::{LaunchError, ProviderChoice};
use crate::clock::{ClockMode, RunClock};
use crate::gateway::Meter;
use crate::patterns;
use crate::pricing;
use crate::provider::openai::{self, OpenAiConfig};
use crate::provider::output::OutputPolicy;
use crate::provider::prompts::Prompts;
use crate::provider::{OpenAiProvider, Provider, RealTools, SimProvider};
use crate::rng::RunRng;
use crate::scenario::{ProviderKind, Scenario, SpendLimits};
use std::sync::Arc;

/// The model of a run: the sim with the scenario's script, or an
/// OpenAI-compatible endpoint configured by the command line, the
/// scenario and the environment (the key only from the environment).
pub(super) fn provider(
    scenario: &Arc<Scenario>,
    choice: &ProviderChoice,
    rng: &RunRng,
) -> Result<Provider, LaunchError> {
    let spec = choice.spec(scenario);
    match choice.kind.unwrap_or(scenario.provider.kind) {
        ProviderKind::Sim => Ok(Provider::Sim(Box::new(SimProvider::new(spec, rng.clone())))),
        ProviderKind::Openai => {
            let overrides = openai::Overrides {
                model: choice.model.clone(),
                base_url: choice.base_url.clone(),
                no_stream: choice.no_stream,
                call_timeout: choice.knobs.timeout_seconds,
            };
            let refused = |e: &dyn std::fmt::Display| {
                LaunchError::Provider(crate::secrets::scrub(&e.to_string()).into_owned())
            };
            let mut config =
                OpenAiConfig::resolve(&spec, &overrides, |name| std::env::var(name).ok())
                    .map_err(|e| refused(&e))?;
            let profile = choice.endpoint_profile.as_ref();
            if let Some(profile) = profile {
                profile.shape(&mut config);
            }
            let prompts = Prompts::new(choice.prompts.clone());
            let provider = OpenAiProvider::new(config, prompts).map_err(|e| refused(&e))?;
            if let Some(profile) = profile {
                profile.start(&provider);
            }
            Ok(Provider::OpenAi(provider))
        }
    }
}

/// The provider of a run served wholly from a cassette, and the choice
/// its meter and `run_started` read. An endpoint is not set up (no key
/// read, nothing reached): the gateway treats calls as it did for the
/// recorded run's model. The sim is (it leaves nothing), so that a served
/// call still plays its script; it is named and priced as recorded.
pub(super) fn served(
    scenario: &Arc<Scenario>,
    choice: &ProviderChoice,
    plan: &super::CassettePlan,
    rng: &RunRng,
) -> Result<(Provider, ProviderChoice), LaunchError> {
    let kind = choice.kind.unwrap_or(scenario.provider.kind);
    let recorded = plan.cassette.parent().started.model.clone();
    if kind == ProviderKind::Openai {
        let model = recorded.unwrap_or_else(|| crate::bus::RunModel {
            provider: kind,
            name: choice.model.clone().unwrap_or_default(),
            base_url: None,
        });
        let spec = choice.spec(scenario);
        let offline = Provider::Offline(crate::provider::Offline {
            policy: OutputPolicy::of(&spec, &model.name),
            output_retries: spec.output_retries(ProviderKind::Openai),
            output_limit: spec.max_output_tokens,
            model,
        });
        return Ok((offline, choice.clone()));
    }
    let choice = ProviderChoice {
        model: recorded
            .map(|model| model.name)
            .or_else(|| choice.model.clone()),
        ..choice.clone()
    };
    Ok((provider(scenario, &choice, rng)?, choice))
}

/// The run's real workers and tools: named only when every call is
/// served; else set up, and, for a run from a recording whose programs
/// nobody allowed, refusing the first live call that would start one.
pub(super) fn real_tools(
    scenario: &Scenario,
    options: &super::LaunchOptions,
    offline: bool,
) -> Result<RealTools, LaunchError> {
    if offline {
        return Ok(RealTools::offline(scenario));
    }
    let real = RealTools::for_scenario(scenario, &|name| std::env::var(name).ok())
        .map_err(LaunchError::Tools)?;
    Ok(match &options.cassette {
        Some(plan) if !options.allow_exec => {
            // Named as where the run was launched from, else the
            // recording: a recording's scenario names no file.
            let file = options.source.clone().unwrap_or_else(|| {
                let path = plan.cassette.parent().path.display().to_string();
                crate::sanitize::clean(&path).into_owned()
            });
            real.refusing_programs(scenario, &file)
        }
        _ => real,
    })
}

/// What the run's model calls cost and may spend: the model's price
/// (`--pricing` over the scenario's over the compiled-in list) and the
/// scenario's token and dollar budgets. A dollar budget needs a price.
pub(super) fn meter(
    scenario: &Scenario,
    choice: &ProviderChoice,
    provider: &Provider,
) -> Result<Meter, LaunchError> {
    let model = match provider {
        Provider::OpenAi(http) => http.model(),
        Provider::Sim(_) => choice.model.as_deref().unwrap_or(pricing::SIM_MODEL),
        Provider::Offline(offline) => &offline.model.name,
    };
    let price = pricing::price_of(
        model,
        choice.pricing.as_ref(),
        scenario.provider.pricing.as_ref(),
    );
    let limits = SpendLimits::of(scenario);
    if limits.max_cost_usd.is_some() && price.is_none() {
        return Err(LaunchError::Unpriced {
            model: crate::sanitize::clean(model).into_owned(),
        });
    }
    Ok(Meter::new(price, limits))
}

/// Who serves the run's model calls and the model's name, as the
/// provider was set up: the endpoint's resolved model, or the sim under
/// the name it is priced as.
pub(super) fn run_model(choice: &ProviderChoice, provider: &Provider) -> crate::bus::RunModel {
    match provider {
        Provider::OpenAi(http) => crate::bus::RunModel {
            provider: ProviderKind::Openai,
            name: http.model().to_string(),
            base_url: Some(http.recordable_base_url()),
        },
        Provider::Sim(_) => crate::bus::RunModel {
            provider: ProviderKind::Sim,
            name: choice
                .model
                .clone()
                .unwrap_or_else(|| pricing::SIM_MODEL.to_string()),
            base_url: None,
        },
        Provider::Offline(offline) => offline.model.clone(),
    }
}

/// The run's time budget: its `max_seconds`, or its pattern's default.
pub(super) fn run_limit(scenario: &Scenario) -> std::time::Duration {
    let default = patterns::runner(scenario.pattern).default_max_seconds;
    let seconds = scenario
        .budget
        .as_ref()
        .and_then(|b| b.max_seconds)
        .unwrap_or(default);
    crate::duration::clamp_seconds(seconds)
}

/// `scenario` with the descriptions MCP servers give filled in where its
/// workers and tools have none; `None` when there is nothing to fill.
pub(super) fn described_by_servers(
    scenario: &Scenario,
    described: &[(String, String)],
) -> Option<Scenario> {
    let missing = |name: &str| {
        scenario
            .workers
            .get(name)
            .or_else(|| scenario.tools.get(name))
            .or_else(|| team_tool(scenario, name))
            .is_some_and(|spec| spec.description.is_none())
    };
    if !described.iter().any(|(name, _)| missing(name)) {
        return None;
    }
    let mut filled = scenario.clone();
    for (name, description) in described {
        // A member team's tool is `TEAM/TOOL` to the gateway.
        let of_team = name
            .split_once('/')
            .and_then(|(team, tool)| filled.teams.get_mut(team)?.tools.get_mut(tool));
        for spec in [
            filled.workers.get_mut(name),
            filled.tools.get_mut(name),
            of_team,
        ]
        .into_iter()
        .flatten()
        {
            spec.description
                .get_or_insert_with(|| crate::sanitize::clean(description).into_owned());
        }
    }
    Some(filled)
}

/// The member team's tool the gateway knows as `TEAM/TOOL`.
fn team_tool<'s>(scenario: &'s Scenario, name: &str) -> Option<&'s crate::scenario::WorkerSpec> {
    let (team, tool) = name.split_once('/')?;
    scenario.teams.get(team)?.tools.get(tool)
}

/// The tools' last good answers, when the scenario's safe mode falls back
/// to them: kept in `cache` between runs, else for this run only.
pub(super) fn last_good(
    scenario: &Scenario,
    cache: Option<&std::path::Path>,
) -> Result<Option<Arc<crate::gateway::LastKnownGood>>, LaunchError> {
    use crate::gateway::LastKnownGood;
    let falls_back = scenario
        .resilience
        .as_ref()
        .and_then(|r| r.safe_mode.as_ref())
        .and_then(|s| s.fallback)
        == Some(crate::scenario::SafeModeFallback::LastKnownGood);
    if !falls_back {
        return Ok(None);
    }
    let store = match cache {
        Some(dir) => LastKnownGood::in_dir(dir, &scenario.name)?,
        None => LastKnownGood::in_memory(),
    };
    Ok(Some(Arc::new(store)))
}

/// How many times an answer that fails its contract is asked for again:
/// the scenario's `provider.output_retries`, else once on an endpoint (or
/// a cassette of an endpoint's run) and never on the sim, whose answers
/// the references read exactly once.
pub(super) fn output_retries(_scenario: &Scenario, provider: &Provider) -> u32 {
    provider.output_retries()
}

impl super::ProviderChoice {
    /// The scenario's `provider` section with this choice's knobs over
    /// its fields.
    pub(crate) fn spec(&self, scenario: &Scenario) -> Arc<crate::scenario::ProviderSpec> {
        if self.knobs.is_empty() {
            Arc::clone(&scenario.provider)
        } else {
            Arc::new(self.knobs.over(&scenario.provider))
        }
    }

    /// The model a run launched with this choice over `scenario` is priced
    /// as, named as the engine names it: `--model`, else for an endpoint
    /// the scenario's `provider.model`, `OPENAI_MODEL` or the default, and
    /// for the sim [`crate::pricing::SIM_MODEL`].
    pub(crate) fn model_priced(&self, scenario: &crate::scenario::Scenario) -> String {
        use crate::provider::openai;
        if let Some(model) = &self.model {
            return model.clone();
        }
        match self.kind.unwrap_or(scenario.provider.kind) {
            crate::scenario::ProviderKind::Sim => crate::pricing::SIM_MODEL.to_string(),
            crate::scenario::ProviderKind::Openai => scenario
                .provider
                .model
                .clone()
                .or_else(|| std::env::var(openai::MODEL_VARIABLE).ok())
                .unwrap_or_else(|| openai::DEFAULT_MODEL.to_string()),
        }
    }
}

/// The run's clock: the one asked for, else the real clock for a scenario
/// that calls anything real, which answers in real time; a run served
/// wholly from a cassette calls nothing real. A fork on the real clock
/// plays its served part as on the virtual clock, at once
/// ([`RunClock::forward`]).
pub(super) fn clock(
    scenario: &Scenario,
    options: &super::LaunchOptions,
    offline: bool,
) -> (ClockMode, RunClock) {
    let mode = options
        .clock
        .unwrap_or(if scenario.has_real_calls() && !offline {
            ClockMode::Real
        } else {
            ClockMode::Virtual
        });
    let clock = RunClock::start_on(mode);
    let forks = options
        .cassette
        .as_ref()
        .is_some_and(|plan| plan.fork.is_some());
    if mode == ClockMode::Real && forks {
        clock.forward();
    }
    (mode, clock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_describe_only_what_the_scenario_leaves_undescribed() {
        let text = serde_json::json!({
            "name": "desk", "pattern": "swarm", "goal": "Help.", "context": {}, "entry": "support",
            "agents": {"support": {"description": "Answers customers"}},
            "tools": {
                "kb_search": {"mcp": {"server": "kb", "tool": "search"}},
                "kb_lookup": {"description": "Order records", "mcp": {"server": "kb", "tool": "lookup"}}
            },
            "mcp_servers": {"kb": {"command": ["kb-server"]}},
            "budget": {"max_llm_calls": 4},
            "provider": {"kind": "sim", "turns": {"support": [{"reply": "Done."}]}}
        })
        .to_string();
        let scenario = crate::scenario::parse(&text, "desk.json").unwrap();
        let described = vec![
            (
                "kb_search".to_string(),
                "Search the \u{1b}[2Jknowledge base".to_string(),
            ),
            ("kb_lookup".to_string(), "Look up a record".to_string()),
        ];
        let filled = described_by_servers(&scenario, &described).expect("one was missing");
        assert_eq!(
            filled.tools["kb_search"].description.as_deref(),
            Some("Search the knowledge base"),
            "filled in, cleaned for the terminal"
        );
        assert_eq!(
            filled.tools["kb_lookup"].description.as_deref(),
            Some("Order records"),
            "the scenario's own description stays"
        );
        assert!(described_by_servers(&filled, &described).is_none());
    }

    #[test]
    fn servers_describe_a_member_teams_tool_too() {
        let text = serde_json::json!({
            "name": "desk", "pattern": "coordinator", "goal": "Help.", "context": {},
            "entry": "lead", "agents": {"lead": {}, "kb": {"team": "kb_team"}},
            "teams": {"kb_team": {"pattern": "swarm", "entry": "reader", "agents": {"reader": {}},
                      "tools": {"search": {"mcp": {"server": "kb", "tool": "search"}}}}},
            "mcp_servers": {"kb": {"command": ["kb-server"]}},
            "provider": {"kind": "sim", "turns": {"lead": [{"reply": "Done."}],
                                                  "kb_team/reader": [{"reply": "Found."}]}}
        })
        .to_string();
        let scenario = crate::scenario::parse(&text, "desk.json").unwrap();
        let described = vec![("kb_team/search".to_string(), "Search the base".to_string())];
        let filled = described_by_servers(&scenario, &described).expect("it was missing");
        assert_eq!(
            filled.teams["kb_team"].tools["search"]
                .description
                .as_deref(),
            Some("Search the base")
        );
        assert!(described_by_servers(&filled, &described).is_none());
    }
}
