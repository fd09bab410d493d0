//! Model providers, simulated workers and real ones: where a model or
//! worker call ends up once the gateway lets it through. A provider answers one request; it
//! never retries, never applies a breaker and never publishes events: that
//! is the gateway's job.

pub(crate) mod contract;
mod error;
pub(crate) mod fetch;
pub(crate) mod http;
pub mod lenient;
pub mod mcp;
pub mod openai;
pub(crate) mod output;
pub(crate) mod payload;
pub(crate) mod process_tree;
pub(crate) mod program;
pub(crate) mod program_env;
pub(crate) mod prompts;
mod purpose;
pub(crate) mod real;
pub(crate) mod shared_facts;
pub(crate) mod sim;
pub(crate) mod sse;
mod workers;

use crate::clock::RunClock;
use serde_json::Value;
use std::time::Duration;

pub(crate) use error::{ProviderError, Spent};
pub(crate) use openai::{OpenAiError, OpenAiProvider};
pub(crate) use purpose::Purpose;
pub(crate) use real::RealTools;
pub(crate) use sim::SimProvider;
pub(crate) use sim::workers::SimWorkers;
pub(crate) use workers::Workers;

/// A piece of a streamed answer's text, as the provider lets it out: the
/// pieces of one call, in order, concatenate to its text so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TextPiece {
    /// Text to show, scrubbed of secrets; empty while the scrubber holds
    /// the newest characters back (they may be the start of a secret).
    pub(crate) text: String,
    /// New text came from the model with this piece (not text held back
    /// and let out at the end): what times the first and the last token.
    pub(crate) new: bool,
    /// The piece is the model's reasoning (`reasoning_content`), not its
    /// answer: shown apart, never timed as the answer's first token.
    pub(crate) reasoning: bool,
    /// The piece is a function call's arguments as the model writes them
    /// (tool mode): the answer in the making, shown and timed as its text
    /// is, though not its text.
    pub(crate) arguments: bool,
}

/// Where a streaming provider hands over the text of an answer as it
/// arrives. Unbounded: the provider's body cap bounds what one call sends.
pub(crate) type TextSink = tokio::sync::mpsc::UnboundedSender<TextPiece>;

/// One model call: its purpose, the system prompt its pattern chose for it
/// and the JSON payload the model is given.
#[derive(Clone, Debug)]
pub(crate) struct ModelRequest {
    /// Shared: a team builds each agent's once, for all its turns.
    pub(crate) purpose: std::sync::Arc<Purpose>,
    pub(crate) prompt: &'static prompts::Prompt,
    pub(crate) payload: Value,
    /// The scenario's shared facts, which stand at their key of `payload`
    /// (a `null` there) and are written in when the payload is.
    pub(crate) shared: Option<shared_facts::SharedFacts>,
    /// A part of the payload the pattern wrote as JSON text before the
    /// call, which stands at its key of `payload` as the shared facts do.
    pub(crate) written: Option<payload::WrittenPart>,
    /// The contract the answer must keep, as an endpoint is asked for it
    /// (`provider.output`); none for free text (a brief).
    pub(crate) contract: Option<std::sync::Arc<contract::Contract>>,
    /// Earlier answers of this call that failed their contract, each with
    /// what was wrong, in order: the request asks again after them.
    pub(crate) repair: Vec<contract::RepairTurn>,
    /// Characters of the payload as written, counted the first time it is
    /// (for the prompt's hash): the sim's token estimate reads the count
    /// instead of writing the payload again.
    pub(crate) payload_chars: std::sync::OnceLock<u64>,
}

impl ModelRequest {
    /// A request for free text or for JSON read as the references read
    /// it, with no contract an endpoint is asked to keep.
    pub(crate) fn new(
        purpose: impl Into<std::sync::Arc<Purpose>>,
        prompt: &'static prompts::Prompt,
        payload: Value,
    ) -> Self {
        ModelRequest {
            purpose: purpose.into(),
            prompt,
            payload,
            shared: None,
            written: None,
            contract: None,
            repair: Vec::new(),
            payload_chars: std::sync::OnceLock::new(),
        }
    }

