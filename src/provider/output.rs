//! How a run asks an endpoint for its answers: the output mode, the
//! temperature it sends and the name of its token limit. It starts from the
//! scenario and changes only when an endpoint refuses a feature by name,
//! one step at a time and never back up; one policy serves every call of
//! the run. It decides what to ask; it never calls, retries or publishes.

use super::Provider;
use crate::scenario::{OutputMode, ProviderKind, ProviderSpec};
use std::sync::{Mutex, PoisonError};

pub(crate) use crate::bus::cassette::Feature;

/// How a request asks for an answer that keeps its contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `response_format: json_schema`, strict.
    Native,
    /// The contract as functions the model must call.
    Tool,
    /// `response_format: json_object`.
    Json,
    /// The schema in the system prompt, nothing else asked.
    Prompted,
}

impl Mode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Native => "native",
            Mode::Tool => "tool",
            Mode::Json => "json",
            Mode::Prompted => "prompted",
        }
    }

    /// Whether a request in this mode may carry `feature`: a strict
    /// schema in `native`, tools in `tool`, and `json_object` in any but
    /// `prompted` (a JSON answer asked for without a contract).
    fn sends(self, feature: Feature) -> bool {
        match feature {
            Feature::JsonSchema => self == Mode::Native,
            Feature::Tools => self == Mode::Tool,
            Feature::ResponseFormat => self != Mode::Prompted,
            Feature::Temperature | Feature::MaxCompletionTokens => false,
        }
    }

    /// The first mode below this one that does not send `feature`.
    fn without(self, feature: Feature) -> Mode {
        match feature {
            Feature::JsonSchema => Mode::Tool,
            Feature::Tools => Mode::Json,
            _ => Mode::Prompted,
        }
    }
}

/// The name the token limit goes out under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenLimit {
    /// What OpenAI's reasoning models take, and every current model.
    MaxCompletionTokens,
    /// What older servers take instead.
    MaxTokens,
}

impl TokenLimit {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            TokenLimit::MaxCompletionTokens => "max_completion_tokens",
            TokenLimit::MaxTokens => "max_tokens",
        }
    }
}

/// How the next request asks, as the policy stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Asking {
    pub(crate) mode: Mode,
    /// None: no temperature is sent.
    pub(crate) temperature: Option<f64>,
    pub(crate) token_limit: TokenLimit,
}

/// What a run changed in how it asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Setting {
    Output,
    Temperature,
    TokenLimit,
}

impl Setting {
    /// `output`, `temperature` or `max_tokens`, as an event names it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Setting::Output => "output",
            Setting::Temperature => "temperature",
            Setting::TokenLimit => "max_tokens",
        }
    }
}

/// A change in how the run asks, after an endpoint refused a feature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Adapted {
    pub(crate) what: Setting,
    /// The setting before (`native`, `0`, `max_completion_tokens`) …
    pub(crate) from: String,
    /// … and from now on (`tool`, `none`, `max_tokens`).
    pub(crate) to: String,
    /// The endpoint's words.
    pub(crate) said: String,
    /// This call made the change. False when a call in parallel, refused
    /// for the same feature, made it first: ask again, publish nothing.
    pub(crate) first: bool,
}

/// How a run asks, shared by its calls.
#[derive(Debug)]
pub(crate) struct OutputPolicy {
    /// `auto`: the mode may move down; an explicit mode never changes.
    adaptive: bool,
    now: Mutex<Asking>,
}

impl OutputPolicy {
    /// The policy of a run asking in `output` mode, with `temperature`
    /// (none: send none).
    pub(crate) fn new(output: OutputMode, temperature: Option<f64>) -> Self {
        let mode = match output {
            OutputMode::Auto | OutputMode::Native => Mode::Native,
            OutputMode::Tool => Mode::Tool,
            OutputMode::Json => Mode::Json,
            OutputMode::Prompted => Mode::Prompted,
        };
        OutputPolicy {
            adaptive: output == OutputMode::Auto,
            now: Mutex::new(Asking {
                mode,
                temperature,
                token_limit: TokenLimit::MaxCompletionTokens,
            }),
        }
    }

