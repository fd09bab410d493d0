//! The scenario's `provider` section: which model answers (the sim and its
//! script, or an OpenAI-compatible endpoint) and how an endpoint is asked
//! (output mode, repair rounds, sampling and reasoning parameters). It
//! holds what the file says; the provider resolves the defaults.

use super::json_text::JsonText;
use super::latency::Latency;
use super::pricing::PriceTable;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// The embedded, deterministic simulated model: scripted outputs.
    Sim,
    /// An OpenAI-compatible chat-completions endpoint.
    Openai,
}

/// The model provider. `kind: "sim"` takes a script of outputs; `kind:
/// "openai"` takes an endpoint (the API key comes only from
/// `OPENAI_API_KEY`). A scripted model output is any JSON value: a string is
/// the model's raw text, anything else the JSON it returned;
/// `{"$fault": "timeout"}` and `{"$fault": "empty"}` stand for a call that
/// timed out or returned nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProviderSpec {
    pub(crate) kind: ProviderKind,
    /// sim: how long each simulated call takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) latency_ms: Option<Latency>,
    /// A model call that takes longer fails with `llm_timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub(crate) timeout_seconds: Option<f64>,
    /// openai (and a sim scenario sent to a real model with `--provider
    /// openai`): ask for each answer as a stream and show its text as it
    /// arrives (the default, `true`); `false` asks for whole answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stream: Option<bool>,
    /// sim, collaboration: each role's outputs, one per call in order (the
    /// last one repeats). A single value instead of a list is that role's
    /// only output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) responses: Option<IndexMap<String, Value>>,
    /// sim, orchestrator: the planner's output. Without it the sim plans one
    /// critical task per declared worker, with the context's `report_date`
    /// and `region` as args. sim, research: the research plan, `{"steps":
    /// [...]}` or the list of steps itself (one planner call per run).
    /// Without it the sim proposes the five canonical steps, searching for
    /// `context.request.question`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Value>")]
    pub(crate) plan: Option<JsonText>,
    /// sim, swarm and coordinator: each agent's turns, one output per
    /// model call in order (the last one repeats): `{"reply": text}`,
    /// `{"transfer_to": agent, "message": text}` (swarm),
    /// `{"call": tool, "args": {...}}`, `{"call_members": [{"member",
    /// "task"}]}` (the coordinator), raw text (a reply) or a `$fault`. A
    /// turn's `"latency_ms"` overrides the simulated latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) turns: Option<IndexMap<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = <super::sections::PatternSections as super::sections::Sections>::SYNTHESIS_SCRIPT_DOC)]
    pub(crate) synthesis: Option<Value>,
    /// sim: the final brief. Without it the sim writes a short brief from
    /// the run's history (collaboration) or aggregate (orchestrator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) final_answer: Option<Value>,
    /// openai: the model name (default `OPENAI_MODEL`, then `gpt-4.1-mini`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
    /// openai: the endpoint (default `OPENAI_BASE_URL`, then OpenAI's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) base_url: Option<String>,
    /// Prices of models in US dollars per million tokens, `{"<model>":
    /// {"input": 0.4, "output": 1.6}}`, over the compiled-in ones;
    /// `--pricing FILE` wins over both. The sim prices its estimated
    /// tokens as the model `sim` (or the one `--model` names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pricing: Option<PriceTable>,
    /// openai: how a request asks for an answer that keeps its contract:
    /// `auto` (the default) starts at `native` and moves down to `tool`,
    /// `json` and `prompted` when the endpoint refuses the feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) output: Option<OutputMode>,
    /// How many times an answer that fails its contract is asked for again,
    /// with the error (default 1 for an endpoint, 0 for the sim).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) output_retries: Option<u32>,
    /// openai: the sampling temperature, 0 to 2; `null` sends none. Without
    /// it none is sent to reasoning models (`o1`, `o3`, `o4`, `gpt-5`) and 0
    /// to any other.
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<f64>", range(min = 0, max = 2))]
    pub(crate) temperature: Option<Option<f64>>,
    /// openai: the most tokens an answer may take, sent as
    /// `max_completion_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub(crate) max_output_tokens: Option<u64>,
    /// openai: passed through as `reasoning_effort` (OpenAI takes
    /// `minimal`, `low`, `medium`, `high`; other servers have others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reasoning_effort: Option<String>,
}

/// How an endpoint is asked for an answer that keeps its contract.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// `native` first; down to the next mode when the endpoint refuses one.
    #[default]
    Auto,
    /// A strict JSON Schema (`response_format: json_schema`).
    Native,
    /// A function the model must call.
    Tool,
    /// Any JSON object (`response_format: json_object`).
    Json,
    /// The schema in the system prompt, nothing else asked.
    Prompted,
}

impl ProviderSpec {
    /// The repair rounds of a run on this provider: `output_retries`, or
    /// 1 for an endpoint and 0 for the sim, whose scripts answer as they
    /// were written.
    pub(crate) fn output_retries(&self, kind: ProviderKind) -> u32 {
        self.output_retries.unwrap_or(match kind {
            ProviderKind::Sim => 0,
            ProviderKind::Openai => 1,
        })
    }
}

/// A field that may be given as `null`: given at all is `Some`, so that
/// `null` (send none) and absent (the default) stay apart.
pub(super) fn given<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(doc: Value) -> ProviderSpec {
        serde_json::from_value(doc).unwrap()
    }

    #[test]
    fn a_null_temperature_is_told_from_none_given_and_written_back_as_read() {
        let absent = spec(json!({"kind": "openai"}));
        let null = spec(json!({"kind": "openai", "temperature": null}));
        let given = spec(json!({"kind": "openai", "temperature": 0.2}));
        assert_eq!(
            (absent.temperature, null.temperature, given.temperature),
            (None, Some(None), Some(Some(0.2)))
        );
        for doc in [
            json!({"kind": "openai"}),
            json!({"kind": "openai", "temperature": null}),
            json!({"kind": "openai", "temperature": 0.2, "output": "json"}),
        ] {
            assert_eq!(serde_json::to_value(spec(doc.clone())).unwrap(), doc);
        }
    }

    #[test]
    fn repair_rounds_default_to_one_for_an_endpoint_and_none_for_the_sim() {
        let bare = spec(json!({"kind": "sim"}));
        assert_eq!(bare.output_retries(ProviderKind::Sim), 0);
        assert_eq!(bare.output_retries(ProviderKind::Openai), 1);
        let set = spec(json!({"kind": "sim", "output_retries": 3}));
        assert_eq!(set.output_retries(ProviderKind::Sim), 3);
        assert_eq!(set.output_retries(ProviderKind::Openai), 3);
    }
}