    /// The request, asking the endpoint for `contract`.
    pub(crate) fn keeping(mut self, contract: std::sync::Arc<contract::Contract>) -> Self {
        self.contract = Some(contract);
        self
    }
}

/// What a model returned.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ModelOutput {
    /// Raw text, parsed by the pattern as its reference does.
    Text(String),
    /// JSON a scripted model returned as such.
    Json(Value),
    /// JSON a scripted model returned as such, still as the scenario wrote
    /// it: a planner's plan of 100,000 tasks is read into tasks as they are
    /// checked rather than held as one value.
    JsonText(crate::scenario::JsonText),
}

impl ModelOutput {
    /// The output as the references read a model's JSON answer: empty text
    /// counts as `{}`, and text that is not JSON becomes `invalid(text)`.
    pub(crate) fn into_json(self, invalid: impl FnOnce(String) -> Value) -> Value {
        match self.returned_json() {
            Ok(value) => value,
            Err(text) => {
                let text = if text.is_empty() {
                    "{}".to_string()
                } else {
                    text
                };
                crate::pycompat::parse_model_text(&text).unwrap_or_else(|| invalid(text))
            }
        }
    }

    /// The JSON the model returned as such, or else its text.
    pub(crate) fn returned_json(self) -> Result<Value, String> {
        match self {
            ModelOutput::Json(value) => Ok(value),
            ModelOutput::JsonText(text) => Ok(text.to_value()),
            ModelOutput::Text(text) => Err(text),
        }
    }

    /// The output as text: JSON returned as such written as the references
    /// write it (Python's `json.dumps`).
    pub(crate) fn into_text(self) -> String {
        match self.returned_json() {
            Ok(value) => crate::pycompat::py_json_dumps(&value),
            Err(text) => text,
        }
    }
}

/// One answer and, when the endpoint counts them, the tokens it took.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Completion {
    pub(crate) output: ModelOutput,
    pub(crate) usage: Option<crate::bus::TokenUsage>,
    /// Served from a cassette: the usage is the recording's, priced as it
    /// was then.
    pub(crate) served: bool,
    /// Why the model stopped writing.
    pub(crate) finish: contract::Finish,
    /// The model's reasoning text (`reasoning_content`), kept apart from
    /// the answer and never carried into a later prompt.
    pub(crate) reasoning: Option<String>,
    /// How many function calls the answer made (an endpoint's answer in
    /// tool mode; 0 for text, the sim and a cassette).
    pub(crate) calls: usize,
    /// Conclave cut the stream after this many pieces: it ran past the
    /// limit its request sent, which the endpoint took and ignored (`None`
    /// when the endpoint ended the answer, and on the sim and a cassette).
    pub(crate) cut_after: Option<u64>,
}

impl From<ModelOutput> for Completion {
    fn from(output: ModelOutput) -> Self {
        Completion {
            output,
            usage: None,
            served: false,
            finish: contract::Finish::Stop,
            reasoning: None,
            calls: 0,
            cut_after: None,
        }
    }
}

/// Why a worker or tool call failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum WorkerError {
    #[error("no worker of that name")]
    Missing,
    /// The args do not fit the worker's signature.
    #[error("the args do not fit the worker")]
    BadArgs,
    /// The worker failed: a scripted failure or an outage, or a real
    /// worker's error status, non-zero exit or broken connection, which
    /// `detail` describes (cleaned and short), with the HTTP status when an
    /// endpoint answered.
    #[error("the worker failed")]
    Failed {
        detail: Option<String>,
        http_status: Option<u16>,
    },
    /// A real worker answered with something that is not a JSON object.
    #[error("the worker's answer is not a JSON object")]
    BadResult { detail: String },
}

impl WorkerError {
    /// A failure with nothing more to say (a simulated one).
    pub(crate) const FAILED: WorkerError = WorkerError::Failed {
        detail: None,
        http_status: None,
    };

    /// A real worker's failure, in words.
    pub(crate) fn failed(detail: impl Into<String>) -> Self {
        WorkerError::Failed {
            detail: Some(detail.into()),
            http_status: None,
        }
    }
}