    /// The policy a run on `model` starts with, as the scenario's
    /// `provider` section sets it.
    pub(crate) fn of(spec: &ProviderSpec, model: &str) -> Self {
        OutputPolicy::new(
            spec.output.unwrap_or_default(),
            temperature_for(model, spec.temperature),
        )
    }

    /// Start where an endpoint's profile says a run settles: in `mode`
    /// when the run asks in `auto` (it may still move down from there), with
    /// no temperature when the endpoint refuses one, and the token limit
    /// under `limit`. An explicit output mode stays as the run set it.
    pub(crate) fn start_from(&self, mode: Mode, no_temperature: bool, limit: TokenLimit) {
        let mut now = self.lock();
        if self.adaptive {
            now.mode = mode;
        }
        if no_temperature {
            now.temperature = None;
        }
        now.token_limit = limit;
    }

    /// Whether a request with a contract asks for it as such (`native`,
    /// `tool`), so that an answer outside it is no answer.
    pub(crate) fn asks_by_contract(&self) -> bool {
        matches!(self.now().mode, Mode::Native | Mode::Tool)
    }

    /// How the next request asks.
    pub(crate) fn now(&self) -> Asking {
        *self.lock()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Asking> {
        self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the run can ask without `feature`: a temperature and the
    /// output limit's name always, an output feature under `auto` only.
    pub(crate) fn adapts(&self, feature: Feature) -> bool {
        self.adaptive || matches!(feature, Feature::Temperature | Feature::MaxCompletionTokens)
    }

    /// Ask without `feature` from now on, which the endpoint refused in
    /// the words `said`; `None` when nothing can change (an explicit
    /// output mode never does).
    pub(crate) fn adapt(&self, feature: Feature, said: &str) -> Option<Adapted> {
        if !self.adapts(feature) {
            return None;
        }
        let mut now = self.lock();
        let change = |what, from: String, to: String, first| Adapted {
            what,
            from,
            to,
            said: said.to_string(),
            first,
        };
        // A feature no longer sent was refused to a call made before
        // another call's refusal changed the policy: the change is made.
        Some(match feature {
            Feature::Temperature => {
                let was = now.temperature.take();
                let from = was.map_or_else(|| "none".to_string(), |t| t.to_string());
                change(Setting::Temperature, from, "none".into(), was.is_some())
            }
            Feature::MaxCompletionTokens => {
                let first = now.token_limit == TokenLimit::MaxCompletionTokens;
                now.token_limit = TokenLimit::MaxTokens;
                let from = TokenLimit::MaxCompletionTokens.as_str().to_string();
                change(Setting::TokenLimit, from, "max_tokens".into(), first)
            }
            _ => {
                let from = now.mode;
                let first = from.sends(feature);
                if first {
                    now.mode = from.without(feature);
                }
                let to = now.mode.as_str().to_string();
                change(Setting::Output, from.as_str().to_string(), to, first)
            }
        })
    }
}

/// The temperature sent to `model`: the scenario's (`null`: none), else
/// none for OpenAI's reasoning models, which refuse any but their own,
/// and 0 for any other model.
pub(crate) fn temperature_for(model: &str, given: Option<Option<f64>>) -> Option<f64> {
    given.unwrap_or_else(|| (!is_reasoning_model(model)).then_some(0.0))
}

/// `o1`, `o3`, `o4` and `gpt-5` models, under an `openai/` prefix too as
/// proxies name them.
fn is_reasoning_model(model: &str) -> bool {
    let model = model.trim().to_ascii_lowercase();
    let model = model.strip_prefix("openai/").unwrap_or(&model);
    ["o1", "o3", "o4", "gpt-5"]
        .iter()
        .any(|family| model.starts_with(family))
}

impl Provider {
    /// How the run asks its endpoint; none for the sim.
    pub(crate) fn policy(&self) -> Option<&OutputPolicy> {
        match self {
            Provider::Sim(_) => None,
            Provider::OpenAi(http) => Some(http.policy()),
            Provider::Offline(offline) => Some(&offline.policy),
        }
    }

    /// Ask without `feature`, which the endpoint refused in the words
    /// `said`, for the rest of the run: what changed, or `None` when
    /// nothing can (the sim, an explicit output mode).
    pub(crate) fn adapt(&self, feature: Feature, said: &str) -> Option<Adapted> {
        self.policy()?.adapt(feature, said)
    }

    /// Whether a refusal of `feature` makes the run ask another way
    /// (see [`OutputPolicy::adapts`]): a fallback, not a failure.
    pub(crate) fn adapts(&self, feature: Feature) -> bool {
        self.policy().is_some_and(|policy| policy.adapts(feature))
    }

    /// The token limit requests send, under whichever name: a live
    /// endpoint's, or the one a served run's endpoint was sent.
    pub(crate) fn limit_sent(&self) -> Option<u64> {
        match self {
            Provider::OpenAi(http) => http.output_limit(),
            Provider::Offline(offline) => offline.output_limit,
            Provider::Sim(_) => None,
        }
    }

    /// How many times an answer that fails its contract is asked for
    /// again (`provider.output_retries`: 1 for an endpoint, 0 for the sim
    /// by default).
    pub(crate) fn output_retries(&self) -> u32 {
        match self {
            Provider::Sim(sim) => sim.spec().output_retries(ProviderKind::Sim),
            Provider::OpenAi(http) => http.output_retries(),
            Provider::Offline(offline) => offline.output_retries,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAID: &str = "not supported with this model";

    fn step(policy: &OutputPolicy, feature: Feature) -> Option<(Setting, String, String, bool)> {
        policy
            .adapt(feature, SAID)
            .map(|a| (a.what, a.from, a.to, a.first))
    }

    fn output(from: &str, to: &str, first: bool) -> Option<(Setting, String, String, bool)> {
        Some((Setting::Output, from.into(), to.into(), first))
    }

    #[test]
    fn auto_walks_down_from_native_to_prompted_one_refusal_at_a_time() {
        let policy = OutputPolicy::new(OutputMode::Auto, Some(0.0));
        assert_eq!(policy.now().mode, Mode::Native);
        assert_eq!(
            step(&policy, Feature::JsonSchema),
            output("native", "tool", true)
        );
        assert_eq!(policy.now().mode, Mode::Tool);
        assert_eq!(step(&policy, Feature::Tools), output("tool", "json", true));
        assert_eq!(
            step(&policy, Feature::ResponseFormat),
            output("json", "prompted", true)
        );
        assert_eq!(policy.now().mode, Mode::Prompted);
        let adapted = policy.adapt(Feature::ResponseFormat, SAID).unwrap();
        assert!(!adapted.first, "prompted sends nothing left to refuse");
        assert_eq!(adapted.said, SAID);
        assert_eq!(policy.now().mode, Mode::Prompted);
    }

    #[test]
    fn a_json_object_refused_without_a_contract_goes_straight_to_prompted() {
        let policy = OutputPolicy::new(OutputMode::Auto, None);
        assert_eq!(
            step(&policy, Feature::ResponseFormat),
            output("native", "prompted", true)
        );
    }

    #[test]
    fn a_refusal_a_parallel_call_already_adapted_to_changes_nothing_more() {
        let policy = OutputPolicy::new(OutputMode::Auto, Some(0.0));
        assert_eq!(
            step(&policy, Feature::JsonSchema),
            output("native", "tool", true)
        );
        assert_eq!(
            step(&policy, Feature::JsonSchema),
            output("tool", "tool", false)
        );
        assert_eq!(policy.now().mode, Mode::Tool);
        assert_eq!(
            step(&policy, Feature::Temperature),
            Some((Setting::Temperature, "0".into(), "none".into(), true))
        );
        assert!(!step(&policy, Feature::Temperature).unwrap().3);
        assert_eq!(policy.now().temperature, None);
    }

    #[test]
    fn an_explicit_mode_never_changes_but_parameters_still_do() {
        for (mode, refused) in [
            (OutputMode::Native, Feature::JsonSchema),
            (OutputMode::Tool, Feature::Tools),
            (OutputMode::Json, Feature::ResponseFormat),
        ] {
            let policy = OutputPolicy::new(mode, Some(0.7));
            let before = policy.now();
            assert_eq!(policy.adapt(refused, SAID), None, "{mode:?}");
            assert_eq!(policy.now(), before);
        }
        let policy = OutputPolicy::new(OutputMode::Native, Some(0.7));
        assert_eq!(
            step(&policy, Feature::Temperature),
            Some((Setting::Temperature, "0.7".into(), "none".into(), true))
        );
        assert_eq!(
            step(&policy, Feature::MaxCompletionTokens),
            Some((
                Setting::TokenLimit,
                "max_completion_tokens".into(),
                "max_tokens".into(),
                true
            ))
        );
        assert_eq!(policy.now().token_limit, TokenLimit::MaxTokens);
        assert_eq!(policy.now().mode, Mode::Native);
    }

    #[test]
    fn a_profile_starts_auto_where_it_settled_and_an_explicit_mode_where_it_was() {
        let policy = OutputPolicy::new(OutputMode::Auto, Some(0.0));
        policy.start_from(Mode::Tool, true, TokenLimit::MaxTokens);
        let now = policy.now();
        assert_eq!(
            (now.mode, now.temperature, now.token_limit),
            (Mode::Tool, None, TokenLimit::MaxTokens)
        );
        // Still `auto`: it steps down from there when refused again.
        assert_eq!(step(&policy, Feature::Tools), output("tool", "json", true));
        let policy = OutputPolicy::new(OutputMode::Native, Some(0.7));
        policy.start_from(Mode::Prompted, false, TokenLimit::MaxCompletionTokens);
        assert_eq!(policy.now().mode, Mode::Native);
        assert_eq!(policy.now().temperature, Some(0.7));
    }

    #[test]
    fn reasoning_models_get_no_temperature_unless_the_scenario_gives_one() {
        for model in [
            "o1",
            "o3-mini",
            "o4-mini-2025-04-16",
            "gpt-5",
            "gpt-5-nano",
            "openai/o3",
            "OpenAI/GPT-5",
        ] {
            assert_eq!(temperature_for(model, None), None, "{model}");
            assert_eq!(
                temperature_for(model, Some(Some(1.0))),
                Some(1.0),
                "{model}"
            );
        }
        for model in [
            "gpt-4.1-mini",
            "gpt-4o",
            "llama3.1:8b",
            "qwen/o3-like",
            "test-model",
        ] {
            assert_eq!(temperature_for(model, None), Some(0.0), "{model}");
            assert_eq!(temperature_for(model, Some(None)), None, "{model}");
        }
    }

    #[test]
    fn a_run_served_from_a_cassette_adapts_as_the_endpoint_did_and_the_sim_never() {
        let spec: ProviderSpec =
            serde_json::from_value(serde_json::json!({"kind": "openai", "output_retries": 2}))
                .unwrap();
        let offline = Provider::Offline(super::super::Offline {
            model: crate::bus::RunModel {
                provider: ProviderKind::Openai,
                name: "gpt-4.1-mini".into(),
                base_url: None,
            },
            policy: OutputPolicy::of(&spec, "gpt-4.1-mini"),
            output_retries: spec.output_retries(ProviderKind::Openai),
            output_limit: None,
        });
        let live = OutputPolicy::of(&spec, "gpt-4.1-mini");
        for feature in [Feature::Temperature, Feature::JsonSchema, Feature::Tools] {
            assert_eq!(offline.adapt(feature, SAID), live.adapt(feature, SAID));
        }
        assert_eq!(offline.output_retries(), 2);
        let sim = Provider::Sim(Box::new(super::super::SimProvider::new(
            std::sync::Arc::new(spec),
            crate::rng::RunRng::seeded(1),
        )));
        assert_eq!(sim.adapt(Feature::JsonSchema, SAID), None);
        assert_eq!(sim.output_retries(), 2);
    }
}
