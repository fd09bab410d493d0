//! `conclave probe`: a handful of tiny requests that learn what an
//! endpoint accepts before a run pays for finding out. Each request goes
//! through the provider a run uses, and its answer is read by the same
//! classifier ([`OpenAiError::Unsupported`]); which mode `auto` settles on
//! is walked by the run's own [`OutputPolicy`]. It prints one line per
//! request and never the key (every line is scrubbed, and the key is
//! registered with the scrubber the moment it is read).

use super::config::AskingSettings;
use super::profile::output_mode;
use super::{OpenAiConfig, OpenAiError, OpenAiProvider, Overrides, recordable};
use crate::exit::Exit;
use crate::output;
use crate::provider::contract::{Finish, wire};
use crate::provider::output::{Feature, Mode, TokenLimit};
use crate::provider::prompts::{Prompt, Prompts};
use crate::provider::sim::{Script, SimScript};
use crate::provider::{Completion, ModelOutput, ModelRequest, ProviderError, Purpose};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

mod report;

use report::{print, report};

/// What `conclave probe` is given.
#[derive(Clone, Debug, Default)]
pub struct ProbeOptions {
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// `--call-timeout`: how long each request may take.
    pub call_timeout: Option<f64>,
    /// `--write FILE`: keep what was learned as an endpoint profile.
    pub write: Option<PathBuf>,
}

/// The most tokens a probe's answer may take: it asks for `{"ok": true}`.
const PROBE_TOKENS: u64 = 64;

/// The limit the token-limit request sends: fewer tokens than the answer
/// it asks for takes, so that an endpoint that honours the limit cuts the
/// answer and one that takes the name and ignores it answers past it.
const LIMIT_TOKENS: u64 = 2;

const PROMPT: Prompt = Prompt {
    file: "probe.md",
    text: "You answer a probe of this endpoint by Conclave. Answer with the JSON object {\"ok\": true} and nothing else.",
    json: true,
};

/// One request of the probe.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Asked {
    TokenLimit,
    Temperature,
    Mode(Mode),
    /// Tool mode as a swarm's or coordinator's turn asks: two functions,
    /// `tool_choice: "required"` (some servers honour only one function
    /// forced by name).
    Required,
    Stream,
}

impl Asked {
    fn label(self) -> &'static str {
        match self {
            Asked::TokenLimit => "max_completion_tokens",
            Asked::Temperature => "temperature 0",
            Asked::Mode(Mode::Native) => "native (response_format json_schema)",
            Asked::Mode(Mode::Tool) => "tool (one forced function call)",
            Asked::Required => "tool (two functions, tool_choice required)",
            Asked::Mode(Mode::Json) => "json (response_format json_object)",
            Asked::Mode(Mode::Prompted) => "prompted (the schema in the prompt)",
            Asked::Stream => "stream with usage (stream_options)",
        }
    }
}

/// How one request was answered.
#[derive(Debug)]
struct Answer {
    asked: Asked,
    result: Result<Completion, OpenAiError>,
    took: Duration,
}

/// Probe the endpoint `options` name; print what it accepts and refuses.
pub fn probe(options: ProbeOptions) -> Exit {
    let config = match config(&options) {
        Ok(config) => config,
        Err(message) => {
            output::message(&format!("conclave: {message}"));
            return Exit::BadInput;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            output::message(&format!("conclave: cannot start the runtime: {e}"));
            return Exit::Internal;
        }
    };
    let heading = format!(
        "probing {} (model {}), {} s per request",
        recordable(&config.base_url),
        config.model,
        crate::duration::seconds_text(config.timeout)
    );
    output::line(&crate::secrets::scrub(&heading));
    let answers = runtime.block_on(ask_all(&config));
    report(&config, &answers, options.write.as_deref())
}

fn config(options: &ProbeOptions) -> Result<OpenAiConfig, String> {
    let spec = serde_json::from_value(serde_json::json!({
        "kind": "openai", "timeout_seconds": options.call_timeout}))
    .map_err(|e| e.to_string())?;
    let overrides = Overrides {
        model: options.model.clone(),
        base_url: options.base_url.clone(),
        no_stream: false,
        call_timeout: options.call_timeout,
    };
    OpenAiConfig::resolve(&spec, &overrides, |name| std::env::var(name).ok())
        .map_err(|e| crate::secrets::scrub(&e.to_string()).into_owned())
}

/// The requests, one after another: the token limit first, so that the
/// others go out under the name the endpoint takes.
async fn ask_all(config: &OpenAiConfig) -> Vec<Answer> {
    let mut answers = Vec::new();
    let first = ask(config, Asked::TokenLimit, TokenLimit::MaxCompletionTokens).await;
    let refused = refused_feature(&first) == Some(Feature::MaxCompletionTokens);
    let limit = if refused || ignored(&first).is_some() {
        TokenLimit::MaxTokens
    } else {
        TokenLimit::MaxCompletionTokens
    };
    print(&first);
    answers.push(first);
    let rest = [
        Asked::Temperature,
        Asked::Mode(Mode::Native),
        Asked::Mode(Mode::Tool),
        Asked::Required,
        Asked::Mode(Mode::Json),
        Asked::Mode(Mode::Prompted),
        Asked::Stream,
    ];
    for asked in rest {
        let answer = ask(config, asked, limit).await;
        print(&answer);
        answers.push(answer);
    }
    answers
}

