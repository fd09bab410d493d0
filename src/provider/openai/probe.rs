//! `conclave probe`: a handful of tiny requests that learn what an
//! endpoint accepts before a run pays for finding out. Each request goes
//! through the provider a run uses, and its answer is read by the same
//! classifier ([`OpenAiError::Unsupported`]); which mode `auto` settles on
//! is walked by the run's own [`OutputPolicy`]. It prints one line per
//! request and never the key (every line is scrubbed, and the key is
//! registered with the scrubber the moment it is read).

use super::config::AskingSettings;
use super::profile::{EndpointProfile, PROFILE_VERSION, Refusable, output_mode};
use super::{OpenAiConfig, OpenAiError, OpenAiProvider, Overrides, recordable};
use crate::exit::Exit;
use crate::output;
use crate::provider::contract::wire;
use crate::provider::output::{Feature, Mode, OutputPolicy, TokenLimit};
use crate::provider::prompts::{Prompt, Prompts};
use crate::provider::sim::{Script, SimScript};
use crate::provider::{Completion, ModelOutput, ModelRequest, ProviderError, Purpose};
use crate::scenario::OutputMode;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

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
    Stream,
}

impl Asked {
    fn label(self) -> &'static str {
        match self {
            Asked::TokenLimit => "max_completion_tokens",
            Asked::Temperature => "temperature 0",
            Asked::Mode(Mode::Native) => "native (response_format json_schema)",
            Asked::Mode(Mode::Tool) => "tool (one forced function call)",
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
            provider.complete(&request(), None).await
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

fn request() -> ModelRequest {
    let purpose = Purpose::new("probe", "probe", "probe", &ProbeScript);
    let schema = wire::object(
        "The probe's answer",
        vec![("ok", wire::boolean("Always true"))],
    );
    let contract = wire::single("probe", schema, |value| value);
    ModelRequest::new(purpose, &PROMPT, serde_json::json!({"probe": "answer ok"}))
        .keeping(Arc::new(contract))
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

/// The request's line: accepted, refused (what, with the endpoint's
/// words) or no answer (why), and how long it took.
fn print(answer: &Answer) {
    let millis = answer.took.as_millis();
    let ignored = ignored(answer);
    let verdict = match &answer.result {
        Ok(completion) if answer.asked == Asked::Stream && completion.usage.is_none() => {
            format!("accepted, but no usage came with the stream, {millis} ms")
        }
        Ok(completion) if completion.usage.is_some_and(|usage| usage.estimated) => format!(
            "accepted, but the answer ran past its token limit and Conclave cut it, {millis} ms"
        ),
        Ok(_) if answer.asked == Asked::Stream => format!("accepted, usage counted, {millis} ms"),
        Ok(_) if ignored.is_some() => format!(
            "accepted but {}, {millis} ms; the limit goes out as max_tokens",
            ignored.unwrap_or_default()
        ),
        Ok(_) => format!("accepted, {millis} ms"),
        Err(OpenAiError::Unsupported {
            status,
            feature,
            said,
        }) => format!(
            "refused {}, HTTP {status}, {millis} ms: {said}",
            feature.as_str()
        ),
        // The same request whole is accepted (it went before): the
        // stream's options are what the endpoint refuses.
        Err(OpenAiError::BadRequest { status, message }) if answer.asked == Asked::Stream => {
            format!("refused stream_options, HTTP {status}, {millis} ms{message}")
        }
        Err(e) => format!("no answer, {millis} ms: {e}"),
    };
    let line = format!("{}: {verdict}", answer.asked.label());
    output::line(&crate::secrets::scrub(&line));
}

/// What the answers say, a run's way: each refusal by name, and the mode
/// `auto` walks down to, by the run's own policy.
struct Learned {
    refused: BTreeMap<Refusable, String>,
    settled: Result<Mode, String>,
    /// Requests that got no answer the probe can read.
    unanswered: usize,
}

fn learned(answers: &[Answer]) -> Learned {
    let mut refused = BTreeMap::new();
    let mut unanswered = 0;
    let accepted = |asked: Asked| answers.iter().any(|a| a.asked == asked && a.result.is_ok());
    for answer in answers {
        match &answer.result {
            Ok(_) => {
                if let Some(words) = ignored(answer) {
                    refused.insert(Refusable::MaxCompletionTokens, words);
                }
            }
            Err(OpenAiError::Unsupported { feature, said, .. }) => {
                refused.insert(refusable(*feature), said.clone());
            }
            // The same request whole was accepted: what the endpoint
            // refuses is the stream's options.
            Err(OpenAiError::BadRequest { message, .. })
                if answer.asked == Asked::Stream && accepted(Asked::Mode(Mode::Prompted)) =>
            {
                let said = message.trim_start_matches(": ").to_string();
                refused.insert(Refusable::StreamOptions, said);
            }
            Err(_) => unanswered += 1,
        }
    }
    Learned {
        refused,
        settled: settles(answers),
        unanswered,
    }
}

fn refusable(feature: Feature) -> Refusable {
    match feature {
        Feature::JsonSchema => Refusable::JsonSchema,
        Feature::Tools => Refusable::Tools,
        Feature::ResponseFormat => Refusable::ResponseFormat,
        Feature::Temperature => Refusable::Temperature,
        Feature::MaxCompletionTokens => Refusable::MaxCompletionTokens,
    }
}

/// The mode `auto` settles on: from `native` down, one refusal by name
/// at a time, as a run's policy moves; else where it would stop.
fn settles(answers: &[Answer]) -> Result<Mode, String> {
    let policy = OutputPolicy::new(OutputMode::Auto, None);
    loop {
        let mode = policy.now().mode;
        let answer = answers
            .iter()
            .find(|a| a.asked == Asked::Mode(mode))
            .ok_or_else(|| format!("{} was not asked", mode.as_str()))?;
        match &answer.result {
            Ok(_) => return Ok(mode),
            Err(OpenAiError::Unsupported { feature, said, .. }) => {
                match policy.adapt(*feature, said) {
                    Some(adapted) if adapted.first => continue,
                    _ => return Err(format!("{} was refused: {said}", mode.as_str())),
                }
            }
            Err(e) => return Err(format!("{} got no answer: {e}", mode.as_str())),
        }
    }
}

/// The summary lines, the profile when asked for, and the exit status:
/// 0 when every request was answered and `auto` settles on a mode, 3 when
/// not (no profile is then written).
fn report(config: &OpenAiConfig, answers: &[Answer], write: Option<&std::path::Path>) -> Exit {
    let learned = learned(answers);
    let settled = match &learned.settled {
        Ok(mode) => mode.as_str().to_string(),
        Err(why) => format!("none, a run in auto would stop: {why}"),
    };
    output::line(&crate::secrets::scrub(&format!(
        "auto settles on: {settled}"
    )));
    let refused: Vec<&str> = learned.refused.keys().map(|r| r.as_str()).collect();
    let refused = if refused.is_empty() {
        "nothing".to_string()
    } else {
        refused.join(", ")
    };
    output::line(&format!("refused: {refused}"));
    let Ok(mode) = learned.settled else {
        return incomplete(write, "auto settles on no mode");
    };
    if learned.unanswered > 0 {
        let why = format!(
            "{} of {} requests got no answer",
            learned.unanswered,
            answers.len()
        );
        return incomplete(write, &why);
    }
    let Some(path) = write else {
        return Exit::Ok;
    };
    let profile = EndpointProfile {
        endpoint_profile: PROFILE_VERSION,
        base_url: recordable(&config.base_url),
        model: config.model.clone(),
        output: output_mode(mode),
        refused: learned.refused,
    };
    let text = crate::secrets::scrub(&profile.to_json()).into_owned();
    match std::fs::write(path, text) {
        Ok(()) => {
            output::line(&format!("profile written to {}", path.display()));
            Exit::Ok
        }
        Err(e) => {
            let path = path.display();
            output::message(&format!(
                "conclave: --write {path}: cannot write the profile: {e}"
            ));
            Exit::BadInput
        }
    }
}

/// Exit 3, saying why and that no profile was written.
fn incomplete(write: Option<&std::path::Path>, why: &str) -> Exit {
    let written = match write {
        Some(path) => format!("; no profile written to {}", path.display()),
        None => String::new(),
    };
    output::message(&format!(
        "conclave: the probe is incomplete: {why}{written}"
    ));
    Exit::Stopped
}