#[derive(Debug)]
pub(crate) enum Provider {
    Sim(Box<SimProvider>),
    OpenAi(OpenAiProvider),
    /// A run served wholly from a cassette of an endpoint's run: no model
    /// is called, and the gateway treats calls as it did for the endpoint.
    Offline(Offline),
}

/// What a run served wholly from a cassette keeps of the recorded run's
/// provider.
#[derive(Debug)]
pub(crate) struct Offline {
    /// The recorded run's model, as `run_started` names it.
    pub(crate) model: crate::bus::RunModel,
    /// Served refusals of a feature adapt it as they adapted the endpoint.
    pub(crate) policy: output::OutputPolicy,
    pub(crate) output_retries: u32,
    /// The token limit the recorded run's requests sent
    /// (`provider.max_output_tokens`): an answer served past it adapts the
    /// run as it adapted the endpoint's.
    pub(crate) output_limit: Option<u64>,
}

impl Provider {
    /// One answer to `request`. A streaming provider hands its text to
    /// `text` as it arrives; the sim answers at once, in one piece.
    /// The sim takes its time on the run's `clock`.
    pub(crate) async fn complete(
        &self,
        request: &ModelRequest,
        text: Option<TextSink>,
        clock: &RunClock,
    ) -> Result<Completion, ProviderError> {
        match self {
            // The sim counts no tokens: it estimates them from the text.
            Provider::Sim(sim) => sim
                .complete_on(request, clock)
                .await
                .map(|output| Completion {
                    usage: Some(sim::estimate::estimate(request, &output)),
                    ..Completion::from(output)
                }),
            // Boxed: the endpoint's call (its connection, its stream) is
            // many times the size of the sim's, and every future that
            // awaits this one would carry that size and copy it per call.
            Provider::OpenAi(http) => Ok(Box::pin(http.complete(request, text)).await?),
            Provider::Offline(_) => Err(ProviderError::Failed(
                "this run is served from a cassette and calls no model".to_string(),
            )),
        }
    }

    /// A call served from a cassette still plays the sim's script: its
    /// cursor moves on and its latency is drawn from the run's random
    /// source, as the recorded call's were, so that later live calls and
    /// draws are where the recorded run had them. The sim does both
    /// before it first waits; what it would answer is dropped.
    pub(crate) fn play_script(&self, request: &ModelRequest, clock: &RunClock) {
        use futures_util::FutureExt as _;
        if let Provider::Sim(sim) = self {
            drop(sim.complete_on(request, clock).now_or_never());
        }
    }

    /// Whether `output` is the sim scenario's plan, given whole.
    pub(crate) fn is_whole_plan(&self, output: &ModelOutput) -> bool {
        matches!(self, Provider::Sim(sim) if sim.is_whole_plan(output))
    }

    /// How long one call may take before it counts as timed out. The HTTP
    /// client keeps its own timeout.
    pub(crate) fn timeout(&self) -> Option<Duration> {
        match self {
            Provider::Sim(sim) => sim.timeout(),
            Provider::OpenAi(_) => None,
            Provider::Offline(_) => None,
        }
    }

    /// The words of a live endpoint's call that got no answer within
    /// its timeout: after how long, and how to raise it. None for the sim
    /// (whose timeouts are scripted) and for a run from a recording.
    pub(crate) fn timeout_words(&self) -> Option<String> {
        match self {
            Provider::OpenAi(http) => Some(http.timeout_words()),
            Provider::Sim(_) | Provider::Offline(_) => None,
        }
    }

    /// Whether the endpoint is asked for each contract itself (`native`
    /// or `tool` output), so that an answer outside it is no answer.
    pub(crate) fn replies_by_contract(&self) -> bool {
        self.policy()
            .is_some_and(output::OutputPolicy::asks_by_contract)
    }

    /// Whether calls go over the network, where rate limits and server
    /// errors are worth a few retries even without a resilience section.
    pub(crate) fn is_remote(&self) -> bool {
        match self {
            Provider::Sim(_) => false,
            Provider::OpenAi(_) => true,
            Provider::Offline(offline) => {
                offline.model.provider == crate::scenario::ProviderKind::Openai
            }
        }
    }
}