/// One tiny request: with a contract in its mode, prompted for the
/// others; a temperature only when that is what it asks about.
async fn ask(base: &OpenAiConfig, asked: Asked, limit: TokenLimit) -> Answer {
    let mode = match asked {
        Asked::Mode(mode) => mode,
        Asked::Required => Mode::Tool,
        _ => Mode::Prompted,
    };
    let config = OpenAiConfig {
        stream: asked == Asked::Stream,
        asking: AskingSettings {
            output: output_mode(mode),
            output_retries: 0,
            temperature: (asked == Asked::Temperature).then_some(0.0),
            max_output_tokens: Some(if asked == Asked::TokenLimit {
                LIMIT_TOKENS
            } else {
                PROBE_TOKENS
            }),
            reasoning_effort: None,
        },
        ..base.clone()
    };
    let started = tokio::time::Instant::now();
    let result = match OpenAiProvider::new(config, Prompts::default()) {
        Ok(provider) => {
            provider.policy.start_from(mode, false, limit);
            let request = request(asked == Asked::Required);
            provider
                .complete(&request, None)
                .await
                .and_then(|c| as_asked(mode, c))
        }
        Err(e) => Err(e),
    };
    Answer {
        asked,
        result,
        took: started.elapsed(),
    }
}

/// What the probe's call would be answered on the sim, which it never
/// asks: the answer it wants.
#[derive(Debug)]
struct ProbeScript;

impl SimScript for ProbeScript {
    fn script<'a>(&self, _: &'a crate::scenario::ProviderSpec, _: &Purpose) -> Script<'a> {
        Script::Whole(serde_json::json!({"ok": true}))
    }

    fn unscripted(&self, _: &Purpose, _: &serde_json::Value) -> Result<ModelOutput, ProviderError> {
        Ok(ModelOutput::Json(serde_json::json!({"ok": true})))
    }
}

/// The probe's request; with `two` functions, so that tool mode asks for
/// one of them with `tool_choice: "required"`.
fn request(two: bool) -> ModelRequest {
    let purpose = Purpose::new("probe", "probe", "probe", &ProbeScript);
    let schema = wire::object(
        "The probe's answer",
        vec![("ok", wire::boolean("Always true"))],
    );
    let mut contract = wire::single("probe", schema, |value| value);
    if two {
        let mut other = contract.functions[0].clone();
        other.name = "decline_probe".to_string();
        other.description = "Decline the probe: never the right call here.".to_string();
        let first = contract.functions[0].clone();
        contract.functions = vec![first, other].into();
    }
    ModelRequest::new(purpose, &PROMPT, serde_json::json!({"probe": "answer ok"}))
        .keeping(Arc::new(contract))
}

/// An answer read as the mode it was asked in expects: `native` and
/// `json` ask the endpoint for JSON, so an answer that is no JSON object
/// means the endpoint took the parameter and ignored it, unless it was
/// cut at its limit before it could close. (Tool mode's
/// missing call is the provider's own finding; a prompted answer is read
/// leniently by a run and judged by its contract, not here.)
fn as_asked(mode: Mode, completion: Completion) -> Result<Completion, OpenAiError> {
    let feature = match mode {
        Mode::Native => Feature::JsonSchema,
        Mode::Json => Feature::ResponseFormat,
        Mode::Tool | Mode::Prompted => return Ok(completion),
    };
    // An answer cut at its limit stopped before its JSON could close: a
    // small model rambling inside the grammar, not the format ignored.
    if completion.finish == Finish::Length {
        return Ok(completion);
    }
    let ModelOutput::Text(text) = &completion.output else {
        return Ok(completion);
    };
    match serde_json::from_str::<serde_json::Value>(text.trim()) {
        Ok(serde_json::Value::Object(_)) => Ok(completion),
        _ => {
            let start: String = text.trim().chars().take(80).collect();
            Err(OpenAiError::Ignored {
                feature,
                said: format!(
                    "the answer is not a JSON object; it began: {}",
                    super::shown(&start)
                ),
                spent: None,
            })
        }
    }
}

/// Whether an accepted answer is the `{"ok": true}` the probe asked for,
/// read as a run reads a prompted answer (a fence or prose around it is
/// fine); what it began with when not.
fn not_ok(answer: &Answer) -> Option<String> {
    // The token limit's answer is meant to be cut short of it.
    let Ok(completion) = &answer.result else {
        return None;
    };
    if answer.asked == Asked::TokenLimit {
        return None;
    }
    let ModelOutput::Text(text) = &completion.output else {
        return None;
    };
    use crate::provider::lenient::{Lenient, read};
    let value = match read(text) {
        Lenient::Whole => serde_json::from_str(text.trim()).ok(),
        Lenient::Found(value, _) => Some(value),
        Lenient::Several | Lenient::None { .. } => None,
    };
    if value.is_some_and(|value| value.get("ok") == Some(&serde_json::Value::Bool(true))) {
        return None;
    }
    let start: String = text.trim().chars().take(60).collect();
    Some(super::shown(&start))
}

/// How an answer's text began, shown as the probe quotes it.
fn began(completion: &Completion) -> String {
    let text = completion.output.clone().into_text();
    let start: String = text.trim().chars().take(60).collect();
    super::shown(&start)
}

/// The token-limit request answered past its limit: the endpoint takes
/// `max_completion_tokens` and ignores it (llama-cpp-python does), in
/// words a profile keeps.
fn ignored(answer: &Answer) -> Option<String> {
    let Ok(completion) = &answer.result else {
        return None;
    };
    let tokens = completion.usage?.output;
    (answer.asked == Asked::TokenLimit && tokens > LIMIT_TOKENS).then(|| {
        format!(
            "ignored: the answer took {tokens} tokens where max_completion_tokens asked for at most {LIMIT_TOKENS}"
        )
    })
}

fn refused_feature(answer: &Answer) -> Option<Feature> {
    match &answer.result {
        Err(OpenAiError::Unsupported { feature, .. }) => Some(*feature),
        _ => None,
    }
}
